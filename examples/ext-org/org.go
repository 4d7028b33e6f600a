// SPDX-License-Identifier: Apache-2.0

package main

import (
	"regexp"
	"strings"
)

var (
	headlineRE = regexp.MustCompile(`^(\*+)\s+(.*)$`)
	todoRE     = regexp.MustCompile(`^(TODO|DONE|NEXT|WAITING|CANCELLED)\s+`)
	keywordRE  = regexp.MustCompile(`^#\+([A-Za-z_]+):\s*(.*)$`)
	beginRE    = regexp.MustCompile(`(?i)^#\+BEGIN_(SRC|EXAMPLE|QUOTE)\b\s*(\S*)`)
	endRE      = regexp.MustCompile(`(?i)^#\+END_(SRC|EXAMPLE|QUOTE)\b`)
	listRE     = regexp.MustCompile(`^(\s*)[-+]\s+(.*)$`)
	ruleRE     = regexp.MustCompile(`^\|[-+|]+\|?$`)
	linkRE     = regexp.MustCompile(`\[\[([^\]]+)\]\[([^\]]+)\]\]`)
	bareLinkRE = regexp.MustCompile(`\[\[([^\]]+)\]\]`)
	markupRE   = []struct {
		re   *regexp.Regexp
		repl string
	}{
		{regexp.MustCompile(`(^|[\s(])\*([^*\s](?:[^*]*[^*\s])?)\*($|[\s.,;:!?)])`), "$1**$2**$3"},
		{regexp.MustCompile(`(^|[\s(])/([^/\s](?:[^/]*[^/\s])?)/($|[\s.,;:!?)])`), "$1*$2*$3"},
		{regexp.MustCompile(`(^|[\s(])[=~]([^=~\s](?:[^=~]*[^=~\s])?)[=~]($|[\s.,;:!?)])`), "$1`$2`$3"},
		{regexp.MustCompile(`(^|[\s(])\+([^+\s](?:[^+]*[^+\s])?)\+($|[\s.,;:!?)])`), "$1~~$2~~$3"},
	}
)

// Convert turns an Org document into markdown and its title: #+TITLE,
// else the first headline. Headlines become ATX headings (TODO keywords
// dropped unless keepTodo), source and example blocks fenced code,
// quote blocks quotes, links markdown links, tables GFM tables;
// property drawers, comments and other #+ keywords are dropped.
func Convert(org string, keepTodo bool) (title, markdown string) {
	var out []string
	var fence string // "```" inside SRC/EXAMPLE, ">" inside QUOTE
	drawer := false
	firstHeadline := ""
	for _, line := range strings.Split(strings.ReplaceAll(org, "\r\n", "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "" && endRE.MatchString(trimmed):
			if fence == "```" {
				out = append(out, "```")
			}
			fence = ""
		case fence == "```":
			out = append(out, line)
		case fence == ">":
			out = append(out, strings.TrimSpace("> "+inline(trimmed)))
		case drawer:
			drawer = !strings.EqualFold(trimmed, ":END:")
		case strings.HasPrefix(trimmed, ":") && strings.HasSuffix(trimmed, ":") && len(trimmed) > 2 && !strings.Contains(trimmed, " "):
			drawer = !strings.EqualFold(trimmed, ":END:")
		case beginRE.MatchString(trimmed):
			m := beginRE.FindStringSubmatch(trimmed)
			if strings.EqualFold(m[1], "QUOTE") {
				fence = ">"
			} else {
				fence = "```"
				lang := ""
				if strings.EqualFold(m[1], "SRC") {
					lang = m[2]
				}
				out = append(out, "```"+lang)
			}
		case keywordRE.MatchString(trimmed):
			m := keywordRE.FindStringSubmatch(trimmed)
			if strings.EqualFold(m[1], "TITLE") && title == "" {
				title = strings.TrimSpace(m[2])
			}
		case trimmed == "#" || strings.HasPrefix(trimmed, "# "):
			// a comment line
		case headlineRE.MatchString(line):
			m := headlineRE.FindStringSubmatch(line)
			text := m[2]
			if !keepTodo {
				text = todoRE.ReplaceAllString(text, "")
			}
			if firstHeadline == "" {
				firstHeadline = text
			}
			out = append(out, strings.Repeat("#", min(len(m[1]), 6))+" "+inline(text))
		case ruleRE.MatchString(trimmed):
			cells := strings.Count(strings.Trim(trimmed, "|"), "+") + 1
			out = append(out, "|"+strings.Repeat("---|", cells))
		case listRE.MatchString(line):
			m := listRE.FindStringSubmatch(line)
			out = append(out, m[1]+"- "+inline(m[2]))
		default:
			out = append(out, inline(line))
		}
	}
	if fence == "```" {
		for len(out) > 0 && strings.TrimSpace(out[len(out)-1]) == "" {
			out = out[:len(out)-1]
		}
		out = append(out, "```")
	}
	if title == "" {
		title = firstHeadline
	}
	return title, strings.TrimSpace(strings.Join(out, "\n")) + "\n"
}

// inline rewrites links and emphasis within one line.
func inline(s string) string {
	s = linkRE.ReplaceAllString(s, "[$2]($1)")
	s = bareLinkRE.ReplaceAllString(s, "<$1>")
	for _, m := range markupRE {
		s = m.re.ReplaceAllString(s, m.repl)
	}
	return s
}
