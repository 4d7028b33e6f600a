package keys

import (
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/monkeyllm/vine/forest"
)

// CheckPrefix reports why p, an allow or deny prefix of a grant as a keys
// file stores it, would not do what it looks like it does. A policy
// matches prefixes literally (spec 08 §7.1), so a glob, a relative or
// traversing path, a backslash or a branch index id matches no node at
// all, and a blank one grants the whole forest: each is a typo of
// authority that would otherwise pass in silence.
//
// What the policy normalises is accepted: surrounding white space and
// slashes ("/sales", "sales" and "sales/" are one prefix), and "" (or
// "/"), the whole forest, which is how a keys file stores it. Whether
// the whole forest is allowed where p appears is the caller's question.
func CheckPrefix(p string) error {
	t := strings.TrimSpace(p)
	if t == "" && p != "" {
		return errors.New("is blank: a blank prefix grants the whole forest, which a keys file writes as \"\"")
	}
	switch {
	case strings.ContainsAny(t, "*?["):
		return errors.New("is a glob: prefixes match literally, so sales/* matches nothing; write sales/")
	case strings.ContainsRune(t, '\\'):
		return errors.New(`has a backslash: ids use "/"`)
	case strings.ContainsFunc(t, unicode.IsControl):
		return errors.New("has a control character")
	}
	n := strings.Trim(t, "/")
	if n == "" {
		return nil
	}
	for _, seg := range strings.Split(n, "/") {
		switch seg {
		case "":
			return errors.New(`has an empty segment ("//")`)
		case ".", "..":
			return fmt.Errorf("has a %q segment: prefixes are literal ids from the forest root, never relative paths", seg)
		}
	}
	last := n[strings.LastIndexByte(n, '/')+1:]
	switch {
	case last == forest.RootIndexID:
		return fmt.Errorf("ends in %s, an index id: the prefix of a branch is its folder, such as sales/", forest.RootIndexID)
	case strings.HasSuffix(last, forest.NodeExt):
		return fmt.Errorf("ends in %s: ids have no extension", forest.NodeExt)
	}
	return nil
}

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
