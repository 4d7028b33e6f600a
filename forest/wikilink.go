// SPDX-License-Identifier: Apache-2.0

package forest

import (
	"regexp"
	"strings"
)

// wikilinkRe is Part B's wikilink pattern: [[id]], [[id|text]], with an
// optional #anchor after the id that is tolerated and ignored.
var wikilinkRe = regexp.MustCompile(`\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]`)

// Wikilinks returns the targets of the body's wikilinks in order of
// appearance, duplicates kept, each trimmed. The pattern applies to the
// whole body as Part B states it, code blocks included; a target that is
// blank after trimming is dropped, since it can name no id. Wikilinks are
// not edges: resolving them (exactly, never fuzzily) is lint's job.
func Wikilinks(body string) []string {
	matches := wikilinkRe.FindAllStringSubmatch(body, -1)
	out := make([]string, 0, len(matches))
	for _, m := range matches {
		if t := strings.TrimSpace(m[1]); t != "" {
			out = append(out, t)
		}
	}
	return out
}
