// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// versionInfo is what "vine version --json" prints.
type versionInfo struct {
	Version string `json:"version"` // the module version, or the VCS revision of a working-tree build
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

func currentVersion() versionInfo {
	return versionInfo{Version: wire.Version(), Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

// printVersion writes "vine VERSION (GO OS/ARCH)", or the same as JSON.
func printVersion(w io.Writer, asJSON bool) int {
	v := currentVersion()
	if asJSON {
		return printJSON(w, v)
	}
	fmt.Fprintf(w, "vine %s (%s %s/%s)\n", v.Version, v.Go, v.OS, v.Arch)
	return exitOK
}

// versionCommand is "vine version"; "vine --version" prints the same.
func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version (the module version, or the VCS revision of a source build)",
		UsageText: "vine version [--json]",
		Flags:     []cli.Flag{jsonFlag()},
		Action: func(ctx context.Context, c *cli.Command) error {
			return exitWith(printVersion(c.Root().Writer, c.Bool("json")))
		},
	}
}

// jsonFlag is --json, the same on every command that prints a result.
func jsonFlag() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}
}
