// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine"
)

func init() {
	registerCommand(initCommand)
	registerCommand(validateCommand)
	registerCommand(reindexCommand)
	registerCommand(callCommand)
	registerCommand(primitivesCommand)
}

// needForest is forestDir, required: false after saying what is missing.
func needForest(c *cli.Command, e env) (string, bool) {
	dir := forestDir(c)
	if dir == "" {
		fmt.Fprintf(e.stderr, "%s: --forest DIR is required (or set %s)\n", c.FullName(), forestEnv)
		return "", false
	}
	return dir, true
}

// openForest is needForest and checkForest: the directory of a forest
// that exists, or the exit code of the refusal.
func openForest(c *cli.Command, e env, op string) (string, int) {
	dir, ok := needForest(c, e)
	if !ok {
		return "", exitUsage
	}
	if err := checkForest(e, op, dir); err != nil {
		return "", refuse(e.stdout, op, err)
	}
	return dir, exitOK
}

// noArgs refuses positional arguments on a command that takes none.
func noArgs(c *cli.Command, e env) bool {
	if c.Args().Present() {
		fmt.Fprintf(e.stderr, "%s: takes no arguments besides flags, got %q\n", c.FullName(), strings.Join(c.Args().Slice(), " "))
		return false
	}
	return true
}

// alwaysJSON is --json on a command whose result is JSON anyway: accepted
// so every command that prints a result takes it.
func alwaysJSON() cli.Flag {
	return &cli.BoolFlag{Name: "json", Usage: "print the result as JSON (the default for this command)"}
}

func initCommand() *cli.Command {
	return &cli.Command{
		Name:      "init",
		Usage:     "create a forest: a git repository with its master branch",
		UsageText: "vine init --forest DIR --title T [--summary S]",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "forest", Usage: "the new forest's `DIR` (absent or empty; default: $" + forestEnv + ")", TakesFile: true},
			&cli.StringFlag{Name: "title", Usage: "forest `TITLE`"},
			&cli.StringFlag{Name: "summary", Usage: "master branch `SUMMARY` (optional)"},
			alwaysJSON(),
		},
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdInit(ctx, c, envOf(c))) },
	}
}

func cmdInit(ctx context.Context, c *cli.Command, e env) int {
	dir, ok := needForest(c, e)
	if !ok || !noArgs(c, e) {
		return exitUsage
	}
	if root := forestRootAbove(dir); root != "" && root != dir {
		fmt.Fprintf(e.stderr, "vine init: %s lies inside the forest at %s; a forest cannot hold another\n", dir, root)
		return exitUsage
	}
	res, err := vine.Init(ctx, dir, c.String("title"), &vine.InitOptions{Summary: c.String("summary")})
	if err != nil {
		return fail(e.stdout, e.stderr, "init", err)
	}
	return printJSON(e.stdout, res)
}

func validateCommand() *cli.Command {
	return &cli.Command{
		Name:      "validate",
		Usage:     "lint every node; exits 1 when the forest has errors",
		UsageText: "vine validate --forest DIR [--json]",
		Flags:     []cli.Flag{forestFlag(), &cli.BoolFlag{Name: "json", Usage: "print the report as JSON"}},
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdValidate(ctx, c, envOf(c))) },
	}
}

func cmdValidate(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "validate")
	if dir == "" {
		return code
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Logger: cliLogger(e.stderr),
		InstalledExtensions: installedExtensionIDs(c)})
	if err != nil {
		return fail(e.stdout, e.stderr, "validate", err)
	}
	defer v.Close()
	rep, err := v.Validate(ctx)
	if err != nil {
		return fail(e.stdout, e.stderr, "validate", err)
	}
	if c.Bool("json") {
		printJSON(e.stdout, rep)
	} else {
		for _, f := range rep.Findings {
			fmt.Fprintf(e.stdout, "%-7s %s: %s\n", f.Level, f.NodeID, f.Message)
		}
		fmt.Fprintf(e.stdout, "%d nodes, %d errors, %d warnings\n", rep.Nodes, rep.Errors, rep.Warnings)
	}
	if rep.Errors > 0 {
		return exitFailure
	}
	return exitOK
}

func reindexCommand() *cli.Command {
	return &cli.Command{
		Name:      "reindex",
		Usage:     "rebuild the catalog from the files, with a progress bar",
		UsageText: "vine reindex --forest DIR [--json]",
		Flags:     []cli.Flag{forestFlag(), jsonFlag()},
		Action:    func(ctx context.Context, c *cli.Command) error { return exitWith(cmdReindex(ctx, c, envOf(c))) },
	}
}

func cmdReindex(ctx context.Context, c *cli.Command, e env) int {
	if !noArgs(c, e) {
		return exitUsage
	}
	dir, code := openForest(c, e, "reindex")
	if dir == "" {
		return code
	}
	bar := newProgressBar(e.stderr)
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Progress: bar.update, SkipAutoIndex: true, Logger: cliLogger(e.stderr)})
	if err != nil {
		return fail(e.stdout, e.stderr, "reindex", err)
	}
	defer v.Close()
	res, err := v.Reindex(ctx)
	bar.done()
	if err != nil {
		return fail(e.stdout, e.stderr, "reindex", err)
	}
	if c.Bool("json") {
		return printJSON(e.stdout, res)
	}
	fmt.Fprintf(e.stdout, "indexed %d nodes, %d branches, %d edges\n", res.Nodes, res.Branches, res.Edges)
	for _, s := range res.Skipped {
		fmt.Fprintf(e.stdout, "skipped %s: %s\n", s.Path, s.Reason)
	}
	return exitOK
}

func callCommand() *cli.Command {
	return &cli.Command{
		Name:      "call",
		Usage:     "call one primitive as the local owner and print its JSON result",
		UsageText: "vine call PRIMITIVE --forest DIR ['JSON-ARGS' | -]",
		Description: `The arguments are one JSON object, quoted, or "-" to read it from stdin.
The result is the primitive's JSON (exit 0), or its envelope {"error":{...}}
(exit 1). "vine primitives" lists the primitives.`,
		Flags:  append([]cli.Flag{forestFlag(), alwaysJSON()}, embedFlags()...),
		Action: func(ctx context.Context, c *cli.Command) error { return exitWith(cmdCall(ctx, c, envOf(c))) },
	}
}

func cmdCall(ctx context.Context, c *cli.Command, e env) int {
	args := c.Args().Slice()
	if len(args) == 0 {
		fmt.Fprint(e.stderr, "vine call: name the primitive first: vine call PRIMITIVE --forest DIR 'JSON-ARGS'\n")
		return exitUsage
	}
	name := args[0]
	dir, ok := needForest(c, e)
	if !ok {
		return exitUsage
	}
	raw, err := callArgs(args[1:], e.stdin)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine call: %v\n", err)
		return exitUsage
	}
	if err := checkForest(e, name, dir); err != nil {
		return refuse(e.stdout, name, err)
	}
	emb, err := embedderOf(c)
	if err != nil {
		fmt.Fprintf(e.stderr, "vine call: %v\n", err)
		return exitUsage
	}
	sig, known := vine.LookupSignature(name)
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: known && sig.ReadOnly, Logger: cliLogger(e.stderr),
		Embedder: emb})
	if err != nil {
		return fail(e.stdout, e.stderr, name, err)
	}
	defer v.Close()
	// The local owner: the full policy, through the same Scoped path every
	// transport takes (J.1).
	owner, err := v.Scoped(vine.FullPolicy())
	if err != nil {
		return fail(e.stdout, e.stderr, name, err)
	}
	res, err := owner.Call(ctx, name, raw)
	if err != nil {
		return refuse(e.stdout, name, err) // Call logged an E_INTERNAL's detail to stderr
	}
	return printJSON(e.stdout, res)
}

// callArgs takes the JSON arguments from the one positional argument, or
// from standard input when it is "-".
func callArgs(pos []string, stdin io.Reader) ([]byte, error) {
	switch len(pos) {
	case 0:
		return nil, nil
	case 1:
		if pos[0] == "-" {
			return io.ReadAll(stdin)
		}
		return []byte(pos[0]), nil
	}
	return nil, errors.New("pass the arguments as one JSON object (quote it)")
}

func primitivesCommand() *cli.Command {
	return &cli.Command{
		Name:      "primitives",
		Usage:     "list the primitives: access, token budget and what each does",
		UsageText: "vine primitives [--json]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the whole signature table (parameters and all) as JSON"}},
		Action: func(ctx context.Context, c *cli.Command) error {
			e := envOf(c)
			if !noArgs(c, e) {
				return exitCode(exitUsage)
			}
			if c.Bool("json") {
				return exitWith(printJSON(e.stdout, vine.Signatures()))
			}
			printPrimitives(e.stdout, vine.Signatures())
			return nil
		},
	}
}

// printPrimitives is the signature table for a person: one primitive a
// line, its doc cut to the first clause.
func printPrimitives(w io.Writer, sigs []vine.Signature) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tACCESS\tBUDGET\tPARAMS\tSUMMARY")
	for _, s := range sigs {
		access := "write"
		if s.ReadOnly {
			access = "read"
		} else if s.Destructive {
			access = "write!"
		}
		budget := "-"
		if s.Budget > 0 {
			budget = strconv.Itoa(s.Budget)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", s.Name, access, budget, len(s.Params), firstClause(s.Doc, 64))
	}
	tw.Flush()
	fmt.Fprintln(w, "\nwrite! changes or removes what exists. vine primitives --json has the parameters.")
}

// firstClause is doc up to its first ": " or ". " outside parentheses,
// at most max runes.
func firstClause(doc string, max int) string {
	depth := 0
	for i, r := range doc {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ':', '.':
			if depth == 0 && (i+1 == len(doc) || doc[i+1] == ' ') {
				doc = doc[:i]
			}
		}
		if len(doc) <= i {
			break
		}
	}
	doc = strings.TrimSpace(doc)
	if r := []rune(doc); len(r) > max {
		doc = string(r[:max-1]) + "…"
	}
	return doc
}

// fail prints the envelope of err and returns exit code 1. An E_INTERNAL
// envelope says "the detail is in the log", and a command's log is its
// stderr, so the detail is printed there.
func fail(stdout, stderr io.Writer, op string, err error) int {
	if vine.AsError(op, err).Code == vine.EInternal {
		fmt.Fprintf(stderr, "vine %s: internal error: %s\n", op, vine.ErrorDetail(err))
	}
	return refuse(stdout, op, err)
}

// refuse prints the envelope of err and returns exit code 1, for an error
// whose detail is already in the log (Vine.Call logs every E_INTERNAL).
func refuse(stdout io.Writer, op string, err error) int {
	fmt.Fprintln(stdout, string(vine.AsError(op, err).Body()))
	return exitFailure
}

// cliLogger is the engine's log for a command: errors only (the detail
// behind an E_INTERNAL, a primitive's panic with its stack), as text on
// stderr, so stdout stays the result alone.
func cliLogger(stderr io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelError}))
}

func printJSON(w io.Writer, v any) int {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		fmt.Fprintln(os.Stderr, "vine: encode result:", err)
		return exitFailure
	}
	return exitOK
}
