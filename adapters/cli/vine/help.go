// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v3"
)

// rootHelpTemplate is "vine --help": the commands, one line each, and
// where the defaults come from.
const rootHelpTemplate = `vine: {{.Usage}}

commands:
{{range .VisibleCommands}}  {{.Name}}	{{.Usage}}
{{end}}
usage:
{{range .VisibleCommands}}  {{synopsis .}}
{{end}}
flags:
{{range .VisibleFlags}}  {{.}}
{{end}}
Run "vine help COMMAND" or "vine COMMAND --help" for a command's flags.
Flags take their defaults from the environment, then from the config file
($XDG_CONFIG_HOME/vine/config.yaml, or $VINE_CONFIG); see "Configuration"
in the README.
`

// commandHelpTemplate is "vine COMMAND --help" and "vine help COMMAND":
// the usage line first, so a script can grep it.
const commandHelpTemplate = `usage: {{if .UsageText}}{{.UsageText}}{{else}}{{.FullName}}{{if .VisibleCommands}} COMMAND{{end}}{{if .VisibleFlags}} [flags]{{end}}{{if .ArgsUsage}} {{.ArgsUsage}}{{end}}{{end}}
{{if .Usage}}
{{.Usage}}
{{end}}{{if .Description}}
{{trim .Description}}
{{end}}{{if .VisibleCommands}}
commands:
{{range .VisibleCommands}}  {{.Name}}	{{.Usage}}
{{end}}{{end}}{{if .VisibleFlags}}
flags:
{{range .VisibleFlags}}  {{.}}
{{end}}{{end}}{{if .VisiblePersistentFlags}}
shared flags (before or after the action):
{{range .VisiblePersistentFlags}}  {{.}}
{{end}}{{end}}`

func init() {
	// Every help page, the library's own ("vine serve --help") and ours,
	// renders with the synopsis function.
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		cli.HelpPrinterCustom(w, templ, data, map[string]any{"synopsis": synopsis})
	}
	// A command with subcommands ("vine keys --help") gets the house page
	// too; the library's own ignores CustomHelpTemplate.
	cli.ShowSubcommandHelp = func(c *cli.Command) error {
		printHelp(c.Root().Writer, c)
		return nil
	}
}

// synopsis is c's usage line with the command name padded, so the
// root help lines up its commands' arguments.
func synopsis(c *cli.Command) string {
	rest := strings.TrimSpace(strings.TrimPrefix(c.UsageText, "vine "+c.Name))
	if c.UsageText == "" {
		rest = "[flags]"
	}
	return strings.TrimSpace(fmt.Sprintf("vine %-8s %s", c.Name, rest))
}

// printHelp writes c's help to w.
func printHelp(w io.Writer, c *cli.Command) {
	if c.Root() == c {
		cli.HelpPrinter(w, rootHelpTemplate, c)
		return
	}
	tmpl := c.CustomHelpTemplate
	if tmpl == "" {
		tmpl = commandHelpTemplate
	}
	cli.HelpPrinter(w, tmpl, c)
}

// helpCommand is "vine help [COMMAND [SUBCOMMAND]]": help on stdout,
// exit 0; an unknown command on stderr, exit 2.
func helpCommand() *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "show the commands, or one command's flags",
		UsageText: "vine help [COMMAND [SUBCOMMAND]]",
		HideHelp:  true,
		Action: func(ctx context.Context, c *cli.Command) error {
			target := c.Root()
			for _, name := range c.Args().Slice() {
				sub := target.Command(name)
				if sub == nil {
					path := strings.TrimSpace(strings.TrimPrefix(target.FullName(), "vine") + " " + name)
					fmt.Fprintf(c.Root().ErrWriter, "vine: unknown command %q\nRun \"vine help\" for the list of commands.\n", strings.TrimSpace(path))
					return exitCode(exitUsage)
				}
				target = sub
			}
			printHelp(c.Root().Writer, target)
			return nil
		},
	}
}
