// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/trails"
)

func init() {
	registerCommand(heatModeCommand)
}

func heatModeCommand() *cli.Command {
	return &cli.Command{
		Name:      "heat-mode",
		Usage:     "print or set how heat ranks: per node (unconditioned) or per question (conditioned)",
		UsageText: "vine heat-mode --forest DIR [conditioned|unconditioned] [--json]",
		Flags:     []cli.Flag{forestFlag(), jsonFlag()},
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdHeatMode(ctx, c, envOf(c))) },
	}
}

// cmdHeatMode prints the forest's heat mode, or records the one named.
// The mode lives in the derived layer (_derived/trails.db): setting it
// commits nothing to the forest's history.
func cmdHeatMode(ctx context.Context, c *cli.Command, e env) int {
	dir, asJSON, pos := forestDir(c), c.Bool("json"), c.Args().Slice()
	switch {
	case len(pos) > 1:
		fmt.Fprintf(e.stderr, "vine heat-mode: name at most one mode, got %q\n", strings.Join(pos, " "))
		return exitUsage
	case dir == "":
		fmt.Fprintln(e.stderr, "vine heat-mode: --forest DIR is required")
		return exitUsage
	}
	if err := checkForest(e, "heat_mode", dir); err != nil {
		return refuse(e.stdout, "heat_mode", err)
	}
	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: len(pos) == 0, Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "heat_mode", err)
	}
	defer v.Close()
	if len(pos) == 1 {
		if err := v.SetHeatMode(ctx, trails.HeatMode(pos[0])); err != nil {
			return fail(e.stdout, e.stderr, "heat_mode", err)
		}
	}
	mode, err := v.HeatMode(ctx)
	if err != nil {
		return fail(e.stdout, e.stderr, "heat_mode", err)
	}
	if asJSON {
		return printJSON(e.stdout, map[string]string{"heat_mode": string(mode)})
	}
	fmt.Fprintln(e.stdout, mode)
	return exitOK
}
