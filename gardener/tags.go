// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"strings"

	"github.com/monkeyllm/vine/forest"
)

// CleanTags applies the one tag rule on the way in (G.4 §11.4, A.3.2):
// each tag is trimmed and lowercased (never case-folded or unaccented:
// the stored spelling keeps its accents), must then pass
// forest.ValidateTag (one token of letters, marks and digits with "-" or
// "_" inside, at most 40 characters), and is kept once per
// forest.TagKey (NFC + case folding). At most 12 are kept. Every loss to
// the rule or the cap is counted in dropped; a duplicate is not a loss.
func CleanTags(tags []string) (kept []string, dropped int) {
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(t))
		if forest.ValidateTag(t) != nil {
			dropped++
			continue
		}
		key := forest.TagKey(t)
		if seen[key] {
			continue
		}
		if len(kept) == forest.MaxTags {
			dropped++
			continue
		}
		seen[key] = true
		kept = append(kept, t)
	}
	return kept, dropped
}
