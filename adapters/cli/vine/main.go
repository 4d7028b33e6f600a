// SPDX-License-Identifier: Apache-2.0

// Command vine is the command-line face of the forest engine.
//
// Run "vine help" for the list of commands and "vine help COMMAND" (or
// "vine COMMAND --help") for one command's flags. call prints the
// primitive's JSON result and exits 0, or prints its envelope
// {"error":{...}} and exits 1. validate exits 1 when the forest has errors.
// Usage mistakes exit 2.
//
// The command tree is built on github.com/urfave/cli/v3: it parses flags
// anywhere on the line (before or after positional arguments), accepts
// "--flag" and the older "-flag", reads a flag's default from the
// environment and the config file (flags > environment > config file, see
// config.go), and generates shell completion ("vine completion bash").
//
// The engine's packages read no environment; the command reads these
// variables and passes their values to the engine (README, "Configuration",
// lists every one):
//
//   - MONKEYLLM_S3_ENDPOINT: the S3-compatible store s3:// payloads are
//     fetched from (AWS S3 when unset), as a URL or host[:port];
//     AWS_REGION or AWS_DEFAULT_REGION its signing region. Keys come from
//     the standard AWS chain (AWS_ACCESS_KEY_ID, the shared credentials
//     file, the instance role).
//   - MONKEYLLM_HARVEST_MAX_K: the operator's cap on harvest's k (default
//     5); a value that is not an integer >= 1 makes every sweep answer
//     E_SCHEMA.
//
// The serve command reads its own as well (MONKEYLLM_INGEST_ROOTS, the
// MONKEYLLM_STATION_* settings), the canopy command its embedder's, and
// adopt, sync and upload their vision model's (MONKEYLLM_VISION_ENDPOINT,
// MONKEYLLM_VISION_MODEL, MONKEYLLM_VISION_API_KEY; see vision.go), the
// curating commands (adopt and sync --curate, rollup, recurate) their
// chat model's: MONKEYLLM_LLM_ENDPOINT, MONKEYLLM_LLM_MODEL and
// MONKEYLLM_LLM_API_KEY, and snapshot create --to s3:// signs with
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN (no
// shared file or role). clone, push, pull and serve --follow read the
// credentials of git remotes, used per call and never stored:
// MONKEYLLM_GIT_TOKEN (HTTP(S)), MONKEYLLM_GIT_SSH_KEY and
// MONKEYLLM_GIT_SSH_PASSPHRASE (ssh://).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/urfave/cli/v3"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// env is what a command sees of the process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// envOf is the process as the command tree was given it.
func envOf(c *cli.Command) env {
	r := c.Root()
	return env{stdin: r.Reader, stdout: r.Writer, stderr: r.ErrWriter}
}

// builders make the subcommands: each lives in its own file and adds
// itself with registerCommand from an init function, so a new command
// touches no other.
var builders []func() *cli.Command

// registerCommand adds a command declared on the command library. build
// runs once per invocation, so flag values never leak between runs (tests
// run many in one process).
func registerCommand(build func() *cli.Command) {
	builders = append(builders, build)
}

// exitCode carries a command's exit code out of the command library.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit status %d", int(c)) }

// exitWith turns an exit code into the error an Action returns.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return exitCode(code)
}

// run is main without the process: it returns the exit code, so tests
// drive the whole command in-process.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	configureFromEnv()
	app := newApp(env{stdin: stdin, stdout: stdout, stderr: stderr})
	err := app.Run(ctx, append([]string{"vine"}, args...))
	var code exitCode
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &code):
		return int(code)
	}
	fmt.Fprintf(stderr, "vine: %v\n", err)
	return exitUsage
}

// newApp is the command tree of one invocation.
func newApp(e env) *cli.Command {
	root := &cli.Command{
		Name:            "vine",
		Usage:           "the command-line face of the forest engine",
		HideHelpCommand: true, // "vine help" is ours: it knows subcommands and exits 2 on a typo
		Reader:          e.stdin,
		Writer:          e.stdout,
		ErrWriter:       e.stderr,
		// Errors come back to run, which picks the exit code; the library
		// must never exit the process itself.
		ExitErrHandler:        func(context.Context, *cli.Command, error) {},
		EnableShellCompletion: true,
		ConfigureShellCompletionCommand: func(c *cli.Command) {
			c.Hidden = false
			c.Usage = "print a shell completion script (bash, zsh, fish, pwsh)"
			c.UsageText = "vine completion bash|zsh|fish|pwsh"
			dress(c)
		},
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "version", Aliases: []string{"v"}, Usage: "print the version and exit", Local: true},
		},
		CustomRootCommandHelpTemplate: rootHelpTemplate,
		Action:                        rootAction,
	}
	root.Commands = append(root.Commands, helpCommand(), versionCommand())
	for _, build := range builders {
		root.Commands = append(root.Commands, build())
	}
	slices.SortFunc(root.Commands, func(a, b *cli.Command) int { return strings.Compare(a.Name, b.Name) })
	for _, c := range root.Commands {
		dress(c)
	}
	cfg, err := loadConfig(configPath())
	if err != nil {
		cfg = &config{}
	}
	root.Metadata = map[string]any{configKey: cfg}
	for _, c := range root.Commands {
		withConfig(c, cfg, err)
	}
	return root
}

// dress gives c and its subcommands the house help and usage-error
// handling.
func dress(c *cli.Command) {
	if c.CustomHelpTemplate == "" {
		c.CustomHelpTemplate = commandHelpTemplate
	}
	if c.OnUsageError == nil {
		c.OnUsageError = usageError
	}
	for _, s := range c.Commands {
		dress(s)
	}
}

// usageError reports a command line the library could not parse (an
// unknown flag, a flag without its value) and exits 2.
func usageError(_ context.Context, c *cli.Command, err error, _ bool) error {
	name := c.FullName()
	msg := err.Error()
	// The library names an unknown flag with one dash whatever was typed;
	// the house spelling is two.
	if rest, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok && !strings.HasPrefix(rest, "-") {
		msg = "flag provided but not defined: --" + rest
	}
	fmt.Fprintf(c.Root().ErrWriter, "%s: %s\nRun \"vine help %s\" for usage.\n", name, msg, strings.TrimPrefix(name, "vine "))
	return exitCode(exitUsage)
}

// rootAction runs for "vine" with no command: --version, or usage.
func rootAction(ctx context.Context, c *cli.Command) error {
	if c.Bool("version") {
		return exitWith(printVersion(c.Root().Writer, false))
	}
	w := c.Root().ErrWriter
	if c.Args().Present() {
		fmt.Fprintf(w, "vine: unknown command %q\nRun \"vine help\" for the list of commands.\n", c.Args().First())
		return exitCode(exitUsage)
	}
	printHelp(w, c)
	return exitCode(exitUsage)
}
