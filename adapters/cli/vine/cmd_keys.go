package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

func init() {
	register("keys", command{"keys     add --keys FILE --label L --forest F (--allow P | --all) [--deny P] [--caps read,query] [--mask CAPS] [--expires 90d] | list --keys FILE | revoke --keys FILE --key SHA256|LABEL",
		func(ctx context.Context, a []string, e env) int { return cmdKeys(a, e) }})
}

// cmdKeys manages a keys file (spec 08 §6): add prints the new secret
// once and stores only its digest; list shows metadata and status, never
// a secret; revoke stamps revoked_at. A server reading the file sees each
// change within a second or two, without a restart.
func cmdKeys(args []string, e env) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, "vine keys: give add, list or revoke\n")
		return exitUsage
	}
	switch args[0] {
	case "add":
		return keysAdd(args[1:], e)
	case "list":
		return keysList(args[1:], e)
	case "revoke":
		return keysRevoke(args[1:], e)
	}
	fmt.Fprintf(e.stderr, "vine keys: unknown action %q: give add, list or revoke\n", args[0])
	return exitUsage
}

// listFlag collects a repeatable flag whose values may also be comma
// lists, each value trimmed.
func listFlag(dst *[]string) func(string) error {
	return func(s string) error {
		for _, v := range strings.Split(s, ",") {
			*dst = append(*dst, strings.TrimSpace(v))
		}
		return nil
	}
}

// rawListFlag is listFlag keeping each value as typed, so a refusal can
// show the blank an empty shell variable left.
func rawListFlag(dst *[]string) func(string) error {
	return func(s string) error {
		*dst = append(*dst, strings.Split(s, ",")...)
		return nil
	}
}

type addConfig struct {
	file, label, principal, caps, mask, expires string
	forests, allow, deny                        []string
	masked, all                                 bool
}

func parseKeysAdd(args []string, stderr io.Writer) (addConfig, bool) {
	var c addConfig
	fs := flag.NewFlagSet("keys add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.file, "keys", "", "the keys file (YAML, or JSON when it ends in .json); created if missing")
	fs.StringVar(&c.label, "label", "", "what the key is for, to recognise it when revoking")
	fs.StringVar(&c.principal, "principal", "", "who the key authenticates (default: the label)")
	fs.Func("forest", "a forest the key is granted (repeatable)", listFlag(&c.forests))
	fs.Func("allow", "a branch prefix the key may read, such as sales/ (repeatable, or a comma list)", rawListFlag(&c.allow))
	fs.BoolVar(&c.all, "all", false, "grant the whole forest (instead of --allow)")
	fs.Func("deny", "a branch prefix hidden even inside an allowed one (repeatable, or a comma list)", rawListFlag(&c.deny))
	fs.StringVar(&c.caps, "caps", "read", "capabilities granted: read, write, query, tend, ingest, admin, answer")
	fs.Func("mask", "a capability mask over every grant (default: none)", func(s string) error { c.mask, c.masked = s, true; return nil })
	fs.StringVar(&c.expires, "expires", "90d", "lifetime, such as 30d or 720h; at most 365d")
	pos, err := parseAnywhere(fs, args)
	switch {
	case err != nil:
		return c, false
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

func keysAdd(args []string, e env) int {
	c, ok := parseKeysAdd(args, e.stderr)
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

func keysFileFlag(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (string, bool) {
	var file string
	fs := flag.NewFlagSet("keys "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&file, "keys", "", "the keys file")
	if extra != nil {
		extra(fs)
	}
	pos, err := parseAnywhere(fs, args)
	switch {
	case err != nil:
		return "", false
	case len(pos) > 0:
		fmt.Fprintf(stderr, "vine keys %s: unexpected argument %q\n", name, pos[0])
		return "", false
	case file == "":
		fmt.Fprintf(stderr, "vine keys %s: --keys FILE is required\n", name)
		return "", false
	}
	return file, true
}

func keysList(args []string, e env) int {
	file, ok := keysFileFlag("list", args, e.stderr, nil)
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

func keysRevoke(args []string, e env) int {
	var handle string
	file, ok := keysFileFlag("revoke", args, e.stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&handle, "key", "", "the key's sha256 (the revocation handle) or its label")
	})
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
