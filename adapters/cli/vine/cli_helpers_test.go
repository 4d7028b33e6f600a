// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"io"

	"github.com/urfave/cli/v3"
)

// parseServe reads serve's command line (what follows "vine serve") the
// way the command does, for tests of the flag rules alone.
func parseServe(args []string, stderr io.Writer) (serveConfig, bool) {
	var c serveConfig
	ok := false
	cmd := serveCommand()
	cmd.Writer, cmd.ErrWriter = io.Discard, stderr
	cmd.ExitErrHandler = func(context.Context, *cli.Command, error) {}
	cmd.OnUsageError = usageError
	cmd.Action = func(_ context.Context, cc *cli.Command) error {
		c, ok = serveConfigOf(cc, stderr)
		return nil
	}
	if err := cmd.Run(context.Background(), append([]string{"serve"}, args...)); err != nil {
		return c, false
	}
	return c, ok
}
