// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/gardener"
)

func init() {
	registerCommand(extCommand)
}

// The extension settings from the environment (spec 11 §6-7).
const (
	extHomeEnv     = "MONKEYLLM_EXT_HOME"
	extTimeoutEnv  = "MONKEYLLM_EXT_WORKER_TIMEOUT"
	extIndexEnv    = "MONKEYLLM_EXT_INDEX"
	extIndexKeyEnv = "MONKEYLLM_EXT_INDEX_KEY"
	extForgesEnv   = "MONKEYLLM_EXT_FORGES"
)

// extHTTPClient is the client for the index and the forges' keys; nil
// is http.DefaultClient. Only tests set it, to trust a TLS test server.
var extHTTPClient *http.Client

// extCommand is "vine ext": install extensions into this host's install
// home and enable them per forest (spec 11). Installing is the host's
// act; enabling is the forest's, committed in _meta/extensions.yaml.
func extCommand() *cli.Command {
	return &cli.Command{
		Name:      "ext",
		Usage:     "install extensions on this host and enable them per forest (spec 11)",
		UsageText: "vine ext install|update|list|outdated|show|kit|config|enable|disable|remove|quarantine ...",
		Description: `Extensions are separate executables speaking vine-ext/1; the host runs them
isolated and kills what hangs. The install home is --home DIR, else
$MONKEYLLM_EXT_HOME, else ~/.monkeyllm/extensions. Signed tags verify
against keys published on github.com, gitlab.com, codeberg.org and the
hosts $MONKEYLLM_EXT_FORGES names (host=github|gitlab|gitea, comma
separated). ` + install.KitNote,
		Commands: []*cli.Command{extInstallCommand(), extUpdateCommand(), extListCommand(), extOutdatedCommand(), extShowCommand(), extKitCommand(),
			extConfigCommand(), extEnableCommand(true), extEnableCommand(false), extRemoveCommand(), extQuarantineCommand()},
		Action: func(_ context.Context, c *cli.Command) error {
			fmt.Fprint(envOf(c).stderr, "vine ext: give install, update, list, outdated, show, kit, config, enable, disable, remove or quarantine\n")
			return exitCode(exitUsage)
		},
	}
}

func extHomeFlag() cli.Flag {
	return &cli.StringFlag{Name: "home", Usage: "the install home `DIR` (default: $" + extHomeEnv + ", then ~/.monkeyllm/extensions)", TakesFile: true}
}

// extHomeDir is where installed extensions live for this invocation.
func extHomeDir(c *cli.Command) string {
	if h := firstOf(c.String("home"), os.Getenv(extHomeEnv)); h != "" {
		return h
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".monkeyllm", "extensions")
	}
	return ".monkeyllm-extensions"
}

// extWorkerOptions are the worker settings from the environment.
func extWorkerOptions() (worker.Options, error) {
	opt := worker.Options{HostVersion: wire.Version()}
	if s := os.Getenv(extTimeoutEnv); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			var secs int
			if _, serr := fmt.Sscanf(s, "%d", &secs); serr != nil || fmt.Sprint(secs) != s {
				return opt, fmt.Errorf("%s=%q is not a duration (300s) or a number of seconds", extTimeoutEnv, s)
			}
			d = time.Duration(secs) * time.Second
		}
		if d <= 0 {
			return opt, fmt.Errorf("%s=%q must be positive", extTimeoutEnv, s)
		}
		opt.Timeout = d
	}
	return opt, nil
}

// extTrust is what signatures and the index are weighed with: the
// published keys of github.com, gitlab.com, codeberg.org and the forges
// $MONKEYLLM_EXT_FORGES adds (host=github|gitlab|gitea, comma
// separated), and the index at $MONKEYLLM_EXT_INDEX (a file or an https
// URL) whose detached signature must verify against
// $MONKEYLLM_EXT_INDEX_KEY (an Ed25519 public key, base64).
func extTrust() (install.Trust, error) {
	t := install.Trust{Index: os.Getenv(extIndexEnv), Client: extHTTPClient}
	if raw := os.Getenv(extIndexKeyEnv); raw != "" {
		key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
		if err != nil || len(key) != 32 {
			return t, fmt.Errorf("%s is not an Ed25519 public key in base64 (32 bytes)", extIndexKeyEnv)
		}
		t.IndexKey = key
	}
	forges, err := parseForges(os.Getenv(extForgesEnv))
	if err != nil {
		return t, err
	}
	t.Forges = forges
	return t, nil
}

// parseForges reads $MONKEYLLM_EXT_FORGES: host=kind pairs, comma
// separated, each kind github, gitlab or gitea.
func parseForges(raw string) (map[string]string, error) {
	out := map[string]string{}
	for _, pair := range strings.Split(raw, ",") {
		if pair = strings.TrimSpace(pair); pair == "" {
			continue
		}
		host, kind, _ := strings.Cut(pair, "=")
		host, kind = strings.ToLower(strings.TrimSpace(host)), strings.ToLower(strings.TrimSpace(kind))
		switch kind {
		case install.ForgeGitHub, install.ForgeGitLab, install.ForgeGitea:
		default:
			return nil, fmt.Errorf("%s: %q is not host=github|gitlab|gitea", extForgesEnv, pair)
		}
		if host == "" || strings.ContainsAny(host, "/@ ") {
			return nil, fmt.Errorf("%s: %q names no host", extForgesEnv, pair)
		}
		out[host] = kind
	}
	return out, nil
}

func openExtHome(c *cli.Command, e env) (*install.Home, bool) {
	h, err := install.Open(extHomeDir(c))
	if err != nil {
		fmt.Fprintf(e.stderr, "vine ext %s: %v\n", c.Name, err)
		return nil, false
	}
	return h, true
}

func extInstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "resolve, check and install an extension (an index id, a directory, .zip, https URL of a .zip, or git URL@ref)",
		UsageText: "vine ext install SOURCE [--acknowledge] [--enable-on DIR] [--home DIR] [--json]\n" +
			"   SOURCE: ID (from $" + extIndexEnv + ", a file or https URL) | ./dir | ./x.zip | https://host/x.zip | github.com/org/repo@v1.2.0 | ./repo#branch",
		Flags: []cli.Flag{extHomeFlag(),
			&cli.BoolFlag{Name: "acknowledge", Usage: "install although it is unverified (read its licence and code first)"},
			&cli.StringFlag{Name: "enable-on", Usage: "then enable it on the forest `DIR` (a commit in _meta/extensions.yaml)", TakesFile: true},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdExtInstall(ctx, c, envOf(c))) },
	}
}

func extKitCommand() *cli.Command {
	return &cli.Command{
		Name:      "kit",
		Usage:     "run the conformance kit on a source and show what an install would do; installs nothing",
		UsageText: "vine ext kit SOURCE [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), alwaysJSON()},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			src, ok := oneArg(c, e, "SOURCE")
			if !ok {
				return exitWith(exitUsage)
			}
			h, ok := openExtHome(c, e)
			if !ok {
				return exitWith(exitUsage)
			}
			opt, err := installOptions(c, e)
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext kit", err))
			}
			p, err := h.Plan(ctx, src, opt)
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext kit", err))
			}
			printJSON(e.stdout, map[string]any{"plan": p, "note": install.KitNote})
			if !p.Kit.OK {
				return exitWith(exitFailure)
			}
			return nil
		},
	}
}

func oneArg(c *cli.Command, e env, what string) (string, bool) {
	if c.Args().Len() != 1 {
		fmt.Fprintf(e.stderr, "vine ext %s: name exactly one %s\n", c.Name, what)
		return "", false
	}
	return c.Args().First(), true
}

func installOptions(c *cli.Command, e env) (install.Options, error) {
	wopt, err := extWorkerOptions()
	if err != nil {
		return install.Options{}, err
	}
	trust, err := extTrust()
	if err != nil {
		return install.Options{}, err
	}
	return install.Options{Acknowledge: c.Bool("acknowledge"), Trust: trust,
		Kit: install.KitOptions{HostVersion: wire.Version(), Worker: wopt}}, nil
}

func cmdExtInstall(ctx context.Context, c *cli.Command, e env) int {
	src, ok := oneArg(c, e, "SOURCE")
	if !ok {
		return exitUsage
	}
	h, ok := openExtHome(c, e)
	if !ok {
		return exitUsage
	}
	opt, err := installOptions(c, e)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine ext install: %v\n", err)
		return exitUsage
	}
	bar := newProgressBar(e.stderr)
	stages := []string{"resolve", "kit", "stage", "record"}
	opt.Progress = func(s string) {
		bar.update(vine.Progress{Op: "install: " + s, Done: slices.Index(stages, s), Total: len(stages)})
	}
	res, err := h.Install(ctx, src, opt)
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "ext install", err)
	}
	out := installAnswer(res)
	if dir := c.String("enable-on"); dir != "" {
		if sha, err := enableOn(ctx, e, dir, res.ID, true); err != nil {
			out["enable_error"] = vine.AsError("ext enable", err)
		} else {
			out["enabled_on"] = map[string]string{"forest": dir, "commit": sha}
		}
	}
	if c.Bool("json") {
		return printJSON(e.stdout, out)
	}
	printInstalled(e.stdout, "installed", res)
	if v, ok := out["enable_error"]; ok {
		fmt.Fprintf(e.stdout, "  not enabled: %v\n", v)
	}
	return exitOK
}

// installAnswer is an install's or update's result as --json prints it.
func installAnswer(res *install.Result) map[string]any {
	out := map[string]any{"installed": true, "id": res.ID, "version": res.Version, "tier": res.Tier,
		"tracking": res.Tracking, "revision": res.Revision, "license": res.License, "reason": res.Reason,
		"config_recovered": res.ConfigRecovered, "activated": true, "restart_required": false, "kit": res.Kit}
	if res.Identity != nil {
		out["identity"] = res.Identity
	}
	if res.Updated {
		out["updated"], out["changed"], out["previous_revision"] = true, res.Changed, res.PreviousRevision
	}
	return out
}

func printInstalled(w io.Writer, verb string, res *install.Result) {
	fmt.Fprintf(w, "%s %s %s (%s", verb, res.ID, res.Version, tierWord(res.Record))
	if res.Tracking != "" {
		fmt.Fprintf(w, ", tracking %s", res.Tracking)
	}
	fmt.Fprintf(w, ")\n  %s\n", res.Reason)
	if res.Revision != "" {
		fmt.Fprintf(w, "  revision %s\n", res.Revision)
	}
	if res.Updated && res.PreviousRevision != "" && res.PreviousRevision != res.Revision {
		fmt.Fprintf(w, "  was %s\n", res.PreviousRevision)
	}
	fmt.Fprintf(w, "  kit: %d checks passed\n", len(res.Kit.Checks))
}

// tierWord is the tier with the identity that verified it.
func tierWord(r install.Record) string {
	if r.Identity != nil {
		return r.Tier + " by " + r.Identity.String()
	}
	return r.Tier
}

func extUpdateCommand() *cli.Command {
	return &cli.Command{
		Name:  "update",
		Usage: "install an extension again from its recorded source: a moved tag or a branch's new head installs its new sha",
		UsageText: "vine ext update ID [--acknowledge] [--home DIR] [--json]\n" +
			"   a failed update leaves the installed version running, unmodified",
		Flags: []cli.Flag{extHomeFlag(),
			&cli.BoolFlag{Name: "acknowledge", Usage: "update although the new code is unverified or signed by someone else"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			id, ok := oneArg(c, e, "ID")
			if !ok {
				return exitWith(exitUsage)
			}
			h, ok := openExtHome(c, e)
			if !ok {
				return exitWith(exitUsage)
			}
			opt, err := installOptions(c, e)
			if err != nil {
				fmt.Fprintf(e.stderr, "vine ext update: %v\n", err)
				return exitWith(exitUsage)
			}
			res, err := h.Update(ctx, id, opt)
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext update", err))
			}
			if c.Bool("json") {
				return exitWith(printJSON(e.stdout, installAnswer(res)))
			}
			printInstalled(e.stdout, map[bool]string{true: "updated", false: "unchanged"}[res.Changed], res)
			return nil
		},
	}
}

func extOutdatedCommand() *cli.Command {
	return &cli.Command{
		Name:      "outdated",
		Usage:     "ask each git-installed extension's source what its ref names now (the only command that reaches the network)",
		UsageText: "vine ext outdated [--home DIR] [--json]",
		Flags:     []cli.Flag{extHomeFlag(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			h, ok := openExtHome(c, e)
			if !ok {
				return exitWith(exitUsage)
			}
			trust, err := extTrust()
			if err != nil {
				fmt.Fprintf(e.stderr, "vine ext outdated: %v\n", err)
				return exitWith(exitUsage)
			}
			stale, err := h.Outdated(ctx, trust)
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext outdated", err))
			}
			if c.Bool("json") {
				return exitWith(printJSON(e.stdout, map[string]any{"outdated": stale}))
			}
			printOutdated(e.stdout, stale)
			return nil
		},
	}
}

func printOutdated(w io.Writer, stale []install.Staleness) {
	if len(stale) == 0 {
		fmt.Fprintln(w, "no extension installed from git")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tREF\tINSTALLED\tLATEST\tSTATE")
	for _, s := range stale {
		ref := firstOf(s.Ref, "(default branch)")
		state := "up to date"
		switch {
		case s.Error != "":
			state = "unknown: " + s.Error
		case s.Behind:
			state = "behind: vine ext update " + s.ID
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", s.ID, ref, short(s.Revision), short(s.Latest), state)
	}
	tw.Flush()
}

func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func extListCommand() *cli.Command {
	return &cli.Command{
		Name:      "list",
		Usage:     "list installed extensions with tier, revision and kit (no network)",
		UsageText: "vine ext list [--home DIR] [--json]",
		Flags:     []cli.Flag{extHomeFlag(), &cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action: func(_ context.Context, c *cli.Command) error {
			e := envOf(c)
			h, ok := openExtHome(c, e)
			if !ok {
				return exitWith(exitUsage)
			}
			list, err := h.List()
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext list", err))
			}
			if c.Bool("json") {
				if list == nil {
					list = []install.Record{}
				}
				return exitWith(printJSON(e.stdout, map[string]any{"extensions": list}))
			}
			printExtList(e.stdout, list)
			return nil
		},
	}
}

func printExtList(w io.Writer, list []install.Record) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no extensions installed")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tVERSION\tTIER\tKIT\tSOURCE\tREVISION")
	for _, r := range list {
		rev := r.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if r.Tracking != "" {
			rev = "tracking " + r.Tracking + " @" + rev
		}
		kit := "-"
		if r.Kit != nil {
			kit = fmt.Sprintf("ok (%d checks)", len(r.Kit.Checks))
			if !r.Kit.OK {
				kit = "failed: " + strings.Join(r.Kit.Failed, ",")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, r.Version, tierWord(r), kit, r.Source, rev)
	}
	tw.Flush()
}

func extShowCommand() *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "show one installed extension: record, manifest and settings (secrets never shown)",
		UsageText: "vine ext show ID [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), alwaysJSON()},
		Action: withHomeAndID(func(_ context.Context, e env, h *install.Home, id string) int {
			rec, err := h.Lookup(id)
			if err != nil {
				return fail(e.stdout, e.stderr, "ext show", err)
			}
			m, err := h.Manifest(rec)
			if err != nil {
				return fail(e.stdout, e.stderr, "ext show", err)
			}
			settings, err := h.Settings(id)
			if err != nil {
				return fail(e.stdout, e.stderr, "ext show", err)
			}
			return printJSON(e.stdout, map[string]any{"record": rec, "manifest": m, "settings": settings, "unserved": unservedPanel(h, rec, m)})
		}),
	}
}

// unservedPanel names a declared panel this engine-only host validates
// and does not render (F.190): inert and named, never an error.
func unservedPanel(h *install.Home, rec install.Record, m *ext.Manifest) []map[string]string {
	out := []map[string]string{}
	if m.Contributes.Panel == "" {
		return out
	}
	note := "declared (no host surface): the Station's Studio renders it"
	if _, err := h.Panel(rec); err != nil {
		note = "unservable: " + err.Error()
	}
	return append(out, map[string]string{"surface": "panel", "note": note})
}

// withHomeAndID is the action of a subcommand that names one installed
// extension: the ID argument, the install home, then fn.
func withHomeAndID(fn func(ctx context.Context, e env, h *install.Home, id string) int) cli.ActionFunc {
	return func(ctx context.Context, c *cli.Command) error {
		e := envOf(c)
		id, ok := oneArg(c, e, "ID")
		if !ok {
			return exitWith(exitUsage)
		}
		h, ok := openExtHome(c, e)
		if !ok {
			return exitWith(exitUsage)
		}
		return exitWith(fn(ctx, e, h, id))
	}
}

func extConfigCommand() *cli.Command {
	return &cli.Command{
		Name:      "config",
		Usage:     "show or set an extension's settings: KEY=VALUE, VALUE read as JSON when it parses, else as text",
		UsageText: "vine ext config ID [KEY=VALUE ...] [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), alwaysJSON()},
		Action: func(_ context.Context, c *cli.Command) error {
			e := envOf(c)
			args := c.Args().Slice()
			h, ok := openExtHome(c, e)
			if len(args) == 0 || !ok {
				fmt.Fprintln(e.stderr, "vine ext config: name the extension ID")
				return exitWith(exitUsage)
			}
			values := map[string]any{}
			for _, kv := range args[1:] {
				k, v, found := strings.Cut(kv, "=")
				if !found || k == "" {
					fmt.Fprintf(e.stderr, "vine ext config: %q is not KEY=VALUE\n", kv)
					return exitWith(exitUsage)
				}
				var parsed any
				if json.Unmarshal([]byte(v), &parsed) != nil {
					parsed = v
				}
				values[k] = parsed
			}
			if len(values) > 0 {
				if err := h.SetConfig(args[0], values); err != nil {
					return exitWith(fail(e.stdout, e.stderr, "ext config", err))
				}
			}
			s, err := h.Settings(args[0])
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext config", err))
			}
			return exitWith(printJSON(e.stdout, map[string]any{"values": s}))
		},
	}
}

func extEnableCommand(enable bool) *cli.Command {
	name, usage := "enable", "enable an installed extension on a forest (one commit in _meta/extensions.yaml)"
	if !enable {
		name, usage = "disable", "disable an extension on a forest; the forest still expects it"
	}
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		UsageText: "vine ext " + name + " ID --forest DIR [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), forestFlag(), alwaysJSON()},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			id, ok := oneArg(c, e, "ID")
			dir := forestDir(c)
			if !ok || dir == "" {
				if dir == "" {
					fmt.Fprintf(e.stderr, "vine ext %s: --forest DIR is required\n", name)
				}
				return exitWith(exitUsage)
			}
			if enable {
				h, ok := openExtHome(c, e)
				if !ok {
					return exitWith(exitUsage)
				}
				if _, found, err := h.Get(id); err != nil || !found {
					err = envelope.New(envelope.NotFound, fmt.Sprintf("extension %q is not installed on this host", id), "install it first: vine ext install SOURCE")
					return exitWith(fail(e.stdout, e.stderr, "ext enable", err))
				}
			}
			sha, err := enableOn(ctx, e, dir, id, enable)
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext "+name, err))
			}
			return exitWith(printJSON(e.stdout, map[string]any{"id": id, "enabled": enable, "commit": sha, "changed": sha != ""}))
		},
	}
}

// enableOn records id's enablement in the forest at dir.
func enableOn(ctx context.Context, e env, dir, id string, enable bool) (string, error) {
	if err := checkForest(e, "ext enable", dir); err != nil {
		return "", err
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Logger: cliLogger(e.stderr), SkipAutoIndex: true})
	if err != nil {
		return "", err
	}
	defer v.Close()
	return v.EnableExtension(ctx, id, enable)
}

func extRemoveCommand() *cli.Command {
	return &cli.Command{
		Name:      "remove",
		Usage:     "uninstall an extension; its settings wait in quarantine for 90 days, forest files are untouched",
		UsageText: "vine ext remove ID [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), alwaysJSON()},
		Action: withHomeAndID(func(_ context.Context, e env, h *install.Home, id string) int {
			if err := h.Remove(id, time.Now()); err != nil {
				return fail(e.stdout, e.stderr, "ext remove", err)
			}
			// No manifest declares types or relations of its own (no
			// dialect field exists), so an uninstall loses none.
			return printJSON(e.stdout, map[string]any{"removed": id, "losing": []string{}})
		}),
	}
}

func extQuarantineCommand() *cli.Command {
	return &cli.Command{
		Name:      "quarantine",
		Usage:     "list the settings of removed extensions that a reinstall would recover",
		UsageText: "vine ext quarantine [--home DIR]",
		Flags:     []cli.Flag{extHomeFlag(), alwaysJSON()},
		Action: func(_ context.Context, c *cli.Command) error {
			e := envOf(c)
			h, ok := openExtHome(c, e)
			if !ok {
				return exitWith(exitUsage)
			}
			q, err := h.Quarantined(time.Now())
			if err != nil {
				return exitWith(fail(e.stdout, e.stderr, "ext quarantine", err))
			}
			return exitWith(printJSON(e.stdout, map[string]any{"quarantined": q}))
		},
	}
}

// installedExtensionIDs lists what the install home holds, for
// validate's expected-but-absent check.
func installedExtensionIDs(c *cli.Command) func() []string {
	return func() []string {
		dir := extHomeDir(c)
		if _, err := os.Stat(filepath.Join(dir, "installed.json")); err != nil {
			return nil
		}
		h, err := install.Open(dir)
		if err != nil {
			return nil
		}
		ids, _ := h.IDs()
		return ids
	}
}

// forestExtensions starts the workers of the extensions the forest v
// enables and this host has installed, in install order, and returns
// their converters and curation hooks for the Gardener with a function
// that stops them.
// An extension that cannot be read is named on stderr and skipped: one
// broken extension never stops an ingest.
func forestExtensions(ctx context.Context, c *cli.Command, e env, v *vine.Vine) ([]gardener.Converter, []gardener.NamedHook, func()) {
	none := func() {}
	en, err := v.Extensions()
	if err != nil || len(en.Enabled()) == 0 {
		return nil, nil, none
	}
	dir := extHomeDir(c)
	if _, err := os.Stat(filepath.Join(dir, "installed.json")); err != nil {
		return nil, nil, none
	}
	h, err := install.Open(dir)
	if err != nil {
		return nil, nil, none
	}
	wopt, err := extWorkerOptions()
	if err != nil {
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, err)
	}
	wopt.Logger = cliLogger(e.stderr)
	pool := worker.NewPool(wopt)
	workers, failed := h.Load(pool, en.Enabled())
	for _, f := range failed {
		fmt.Fprintf(e.stderr, "vine %s: %v\n", c.Name, f.Err)
	}
	var convs []gardener.Converter
	var hooks []gardener.NamedHook
	for _, w := range workers {
		for _, conv := range w.Converters() {
			convs = append(convs, gardener.ExtensionConverter(w.ID(), conv))
		}
		hooks = append(hooks, w.CurateHooks()...)
	}
	return convs, hooks, pool.Close
}
