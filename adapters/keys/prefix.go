// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"fmt"
	"strings"

	"github.com/monkeyllm/vine"
)

// CheckPrefix reports why p, an allow or deny prefix of a grant as a keys
// file stores it, would not do what it looks like it does. It is
// vine.CheckPrefix, the rule every Policy is held to.
func CheckPrefix(p string) error { return vine.CheckPrefix(p) }

// wholeForest reports whether the prefix p, once normalised, is the whole
// forest.
func wholeForest(p string) bool { return strings.Trim(strings.TrimSpace(p), "/") == "" }

// checkGrantPrefixes checks a grant's allow and deny lists as a keys file
// holds them. An allow may be the whole forest; a deny of it hides
// nothing (the policy drops it), so it is refused as the typo it is.
func checkGrantPrefixes(allow, deny []string) error {
	for _, p := range allow {
		if err := CheckPrefix(p); err != nil {
			return fmt.Errorf("allow %q %w", p, err)
		}
	}
	for _, p := range deny {
		if err := CheckPrefix(p); err != nil {
			return fmt.Errorf("deny %q %w", p, err)
		}
		if wholeForest(p) {
			return fmt.Errorf("deny %q is empty and hides nothing; remove it, or grant nothing", p)
		}
	}
	return nil
}
