// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestConvert(t *testing.T) {
	tests := []struct {
		name, org, title, md string
		keepTodo             bool
	}{
		{"title keyword and headings", "#+TITLE: Kitchen notes\n#+AUTHOR: Ada\n* Soups\n** TODO Leek soup\nSimmer /gently/.\n",
			"Kitchen notes", "# Soups\n## Leek soup\nSimmer *gently*.\n", false},
		{"todo kept on request", "* DONE Bread\n", "DONE Bread", "# DONE Bread\n", true},
		{"first headline names an untitled file", "* Bread\ntext\n", "Bread", "# Bread\ntext\n", false},
		{"source block", "#+BEGIN_SRC go\nfmt.Println(\"*not bold*\")\n#+END_SRC\n", "", "```go\nfmt.Println(\"*not bold*\")\n```\n", false},
		{"example block", "#+begin_example\n  raw /text/\n#+end_example\n", "", "```\n  raw /text/\n```\n", false},
		{"quote block", "#+BEGIN_QUOTE\nBe *kind*.\n#+END_QUOTE\n", "", "> Be **kind**.\n", false},
		{"links", "See [[https://orgmode.org][Org]] and [[https://go.dev]].\n", "", "See [Org](https://orgmode.org) and <https://go.dev>.\n", false},
		{"code and strike", "Run =make= not ~make all~, +never+ rm.\n", "", "Run `make` not `make all`, ~~never~~ rm.\n", false},
		{"lists", "- one\n  + two\n", "", "- one\n  - two\n", false},
		{"table", "| a | b |\n|---+---|\n| 1 | 2 |\n", "", "| a | b |\n|---|---|\n| 1 | 2 |\n", false},
		{"drawers and comments dropped", "* Task\n:PROPERTIES:\n:ID: 42\n:END:\n# private\nbody\n", "Task", "# Task\nbody\n", false},
		{"unclosed block closes", "#+BEGIN_SRC sh\nls\n", "", "```sh\nls\n```\n", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			title, md := Convert(tc.org, tc.keepTodo)
			assert.Equal(t, tc.title, title)
			assert.Equal(t, tc.md, md)
		})
	}
}

func TestManifestIsValid(t *testing.T) {
	m := orgExt{}.Manifest()
	assert.Equal(t, "org", m.ID)
	assert.Equal(t, []string{".org"}, m.Contributes.Converters[0].Extensions)
}

func FuzzConvert(f *testing.F) {
	f.Add("#+TITLE: x\n* a\n#+BEGIN_SRC\n")
	f.Fuzz(func(t *testing.T, s string) { Convert(s, false) })
}
