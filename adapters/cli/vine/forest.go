// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// forestEnv names the forest a command works on when --forest is absent.
const forestEnv = "VINE_FOREST"

// forestFlag is --forest DIR, the forest a command works on. Its default
// comes from forestDir, not the library, so a command can tell "given
// here" from "a default" (serve's --forests wins over a default forest).
func forestFlag() cli.Flag {
	return &cli.StringFlag{Name: "forest", Usage: "the forest `DIR` (default: $" + forestEnv + ", then the config file)", TakesFile: true}
}

// forestDir is the forest the command names: --forest, else $VINE_FOREST,
// else the config file's forest; "~" expanded. "" when none names one.
func forestDir(c *cli.Command) string {
	dir := c.String("forest")
	if dir == "" {
		dir = os.Getenv(forestEnv)
	}
	if dir == "" {
		if v, ok := loadedConfig(c).value(commandPath(c), "forest"); ok {
			dir = fmt.Sprint(v)
		}
	}
	return expandHome(dir)
}

// forestRootAbove is the forest that holds dir as one of its folders, or
// "" when dir is no branch folder. A forest's root holds its own git
// repository; a branch folder has an _index.md too, and no repository.
func forestRootAbove(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil || isForestRoot(abs) {
		return ""
	}
	for p := filepath.Dir(abs); p != filepath.Dir(p); p = filepath.Dir(p) {
		if isForestRoot(p) {
			return p
		}
	}
	return ""
}

func isForestRoot(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, forest.GitDir))
	return err == nil && forest.IsForest(dir)
}

// checkForest refuses a --forest that is not a forest before anything is
// opened: opening a branch folder as a forest would build a second
// _derived/ inside the real one. The envelope (stdout) names the folder
// alone; the operator's line (stderr) gives the paths.
func checkForest(e env, op, dir string) error {
	if root := forestRootAbove(dir); root != "" {
		fmt.Fprintf(e.stderr, "vine %s: %s is a branch folder of the forest at %s; pass --forest %s\n", op, dir, root, root)
		return envelope.New(envelope.NotFound,
			fmt.Sprintf("not a forest: %s is a branch folder inside a forest", filepath.Base(dir)),
			"pass the forest's root folder (the one holding .git), and name the branch in the arguments")
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(e.stderr, "vine %s: --forest %s: no such directory\n", op, dir)
	}
	return nil // vine.Open says what else is wrong (no _index.md)
}
