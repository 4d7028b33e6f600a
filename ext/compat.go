// SPDX-License-Identifier: Apache-2.0

package ext

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A manifest's station_compat is a comma-joined list of clauses, each an
// operator (>=, >, <=, <, == or !=; none means ==) and a dotted number;
// all must hold against the host's version. Versions compare as integer
// tuples, the shorter padded with zeros, so "0.83" == "0.83.0". The
// parser is written here rather than borrowed from a semver library
// because those read "0.83" and pre-release tags differently (spec 11 §9).

type clause struct {
	op  string
	ver []int
}

var compatOps = []string{">=", "<=", "==", "!=", ">", "<"} // two-character operators first

func parseRange(s string) ([]clause, error) {
	var out []clause
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		op := "=="
		for _, o := range compatOps {
			if strings.HasPrefix(part, o) {
				op, part = o, strings.TrimSpace(part[len(o):])
				break
			}
		}
		ver, err := parseVersion(part)
		if err != nil {
			return nil, fmt.Errorf("clause %q: %w", strings.TrimSpace(op+part), err)
		}
		out = append(out, clause{op, ver})
	}
	return out, nil
}

func parseVersion(s string) ([]int, error) {
	if s == "" {
		return nil, errors.New("no version")
	}
	var out []int
	for _, f := range strings.Split(s, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || strings.Trim(f, "0123456789") != "" {
			return nil, fmt.Errorf("%q is not a dotted number", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func compare(a, b []int) int {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// HostVersion reads a host's version string as a dotted number: a
// leading "v" and anything from the first '-' or '+' are dropped
// ("v0.84.1-rc1" reads 0.84.1). ok is false for a build that names no
// release ("(devel)", "devel+abc123").
func HostVersion(s string) (ver []int, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexAny(s, "-+"); i >= 0 {
		s = s[:i]
	}
	v, err := parseVersion(s)
	return v, err == nil
}

// Compatible reports whether the range admits the host version. An
// unreadable range is an error. A development build, whose version
// names no release, admits every readable range: refusing all
// extensions there would only hide the ones being developed against it.
func Compatible(rangeSpec, host string) (bool, error) {
	clauses, err := parseRange(rangeSpec)
	if err != nil {
		return false, err
	}
	hv, ok := HostVersion(host)
	if !ok {
		return true, nil
	}
	for _, c := range clauses {
		r := compare(hv, c.ver)
		var holds bool
		switch c.op {
		case ">=":
			holds = r >= 0
		case ">":
			holds = r > 0
		case "<=":
			holds = r <= 0
		case "<":
			holds = r < 0
		case "==":
			holds = r == 0
		case "!=":
			holds = r != 0
		}
		if !holds {
			return false, nil
		}
	}
	return true, nil
}
