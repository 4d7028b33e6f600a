package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/monkeyllm/vine"
)

// flags parses --forest (required) plus whatever extra registers.
func flags(name string, args []string, stderr io.Writer, extra func(*flag.FlagSet)) (*flag.FlagSet, string, bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("forest", "", "forest directory")
	if extra != nil {
		extra(fs)
	}
	if err := fs.Parse(args); err != nil {
		return nil, "", false
	}
	if *dir == "" {
		fmt.Fprintf(stderr, "vine %s: --forest DIR is required\n", name)
		return nil, "", false
	}
	return fs, *dir, true
}

func cmdInit(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var title, summary string
	_, dir, ok := flags("init", args, stderr, func(fs *flag.FlagSet) {
		fs.StringVar(&title, "title", "", "forest title")
		fs.StringVar(&summary, "summary", "", "master branch summary (optional)")
	})
	if !ok {
		return exitUsage
	}
	res, err := vine.Init(ctx, dir, title, &vine.InitOptions{Summary: summary})
	if err != nil {
		return fail(stdout, stderr, "init", err)
	}
	return printJSON(stdout, res)
}

func cmdValidate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var asJSON bool
	_, dir, ok := flags("validate", args, stderr, func(fs *flag.FlagSet) {
		fs.BoolVar(&asJSON, "json", false, "print the report as JSON")
	})
	if !ok {
		return exitUsage
	}
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Logger: cliLogger(stderr)})
	if err != nil {
		return fail(stdout, stderr, "validate", err)
	}
	defer v.Close()
	rep, err := v.Validate(ctx)
	if err != nil {
		return fail(stdout, stderr, "validate", err)
	}
	if asJSON {
		printJSON(stdout, rep)
	} else {
		for _, f := range rep.Findings {
			fmt.Fprintf(stdout, "%-7s %s: %s\n", f.Level, f.NodeID, f.Message)
		}
		fmt.Fprintf(stdout, "%d nodes, %d errors, %d warnings\n", rep.Nodes, rep.Errors, rep.Warnings)
	}
	if rep.Errors > 0 {
		return exitFailure
	}
	return exitOK
}

func cmdReindex(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	_, dir, ok := flags("reindex", args, stderr, nil)
	if !ok {
		return exitUsage
	}
	bar := newProgressBar(stderr)
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: true, Progress: bar.update, SkipAutoIndex: true, Logger: cliLogger(stderr)})
	if err != nil {
		return fail(stdout, stderr, "reindex", err)
	}
	defer v.Close()
	res, err := v.Reindex(ctx)
	bar.done()
	if err != nil {
		return fail(stdout, stderr, "reindex", err)
	}
	fmt.Fprintf(stdout, "indexed %d nodes, %d branches, %d edges\n", res.Nodes, res.Branches, res.Edges)
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "skipped %s: %s\n", s.Path, s.Reason)
	}
	return exitOK
}

func cmdCall(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(stderr, "vine call: name the primitive first: vine call PRIMITIVE --forest DIR 'JSON-ARGS'\n")
		return exitUsage
	}
	name := args[0]
	fs, dir, ok := flags("call", args[1:], stderr, nil)
	if !ok {
		return exitUsage
	}
	raw, err := callArgs(fs.Args(), stdin)
	if err != nil {
		fmt.Fprintf(stderr, "vine call: %v\n", err)
		return exitUsage
	}
	sig, known := vine.LookupSignature(name)
	v, err := vine.Open(ctx, dir, &vine.Options{Fetcher: payloadFetcher(), ReadOnly: known && sig.ReadOnly, Logger: cliLogger(stderr)})
	if err != nil {
		return fail(stdout, stderr, name, err)
	}
	defer v.Close()
	// The local owner: the full policy, through the same Scoped path every
	// transport takes (J.1).
	owner, err := v.Scoped(vine.FullPolicy())
	if err != nil {
		return fail(stdout, stderr, name, err)
	}
	res, err := owner.Call(ctx, name, raw)
	if err != nil {
		return refuse(stdout, name, err) // Call logged an E_INTERNAL's detail to stderr
	}
	return printJSON(stdout, res)
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

func cmdPrimitives(stdout io.Writer) int {
	return printJSON(stdout, vine.Signatures())
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

// parseAnywhere parses fs from args where flags and positional arguments
// may be interleaved ("vine adopt SRC --forest DIR" as well as the other
// order), and returns the positionals in order. Everything after a lone
// "--" is positional.
func parseAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var tail []string
	for i, a := range args {
		if a == "--" {
			args, tail = args[:i], args[i+1:]
			break
		}
	}
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return append(pos, tail...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}
