// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/goccy/go-yaml/token"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundTripValue writes {key: v} and reads it back through Parse.
func roundTripValue(t *testing.T, key string, v any) any {
	t.Helper()
	n := &Node{Front: NewFrontmatter(Field{key, v})}
	back, err := Parse("x", n.Bytes())
	require.NoError(t, err, "%s", n.Bytes())
	got, ok := back.Front.Get(key)
	require.True(t, ok, "key %q lost in:\n%s", key, n.Bytes())
	return got
}

// The expected renderings below are what PyYAML 6 safe_dump(allow_unicode=True,
// sort_keys=False, default_flow_style=False) writes for {"summary": value}.
func TestEmitScalarStyles(t *testing.T) {
	tests := []struct {
		name, value, want string
	}{
		{"colon space", "a: b", "'a: b'"},
		{"space hash", "a #b", "'a #b'"},
		{"hash inside", "C#", "C#"},
		{"leading dash space", "- x", "'- x'"},
		{"leading dash", "-x", "-x"},
		{"yes", "yes", "'yes'"},
		{"no", "no", "'no'"},
		{"On", "On", "'On'"},
		{"true", "true", "'true'"},
		{"null", "null", "'null'"},
		{"tilde", "~", "'~'"},
		{"1.0", "1.0", "'1.0'"},
		{"12", "12", "'12'"},
		{"hex", "0x1F", "'0x1F'"},
		{"underscore int", "1_000", "'1_000'"},
		{"dot five", ".5", "'.5'"},
		{"1e3 is a string in YAML 1.1", "1e3", "1e3"},
		{"date", "2026-06-01", "'2026-06-01'"},
		{"datetime", "2026-06-01 10:00:00", "'2026-06-01 10:00:00'"},
		{"empty", "", "''"},
		{"trailing space", "trailing ", "'trailing '"},
		{"leading space", " leading", "' leading'"},
		{"newline", "line one\nline two", "'line one\n\n  line two'"},
		{"double newline", "a\n\nb", "'a\n\n\n  b'"},
		{"trailing newline", "end\n", "'end\n\n  '"},
		{"tab", "tab\there", `"tab\there"`},
		{"nul", "nul\x00", `"nul\0"`},
		{"del", "del\u007f", `"del\x7F"`},
		{"bom", "\ufeffbom", `"\uFEFFbom"`},
		{"apostrophe", "it's", "it's"},
		{"quoted", "'quoted'", "'''quoted'''"},
		{"double quote start", "\"q\" here", "'\"q\" here'"},
		{"doc start", "---", "'---'"},
		{"doc end", "... more", "'... more'"},
		{"at", "@user", "'@user'"},
		{"backtick", "`code`", "'`code`'"},
		{"percent", "%x", "'%x'"},
		{"amp", "&x", "'&x'"},
		{"star", "*x", "'*x'"},
		{"bang", "!x", "'!x'"},
		{"pipe", "|x", "'|x'"},
		{"gt", ">x", "'>x'"},
		{"bracket", "[x]", "'[x]'"},
		{"brace", "{x}", "'{x}'"},
		{"comma", ",x", "',x'"},
		{"question", "?x", "?x"},
		{"question space", "? x", "'? x'"},
		{"colon start", ":x", ":x"},
		{"colon start space", ": x", "': x'"},
		{"colon end", "note:", "'note:'"},
		{"url", "https://example.org/a?b=c#frag", "https://example.org/a?b=c#frag"},
		{"merge", "<<", "'<<'"},
		{"equals", "=", "'='"},
		{"emoji", "ok 😀", "ok 😀"},
		{"emoji escaped in double quotes", "😀\t", `"\U0001F600\t"`},
		{"accent", "ação", "ação"},
		{"nbsp", "a\u00a0b", "a\u00a0b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(MarshalFrontmatter(NewFrontmatter(Field{"summary", tt.value})))
			assert.Equal(t, "summary: "+tt.want+"\n", got)
			assert.Equal(t, tt.value, roundTripValue(t, "summary", tt.value))
		})
	}
}

func TestEmitFolding(t *testing.T) {
	const acc = "Relatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600 linhas com canal, " +
		"quantidade, valor e margem em reais. Não inclui devoluções."
	x62 := strings.Repeat("x", 62)
	tests := []struct {
		name, value, want string
	}{
		{"80 columns, no space: never folds", strings.Repeat("a", 71), strings.Repeat("a", 71)},
		{"a word ending at column 80 does not fold",
			x62 + " yyyyyyyy tail words", x62 + " yyyyyyyy tail\n  words"},
		{"a word ending at column 81 folds at the next space",
			x62 + " yyyyyyyyy tail words", x62 + " yyyyyyyyy\n  tail words"},
		{"accented text counts code points, single quotes fold too", acc,
			"'Relatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600 linhas\n" +
				"  com canal, quantidade, valor e margem em reais. Não inclui devoluções.'"},
		{"double quotes fold with an escaped break and an escaped leading space", "tab\t" + acc + " " + acc,
			`"tab\tRelatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600\` + "\n" +
				`  \ linhas com canal, quantidade, valor e margem em reais. Não inclui devoluções.\` + "\n" +
				`  \ Relatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600 linhas com\` + "\n" +
				`  \ canal, quantidade, valor e margem em reais. Não inclui devoluções."`},
		{"a line break restarts the column count", acc + "\n" + acc,
			"'Relatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600 linhas\n" +
				"  com canal, quantidade, valor e margem em reais. Não inclui devoluções.\n\n" +
				"  Relatório trimestral de vendas por região e SKU, Jan–Mar 2026: 600 linhas com canal,\n" +
				"  quantidade, valor e margem em reais. Não inclui devoluções.'"},
		{"double spaces never fold", strings.Repeat("word  ", 20) + "end", strings.Repeat("word  ", 20) + "end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(MarshalFrontmatter(NewFrontmatter(Field{"summary", tt.value})))
			assert.Equal(t, "summary: "+tt.want+"\n", got)
			assert.Equal(t, tt.value, roundTripValue(t, "summary", tt.value))
		})
	}
}

func TestEmitNonStrings(t *testing.T) {
	tests := []struct {
		value any
		want  string
	}{
		{0.5, "0.5"}, {1.0, "1.0"}, {0.0, "0.0"}, {math.Copysign(0, -1), "-0.0"},
		{1e16, "1.0e+16"}, {1e15, "1000000000000000.0"}, {1e-5, "1.0e-05"}, {0.0001, "0.0001"},
		{123.456, "123.456"}, {1e300, "1.0e+300"}, {2.5e-10, "2.5e-10"}, {1.5e-7, "1.5e-07"},
		{12345678901234567.0, "1.2345678901234568e+16"}, {math.Nextafter(0.3, 1), "0.30000000000000004"}, {100.0, "100.0"},
		{math.Inf(1), ".inf"}, {math.Inf(-1), "-.inf"}, {math.NaN(), ".nan"},
		{int64(3), "3"}, {-7, "-7"}, {int64(math.MaxInt64), "9223372036854775807"},
		{true, "true"}, {false, "false"}, {nil, "null"},
		{[]any{}, "[]"}, {NewFrontmatter(), "{}"},
		{uint64(math.MaxUint64), "'18446744073709551615'"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			got := string(MarshalFrontmatter(NewFrontmatter(Field{"x", tt.value})))
			assert.Equal(t, "x: "+tt.want+"\n", got)
			back := roundTripValue(t, "x", tt.value)
			if f, ok := tt.value.(float64); ok && math.IsNaN(f) {
				assert.True(t, math.IsNaN(back.(float64)))
				return
			}
			assert.Equal(t, normalizeValue(tt.value), back)
		})
	}
}

// The expected document is PyYAML's rendering of the same mapping.
func TestEmitDocument(t *testing.T) {
	f := NewFrontmatter(
		Field{"id", "ops/runbook-backup"},
		Field{"type", "note"},
		Field{"title", "Backup runbook"},
		Field{"summary", "Nightly backup procedure for the two NAS units: schedule, retention 30 days, " +
			"restore test. Offsite copies are in ops/offsite."},
		Field{"created", "2026-07-01"},
		Field{"updated", "2026-07-03"},
		Field{"tags", []string{"backup", "ops"}},
		Field{"links", []any{
			NewFrontmatter(Field{"rel", "part-of"}, Field{"target", "ops/_index"}),
			NewFrontmatter(Field{"rel", "related-to"}, Field{"target", "ops/offsite"}, Field{"confidence", 0.5},
				Field{"discovered_by", "agent"}, Field{"note", "same NAS units"}),
		}},
		Field{"confidence", 0.75},
		Field{"source", "agent"},
		Field{"aliases", []string{}},
		Field{"extra", NewFrontmatter()},
		Field{"flag", true},
		Field{"none", nil},
		Field{"count", 3},
		Field{"neg", -7},
		Field{"yes", "no"},
		Field{"nested", NewFrontmatter(Field{"a", []any{1, []any{2, 3}}}, Field{"b", NewFrontmatter(Field{"c", "d"})})},
		Field{strings.Repeat("k", 123), "long key"},
		Field{strings.Repeat("k", 122), "short enough"},
		Field{"", "empty key"},
		Field{"multi\nline", "v"},
	)
	want := "id: ops/runbook-backup\ntype: note\ntitle: Backup runbook\n" +
		"summary: 'Nightly backup procedure for the two NAS units: schedule, retention 30 days,\n" +
		"  restore test. Offsite copies are in ops/offsite.'\n" +
		"created: '2026-07-01'\nupdated: '2026-07-03'\n" +
		"tags:\n- backup\n- ops\n" +
		"links:\n- rel: part-of\n  target: ops/_index\n- rel: related-to\n  target: ops/offsite\n" +
		"  confidence: 0.5\n  discovered_by: agent\n  note: same NAS units\n" +
		"confidence: 0.75\nsource: agent\naliases: []\nextra: {}\nflag: true\nnone: null\ncount: 3\nneg: -7\n" +
		"'yes': 'no'\n" +
		"nested:\n  a:\n  - 1\n  - - 2\n    - 3\n  b:\n    c: d\n" +
		"? " + strings.Repeat("k", 123) + "\n: long key\n" +
		strings.Repeat("k", 122) + ": short\n  enough\n" +
		"? ''\n: empty key\n" +
		"? 'multi\n\n  line'\n: v\n"
	assert.Equal(t, want, string(MarshalFrontmatter(f)))

	back, err := Parse("x", (&Node{Front: f}).Bytes())
	require.NoError(t, err)
	assert.Equal(t, f, back.Front)

	assert.Equal(t, "{}\n", string(MarshalFrontmatter(nil)))
	assert.Equal(t, "{}\n", string(MarshalFrontmatter(NewFrontmatter())))
}

// Where PyYAML's output would not read back the same through goccy/go-yaml
// (a YAML 1.2 reader with a few quirks of its own), the writer departs from
// PyYAML. Each case shows PyYAML's rendering and ours.
func TestEmitDeviations(t *testing.T) {
	long := strings.Repeat("word ", 24) + "word"
	tests := []struct {
		name          string
		key           string
		value         string
		pyyaml, ours  string
		reasonForDiff string
	}{
		{"YAML 1.2 octal", "x", "0o17", "x: 0o17\n", "x: '0o17'\n", "goccy reads 0o17 as the integer 15"},
		{"YAML 1.2 float", "x", "+.5", "x: +.5\n", "x: '+.5'\n", "goccy reads +.5 as a float"},
		{"NEL", "x", "a\u0085b", "x: 'a\u0085  b'\n", "x: \"a\\Nb\"\n", "YAML 1.2 does not break lines at U+0085"},
		{"line separator", "x", "a\u2028b", "x: 'a\u2028  b'\n", "x: \"a\\Lb\"\n", "YAML 1.2 does not break lines at U+2028"},
		{"quote run after a break", "x", "x\n' y", "x: 'x\n\n  '' y'\n", "x: \"x\\n' y\"\n",
			"goccy drops the space after a line that starts with ''"},
		{"key ending in <<", "a<<", "v", "a<<: v\n", "'a<<': v\n", "goccy reads a plain key ending in << as a merge key"},
		{"folded plain value of an explicit key", strings.Repeat("k", 123), long,
			"? " + strings.Repeat("k", 123) + "\n: " + strings.Repeat("word ", 15) + "word\n  " + strings.Repeat("word ", 8) + "word\n",
			"? " + strings.Repeat("k", 123) + "\n: '" + strings.Repeat("word ", 15) + "word\n  " + strings.Repeat("word ", 8) + "word'\n",
			"goccy refuses a multi-line plain value after '? key'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(MarshalFrontmatter(NewFrontmatter(Field{tt.key, tt.value})))
			assert.Equal(t, tt.ours, got, tt.reasonForDiff)
			assert.NotEqual(t, tt.pyyaml, got)
			assert.Equal(t, tt.value, roundTripValue(t, tt.key, tt.value))
		})
	}
}

func TestEmitSingleQuoteFoldTrap(t *testing.T) {
	// PyYAML would fold before "' word", starting the next line with
	// "'' word", which goccy reads back without its space.
	v := "Trap: " + strings.Repeat("x", 66) + " ' word and more"
	got := string(MarshalFrontmatter(NewFrontmatter(Field{"summary", v})))
	assert.Equal(t, "summary: 'Trap: "+strings.Repeat("x", 66)+" ''\n  word and more'\n", got)
	assert.Equal(t, v, roundTripValue(t, "summary", v))
}

func TestPlainReadsAsString(t *testing.T) {
	// The first-byte shortcut agrees with the full check: PyYAML's
	// resolvers and goccy's scanner.
	full := func(s string) bool {
		return s != "" && !yaml11Typed.MatchString(s) && token.New(s, s, nil).Type == token.StringType
	}
	for _, s := range []string{"", "yes", "No", "OFF", "null", "~", "<<", "<", "=", "==", "!", "&", "*", "1", "-1.5",
		".inf", ".Inf", "-.inf", ".nan", ".NaN", "0b101", "0o17", "+.5", "1e3", "1.0e+16", "2026-06-01",
		"2026-6-1 8:00:00", "1:20", "Yes!", "Nope", "Forest", "Tropicália", "x", "-x", "*x", "Never", "on", "ON",
		"type", "title", "tags", "target", "note", "ops/runbook-backup", "-", "+", ".", "._", "0x", "0x1F",
		"123456789012345678901234567890", "Infinity", "NaN", "nan", "inf", "True", "FALSE", "Off", "y", "n"} {
		assert.Equal(t, full(s), plainReadsAsString(s), "%q", s)
	}
}

func TestFormatFloat(t *testing.T) {
	// Python's repr keeps the shortest round-trip digits.
	for _, f := range []float64{0.1, 1.0 / 3, 2.0 / 3, 1e22, 5e-324, math.MaxFloat64, -1.5, 1e-4, 9.999e15} {
		s := formatFloat(f)
		back := roundTripValue(t, "x", f)
		assert.Equal(t, f, back, s)
	}
}

func FuzzMarshalFrontmatter(f *testing.F) {
	f.Add("summary", "a: b")
	f.Add("key", "x\n' y")
	f.Add(strings.Repeat("k", 130), "word "+strings.Repeat("w ", 60))
	f.Add("a<<", "\u2028\u0085\t")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, key, value string) {
		if !utf8.ValidString(key) || !utf8.ValidString(value) {
			t.Skip("frontmatter text is UTF-8")
		}
		n := &Node{Front: NewFrontmatter(Field{key, value}, Field{"list", []any{value, NewFrontmatter(Field{key, value})}})}
		data := n.Bytes()
		back, err := Parse("x", data)
		require.NoError(t, err, "%s", data)
		require.Equal(t, n.Front, back.Front, "%s", data)
		require.Equal(t, string(data), string(back.Bytes()))
	})
}
