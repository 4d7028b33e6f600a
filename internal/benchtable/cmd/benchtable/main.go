// SPDX-License-Identifier: Apache-2.0

// Command benchtable turns go test -bench output into a table of medians
// over the runs (-count), each row checked against a targets file.
//
//	go test -run '^$' -bench Scale -count 5 . | go run ./internal/benchtable/cmd/benchtable -targets scripts/bench-targets.txt
//
// It reads the files named as arguments, or standard input. With -strict
// it exits 1 when a target is missed.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/monkeyllm/vine/internal/benchtable"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchtable", flag.ContinueOnError)
	fs.SetOutput(stderr)
	targetsFile := fs.String("targets", "", "file of targets: REGEXP UNIT MAX per line")
	strict := fs.Bool("strict", false, "exit 1 when a target is missed")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var targets []benchtable.Target
	if *targetsFile != "" {
		f, err := os.Open(*targetsFile)
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
		targets, err = benchtable.ParseTargets(f)
		f.Close()
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %s: %v\n", *targetsFile, err)
			return 1
		}
	}
	var results []benchtable.Result
	inputs := fs.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	for _, name := range inputs {
		res, err := parseInput(name, stdin)
		if err != nil {
			fmt.Fprintf(stderr, "benchtable: %v\n", err)
			return 1
		}
		results = append(results, res...)
	}
	missed, err := benchtable.Write(stdout, benchtable.Summarize(results), targets)
	if err != nil {
		fmt.Fprintf(stderr, "benchtable: %v\n", err)
		return 1
	}
	if missed > 0 {
		fmt.Fprintf(stdout, "\n%d target(s) missed\n", missed)
		if *strict {
			return 1
		}
	}
	return 0
}

func parseInput(name string, stdin io.Reader) ([]benchtable.Result, error) {
	if name == "-" {
		return benchtable.Parse(stdin)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return benchtable.Parse(f)
}
