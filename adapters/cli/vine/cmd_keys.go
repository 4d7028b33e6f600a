// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

func init() {
	registerCommand(keysCommand)
}

// keysCommand manages a keys file (spec 08 §6): add prints the new secret
// once and stores only its digest; list shows metadata and status, never
// a secret; revoke stamps revoked_at. A server reading the file sees each
// change within a second or two, without a restart.
func keysCommand() *cli.Command {
	return &cli.Command{
		Name:      "keys",
		Usage:     "add, list or revoke the bearer keys an HTTP server admits",
		UsageText: "vine keys add|list|revoke --keys FILE ...",
		Description: `A server started with "vine serve --http ADDR --keys FILE" sees each change
within a second or two, without a restart. add prints the new secret once;
the file keeps only its digest.`,
		Commands: []*cli.Command{keysAddCommand(), keysListCommand(), keysRevokeCommand()},
		Action: func(_ context.Context, c *cli.Command) error {
			e := envOf(c)
			if c.Args().Present() {
				fmt.Fprintf(e.stderr, "vine keys: unknown action %q: give add, list or revoke\n", c.Args().First())
			} else {
				fmt.Fprint(e.stderr, "vine keys: give add, list or revoke\n")
			}
			return exitCode(exitUsage)
		},
	}
}

// keysFileFlag is --keys FILE, the file every keys action works on.
func keysFileFlag() cli.Flag {
	return &cli.StringFlag{Name: "keys", Usage: "the keys `FILE` (YAML, or JSON when it ends in .json); add creates it if missing", TakesFile: true}
}

func keysAddCommand() *cli.Command {
	return &cli.Command{
		Name:      "add",
		Usage:     "mint a key, print its secret once and store its digest",
		UsageText: "vine keys add --keys FILE --label L --forest F (--allow P | --all) [--deny P] [--caps read,query] [--mask CAPS] [--expires 90d]",
		Flags: []cli.Flag{
			keysFileFlag(),
			&cli.StringFlag{Name: "label", Usage: "`LABEL`: what the key is for, to recognise it when revoking"},
			&cli.StringFlag{Name: "principal", Usage: "`NAME` the key authenticates (default: the label)"},
			&cli.StringSliceFlag{Name: "forest", Usage: "a forest `ID` the key is granted (repeatable, or a comma list)", Config: cli.StringConfig{TrimSpace: true}},
			&cli.StringSliceFlag{Name: "allow", Usage: "a branch `PREFIX` the key may read, such as sales/ (repeatable, or a comma list)"},
			&cli.BoolFlag{Name: "all", Usage: "grant the whole forest (instead of --allow)"},
			&cli.StringSliceFlag{Name: "deny", Usage: "a branch `PREFIX` hidden even inside an allowed one (repeatable, or a comma list)"},
			&cli.StringFlag{Name: "caps", Value: "read", Usage: "`CAPS` granted: read, write, query, tend, ingest, admin, answer"},
			&cli.StringFlag{Name: "mask", Usage: "a capability mask `CAPS` over every grant (default: none)"},
			&cli.StringFlag{Name: "expires", Value: "90d", Usage: "`LIFETIME`, such as 30d or 720h; at most 365d"},
			alwaysJSON(),
		},
		Action: func(_ context.Context, c *cli.Command) error { return exitWith(keysAdd(c, envOf(c))) },
	}
}

func keysListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list the keys with their status, never a secret",
		UsageText: "vine keys list --keys FILE",
		Flags:     []cli.Flag{keysFileFlag(), alwaysJSON()},
		Action:    func(_ context.Context, c *cli.Command) error { return exitWith(keysList(c, envOf(c))) },
	}
}

func keysRevokeCommand() *cli.Command {
	return &cli.Command{
		Name:      "revoke",
		Usage:     "revoke a key by its sha256 or its label",
		UsageText: "vine keys revoke --keys FILE --key SHA256|LABEL",
		Flags: []cli.Flag{
			keysFileFlag(),
			&cli.StringFlag{Name: "key", Usage: "the key's `SHA256` (the revocation handle) or its label"},
			alwaysJSON(),
		},
		Action: func(_ context.Context, c *cli.Command) error { return exitWith(keysRevoke(c, envOf(c))) },
	}
}

type addConfig struct {
	file, label, principal, caps, mask, expires string
	forests, allow, deny                        []string
	masked, all                                 bool
}

func parseKeysAdd(cmd *cli.Command, stderr io.Writer) (addConfig, bool) {
	c := addConfig{file: cmd.String("keys"), label: cmd.String("label"), principal: cmd.String("principal"),
		caps: cmd.String("caps"), mask: cmd.String("mask"), masked: cmd.IsSet("mask"), expires: cmd.String("expires"),
		forests: cmd.StringSlice("forest"), all: cmd.Bool("all")}
	if cmd.IsSet("allow") {
		c.allow = cmd.StringSlice("allow")
	}
	if cmd.IsSet("deny") {
		c.deny = cmd.StringSlice("deny")
	}
	pos := cmd.Args().Slice()
	switch {
	case len(pos) > 0:
		fmt.Fprintf(stderr, "vine keys add: unexpected argument %q\n", pos[0])
	case c.file == "" || c.label == "" || len(c.forests) == 0:
		fmt.Fprint(stderr, "vine keys add: --keys FILE, --label L and --forest F are required\n")
	case !c.all && c.allow == nil:
		fmt.Fprint(stderr, "vine keys add: give --allow PREFIX (repeatable) or --all for the whole forest\n")
	case c.all && c.allow != nil:
		fmt.Fprint(stderr, "vine keys add: give --allow PREFIX or --all, not both\n")
	default:
		return c, true
	}
	return c, false
}

// addedKey is what keys add prints: the secret, this once, and what the
// file will show of it.
type addedKey struct {
	Secret    string `json:"secret"`
	Label     string `json:"label"`
	Prefix    string `json:"prefix"`
	SHA256    string `json:"sha256"`
	ExpiresAt string `json:"expires_at"`
}

func keysAdd(cmd *cli.Command, e env) int {
	c, ok := parseKeysAdd(cmd, e.stderr)
	if !ok {
		return exitUsage
	}
	secret, k, err := newKeyFrom(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine keys add: %v\n", err)
		if r := (*vine.Error)(nil); errors.As(err, &r) && r.Hint != "" {
			fmt.Fprintf(e.stderr, "vine keys add: hint: %s\n", r.Hint)
		}
		return exitUsage
	}
	f, err := keys.ReadFile(c.file)
	if err == nil {
		err = f.Add(k)
	}
	if err == nil {
		err = keys.WriteFile(c.file, f)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vine keys add: %v\n", err)
		return exitFailure
	}
	fmt.Fprintln(e.stderr, "vine keys add: store the secret now; it is shown once and the file keeps only its digest")
	return printJSON(e.stdout, addedKey{Secret: secret, Label: k.Label, Prefix: k.Prefix, SHA256: k.SHA256, ExpiresAt: k.ExpiresAt})
}

func newKeyFrom(c addConfig) (string, keys.Key, error) {
	granted, err := keys.ParseCaps(c.caps)
	if err != nil {
		return "", keys.Key{}, fmt.Errorf("--caps: %w", err)
	}
	var mask []vine.Capability
	if c.masked {
		if mask, err = keys.ParseCaps(c.mask); err != nil {
			return "", keys.Key{}, fmt.Errorf("--mask: %w", err)
		}
	}
	life, err := parseLifetime(c.expires)
	if err != nil {
		return "", keys.Key{}, err
	}
	allow, err := flagPrefixes("--allow", c.allow)
	if err != nil {
		return "", keys.Key{}, err
	}
	if c.all {
		allow = []string{""} // the whole forest, as spec 08 §7.1 stores it
	}
	deny, err := flagPrefixes("--deny", c.deny)
	if err != nil {
		return "", keys.Key{}, err
	}
	grants := map[string]vine.Policy{}
	for _, f := range c.forests {
		grants[f] = vine.Policy{Allow: allow, Deny: deny, Caps: granted}
	}
	return keys.NewKey(c.label, grants, keys.NewKeyOptions{Principal: c.principal, Mask: mask, Expires: life})
}

// flagPrefixes checks the values of --allow or --deny as typed and
// returns them trimmed. Beyond what keys.CheckPrefix refuses, a blank
// value (an empty shell variable, a stray comma) is refused, since the
// file would read it as the whole forest, and so is a leading "/", which
// "$DIR/" with an empty DIR makes of the whole forest too: the whole
// forest is only ever --all.
func flagPrefixes(flag string, raw []string) ([]string, error) {
	out := make([]string, 0, len(raw))
	for _, p := range raw {
		t := strings.TrimSpace(p)
		var why error
		switch {
		case t == "" && flag == "--deny":
			why = errors.New("is empty (an unset shell variable?) and would hide nothing")
		case t == "":
			why = errors.New("is empty (an unset shell variable?) and would grant the whole forest")
		case strings.HasPrefix(t, "/"):
			why = errors.New(`starts with "/": prefixes are ids from the forest root`)
		default:
			why = keys.CheckPrefix(p)
		}
		if why != nil {
			return nil, &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("%s %q %v", flag, p, why),
				Hint: "give a branch prefix such as sales/ or ops/runbooks/; grant the whole forest with --all"}
		}
		out = append(out, t)
	}
	return out, nil
}

// parseLifetime reads "90d" (days) or a Go duration ("720h"); 0 is the
// default.
func parseLifetime(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("--expires %q: expected days such as 90d, or a duration such as 720h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("--expires %q: expected days such as 90d, or a duration such as 720h", s)
	}
	return d, nil
}

// listedKey is one line of keys list: metadata and status.
type listedKey struct {
	Label     string `json:"label"`
	Principal string `json:"principal,omitempty"`
	Prefix    string `json:"prefix"`
	SHA256    string `json:"sha256"`
	Status    string `json:"status"`
	Created   string `json:"created,omitempty"`
	ExpiresAt string `json:"expires_at"`
	RevokedAt string `json:"revoked_at,omitempty"`
	Forests   int    `json:"forests"`
}

// keysFile is --keys FILE, required, of a command that takes no
// positional argument.
func keysFile(cmd *cli.Command, stderr io.Writer) (string, bool) {
	file := cmd.String("keys")
	switch {
	case cmd.Args().Present():
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", cmd.FullName(), cmd.Args().First())
		return "", false
	case file == "":
		fmt.Fprintf(stderr, "%s: --keys FILE is required\n", cmd.FullName())
		return "", false
	}
	return file, true
}

func keysList(cmd *cli.Command, e env) int {
	file, ok := keysFile(cmd, e.stderr)
	if !ok {
		return exitUsage
	}
	f, err := keys.ReadFile(file)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine keys list: %v\n", err)
		return exitFailure
	}
	now := time.Now()
	out := []listedKey{}
	for _, k := range f.Keys {
		out = append(out, listedKey{Label: k.Label, Principal: k.Principal, Prefix: k.Prefix, SHA256: k.SHA256,
			Status: k.Status(now), Created: k.Created, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, Forests: len(k.Grants)})
	}
	return printJSON(e.stdout, out)
}

func keysRevoke(cmd *cli.Command, e env) int {
	handle := cmd.String("key")
	file, ok := keysFile(cmd, e.stderr)
	if !ok {
		return exitUsage
	}
	if handle == "" {
		fmt.Fprint(e.stderr, "vine keys revoke: --key SHA256|LABEL is required\n")
		return exitUsage
	}
	f, err := keys.ReadFile(file)
	var k keys.Key
	if err == nil {
		k, err = f.Revoke(handle, time.Now())
	}
	if err == nil {
		err = keys.WriteFile(file, f)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "vine keys revoke: %v\n", err)
		return exitFailure
	}
	return printJSON(e.stdout, listedKey{Label: k.Label, Principal: k.Principal, Prefix: k.Prefix, SHA256: k.SHA256,
		Status: k.Status(time.Now()), Created: k.Created, ExpiresAt: k.ExpiresAt, RevokedAt: k.RevokedAt, Forests: len(k.Grants)})
}
