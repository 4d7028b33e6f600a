// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"fmt"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
)

// AllCaps are the capabilities in their canonical order (spec 08 §7.2).
var AllCaps = []vine.Capability{vine.CapRead, vine.CapWrite, vine.CapQuery, vine.CapTend,
	vine.CapIngest, vine.CapAdmin, vine.CapAnswer}

// Expand lists what caps grant, in canonical order: admin grants every
// capability, so a set holding it expands to AllCaps.
func Expand(caps []vine.Capability) []vine.Capability {
	if slices.Contains(caps, vine.CapAdmin) {
		return slices.Clone(AllCaps)
	}
	out := []vine.Capability{}
	for _, c := range AllCaps {
		if slices.Contains(caps, c) {
			out = append(out, c)
		}
	}
	return out
}

// Masked is what a grant of caps allows through mask: both expanded,
// then intersected, in canonical order. A nil mask lets the grant through
// unchanged (expanded); an empty one lets nothing through.
func Masked(caps, mask []vine.Capability) []vine.Capability {
	granted := Expand(caps)
	if mask == nil {
		return granted
	}
	allowed := Expand(mask)
	return slices.DeleteFunc(granted, func(c vine.Capability) bool { return !slices.Contains(allowed, c) })
}

// ParseCaps reads a comma list of capability names ("read,query"),
// refusing unknown ones by name. An empty list is no capability.
func ParseCaps(list string) ([]vine.Capability, error) {
	out := []vine.Capability{}
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		c := vine.Capability(f)
		if err := checkCaps([]vine.Capability{c}); err != nil {
			return nil, err
		}
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func checkCaps(caps []vine.Capability) error {
	for _, c := range caps {
		if !slices.Contains(AllCaps, c) {
			return fmt.Errorf("unknown capability %q (capabilities are %s)", c, capNames(AllCaps))
		}
	}
	return nil
}

func capNames(caps []vine.Capability) string {
	s := make([]string, len(caps))
	for i, c := range caps {
		s[i] = string(c)
	}
	return strings.Join(s, ", ")
}
