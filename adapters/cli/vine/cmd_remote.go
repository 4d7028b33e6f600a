// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
)

func init() {
	registerCommand(cloneCommand)
	registerCommand(pushCommand)
	registerCommand(pullCommand)
	registerCommand(remoteCommand)
}

// The credentials of git remotes, read here and passed per call: the
// engine never stores them in the forest.
const (
	gitTokenEnv         = "MONKEYLLM_GIT_TOKEN"          // HTTP(S) token (password of basic auth)
	gitSSHKeyEnv        = "MONKEYLLM_GIT_SSH_KEY"        // PEM private key file for ssh:// remotes
	gitSSHPassphraseEnv = "MONKEYLLM_GIT_SSH_PASSPHRASE" // its passphrase
)

// remoteFlags are the remote and credential flags of clone, push, pull
// and serve --follow.
func remoteFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "remote", Usage: "the remote's `NAME` (default: origin)"},
		&cli.StringFlag{Name: "token", Usage: "HTTP(S) `TOKEN` (default: $" + gitTokenEnv + "); never stored"},
		&cli.StringFlag{Name: "user", Usage: "user `NAME` sent with the token (default: vine)"},
		&cli.StringFlag{Name: "ssh-key", Usage: "PEM private key `FILE` for ssh:// remotes (default: $" + gitSSHKeyEnv + "; passphrase: $" + gitSSHPassphraseEnv + ")", TakesFile: true},
		&cli.StringFlag{Name: "known-hosts", Usage: "known_hosts `FILE` checking an ssh:// server's key", TakesFile: true},
	}
}

// remoteOptions reads the remote flags and the environment.
func remoteOptions(c *cli.Command, bar *phasedBar) vine.RemoteOptions {
	o := vine.RemoteOptions{
		Remote:         c.String("remote"),
		Token:          firstOf(c.String("token"), os.Getenv(gitTokenEnv)),
		Username:       c.String("user"),
		SSHKey:         firstOf(c.String("ssh-key"), os.Getenv(gitSSHKeyEnv)),
		SSHKeyPassword: os.Getenv(gitSSHPassphraseEnv),
		SSHKnownHosts:  c.String("known-hosts"),
	}
	if bar != nil {
		o.Progress = bar.update
	}
	return o
}

func cloneCommand() *cli.Command {
	return &cli.Command{
		Name:      "clone",
		Usage:     "copy a forest from a git remote into a new directory and index it",
		UsageText: "vine clone URL DIR [--token T | --ssh-key FILE] [--json]",
		Flags:     append(remoteFlags(), jsonFlag()),
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdClone(ctx, c, envOf(c))) },
	}
}

func cmdClone(ctx context.Context, c *cli.Command, e env) int {
	if c.Args().Len() != 2 {
		fmt.Fprintf(e.stderr, "vine clone: name the remote URL and the new directory: vine clone URL DIR\n")
		return exitUsage
	}
	bar := &phasedBar{w: e.stderr}
	res, err := vine.Clone(ctx, c.Args().Get(0), c.Args().Get(1), remoteOptions(c, bar))
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "clone", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "cloned %s at %s: %d nodes\n", res.Dir, short(res.Head), res.Nodes)
	if len(res.PayloadsMissing) > 0 {
		fmt.Fprintf(e.stdout, "payloads not in git, missing here (copy them, or restore a snapshot): %s\n", strings.Join(res.PayloadsMissing, ", "))
	}
	return exitOK
}

func pushCommand() *cli.Command {
	return &cli.Command{
		Name:      "push",
		Usage:     "send the forest's commits to its remote",
		UsageText: "vine push --forest DIR [--remote NAME] [--token T | --ssh-key FILE] [--json]",
		Flags:     append([]cli.Flag{forestFlag()}, append(remoteFlags(), jsonFlag())...),
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdPush(ctx, c, envOf(c))) },
	}
}

func cmdPush(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "push")
	if dir == "" {
		return code
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "push", err)
	}
	defer v.Close()
	res, err := v.Push(ctx, remoteOptions(c, nil))
	if err != nil {
		return fail(e.stdout, e.stderr, "push", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, res)
	}
	if res.UpToDate {
		fmt.Fprintf(e.stdout, "%s is up to date at %s\n", res.Branch, short(res.Commit))
	} else {
		fmt.Fprintf(e.stdout, "pushed %s at %s\n", res.Branch, short(res.Commit))
	}
	return exitOK
}

func pullCommand() *cli.Command {
	return &cli.Command{
		Name:      "pull",
		Usage:     "fetch the remote and fast-forward or merge it into the forest",
		UsageText: "vine pull --forest DIR [--prefer ours|theirs] [--remote NAME] [--token T | --ssh-key FILE] [--json]",
		Flags: append([]cli.Flag{forestFlag(),
			&cli.StringFlag{Name: "prefer", Usage: "settle nodes both sides changed: `ours` or theirs (default: refuse, listing them)"}},
			append(remoteFlags(), jsonFlag())...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdPull(ctx, c, envOf(c))) },
	}
}

func cmdPull(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "pull")
	if dir == "" {
		return code
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "pull", err)
	}
	defer v.Close()
	bar := &phasedBar{w: e.stderr}
	res, err := v.Pull(ctx, vine.PullOptions{RemoteOptions: remoteOptions(c, bar), Prefer: c.String("prefer")})
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "pull", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "%s: now at %s, %d node(s) written, %d removed\n", res.Kind, short(res.Head), len(res.Written), len(res.Removed))
	return exitOK
}

func remoteCommand() *cli.Command {
	return &cli.Command{
		Name:      "remote",
		Usage:     "list the forest's git remotes, or set one's URL",
		UsageText: "vine remote --forest DIR [--json] | vine remote set NAME URL --forest DIR",
		Flags:     []cli.Flag{forestFlag(), jsonFlag()},
		Commands: []*cli.Command{{
			Name:      "set",
			Usage:     "record (or replace) a remote's URL; credentials are never stored",
			UsageText: "vine remote set NAME URL --forest DIR",
			Flags:     []cli.Flag{forestFlag()},
			Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdRemoteSet(ctx, c, envOf(c))) },
		}},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdRemoteList(ctx, c, envOf(c))) },
	}
}

func cmdRemoteList(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "remote")
	if dir == "" {
		return code
	}
	v, err := vine.Open(ctx, dir, &vine.Options{ReadOnly: true, Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "remote", err)
	}
	defer v.Close()
	rs, err := v.Remotes()
	if err != nil {
		return fail(e.stdout, e.stderr, "remote", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, map[string]any{"remotes": rs})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%s\n", r.Name, r.URL)
	}
	tw.Flush()
	return exitOK
}

func cmdRemoteSet(ctx context.Context, c *cli.Command, e env) int {
	if c.Args().Len() != 2 {
		fmt.Fprintf(e.stderr, "vine remote set: name the remote and its URL: vine remote set NAME URL --forest DIR\n")
		return exitUsage
	}
	dir, code := openForest(c, e, "remote")
	if dir == "" {
		return code
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "remote", err)
	}
	defer v.Close()
	if err := v.SetRemote(ctx, c.Args().Get(0), c.Args().Get(1)); err != nil {
		return fail(e.stdout, e.stderr, "remote", err)
	}
	return printJSON(e.stdout, map[string]any{"remote": c.Args().Get(0), "url": c.Args().Get(1)})
}
