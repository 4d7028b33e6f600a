// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"
)

// Slugify turns text into a deterministic id segment (G.9): NFKD, drop
// every non-ASCII rune, lowercase, each run outside [a-z0-9._-] becomes
// "-", leading and trailing "-" and "." are stripped, and an empty result
// is "node". Ids are immutable, so the same text must always give the same
// slug, on every platform and in every implementation.
func Slugify(s string) string {
	var b strings.Builder
	pendingDash := false
	for _, r := range norm.NFKD.String(s) {
		if r >= 0x80 {
			// Dropped, not replaced: "Maré" folds to "mare", not "mar-e".
			continue
		}
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		if slugRune(r) {
			if pendingDash {
				b.WriteByte('-')
				pendingDash = false
			}
			b.WriteRune(r)
			continue
		}
		pendingDash = true
	}
	if pendingDash {
		b.WriteByte('-')
	}
	out := strings.Trim(b.String(), "-.")
	if out == "" {
		return "node"
	}
	return out
}

func slugRune(r rune) bool {
	return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '.' || r == '_' || r == '-'
}

// stemTitle is the title a source gets when its content names none: the
// file stem with "_" and "-" read as spaces.
func stemTitle(path string) string {
	return strings.NewReplacer("_", " ", "-", " ").Replace(stem(path))
}

// stem is the base name without its last extension.
func stem(path string) string {
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// maxSQLName bounds table and column names derived from source text; the
// C.7.1 pattern allows 64, and prefixes and duplicate marks need room.
const maxSQLName = 48

// sqlName is a table name out of arbitrary text (a file stem, a sheet
// tab): the slug with "." and "-" as "_", at most 48 bytes, prefixed "t_"
// unless it starts with [a-z_].
func sqlName(text string) string {
	return sqlIdent(text, "t_")
}

func sqlIdent(text, prefix string) string {
	name := strings.NewReplacer(".", "_", "-", "_").Replace(Slugify(text))
	if len(name) > maxSQLName {
		name = name[:maxSQLName] // ASCII only after Slugify: a byte cut is a rune cut
	}
	if c := name[0]; !('a' <= c && c <= 'z' || c == '_') {
		name = prefix + name
	}
	return name
}

// columnNames names the columns of a header: each cell as sqlName with
// prefix "c_" (an empty cell is "col<i>", 0-based), duplicates made
// unique by appending "_".
func columnNames(header []string) []string {
	cols := make([]string, len(header))
	used := make(map[string]bool, len(header))
	for i, h := range header {
		if h == "" {
			h = "col" + strconv.Itoa(i)
		}
		col := sqlIdent(h, "c_")
		for used[col] {
			col += "_"
		}
		used[col] = true
		cols[i] = col
	}
	return cols
}
