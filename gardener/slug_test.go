// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestSlugify(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Maré Alta", "mare-alta"},
		{"Relatório Q1 2026.final", "relatorio-q1-2026.final"},
		{"  --Hello,  World!--  ", "hello-world"},
		{"ÅNGSTRÖM_units", "angstrom_units"},
		{"ﬁle №5", "file-no5"}, // NFKD expands ligatures and compatibility forms
		{"日本語", "node"},
		{"", "node"},
		{"...", "node"},
		{".hidden.", "hidden"},
		{"a//b\\c", "a-b-c"},
		{"UPPER-lower_09", "upper-lower_09"},
		{"x\u0301y", "xy"}, // combining marks are dropped, not turned into dashes
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Slugify(tt.in), "Slugify(%q)", tt.in)
	}
}

func TestSlugifyStable(t *testing.T) {
	for _, s := range []string{"Maré Alta", "a b", "日本語", "x-y.z"} {
		assert.Equal(t, Slugify(s), Slugify(Slugify(s)), "a slug is its own slug: %q", s)
	}
}

func TestSQLName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Sales Report", "sales_report"},
		{"2024-budget.v2", "t_2024_budget_v2"},
		{"_private", "_private"},
		{"日本語", "node"},
		{strings.Repeat("a", 60), strings.Repeat("a", 48)},
		{strings.Repeat("9", 60), "t_" + strings.Repeat("9", 48)},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, sqlName(tt.in), "sqlName(%q)", tt.in)
	}
}

func TestColumnNames(t *testing.T) {
	got := columnNames([]string{"Name", "name", "", "2024", "Preço (R$)", "", "NAME", "a.b-c"})
	assert.Equal(t, []string{"name", "name_", "col2", "c_2024", "preco_r", "col5", "name__", "a_b_c"}, got)
}

func TestStemTitle(t *testing.T) {
	assert.Equal(t, "quarterly sales report", stemTitle("dir/quarterly_sales-report.csv"))
	assert.Equal(t, "archive.tar", stemTitle("archive.tar.gz"))
}
