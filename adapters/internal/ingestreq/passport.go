// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/gardener"
)

// passportKeys are the fields a passport sent with the bytes may hold
// (J.8.4); linkKeys those of one of its links.
var (
	passportKeys = []string{"title", "summary", "tags", "aliases", "links", "notes"}
	linkKeys     = []string{"target", "rel", "note"}
)

// decodePassport shape-checks entry i's passport: an object of the known
// fields, each of its type, title, summary and notes not blank when
// sent. The value rules (lengths, counts, the summary's fit, rel) are
// the Gardener's, applied to every entry before the first byte is
// staged.
func decodePassport(i int, raw json.RawMessage) (*gardener.UploadPassport, error) {
	bad := func(what string) error {
		return FileErr(i, "passport "+what, "a passport is {title?, summary?, tags?, aliases?, links?: [{target, rel?, note?}], notes?}")
	}
	fields, ok := object(raw)
	if !ok {
		return nil, bad("is not an object")
	}
	if k := unknownKey(fields, passportKeys); k != "" {
		return nil, bad(fmt.Sprintf("has unknown key '%s'", k))
	}
	var p gardener.UploadPassport
	for k, dst := range map[string]*string{"title": &p.Title, "summary": &p.Summary, "notes": &p.Notes} {
		if v, ok := fields[k]; ok {
			if json.Unmarshal(v, dst) != nil || isNull(v) {
				return nil, bad(fmt.Sprintf("'%s' expects string", k))
			}
			if strings.TrimSpace(*dst) == "" {
				return nil, bad(fmt.Sprintf("'%s' is empty", k))
			}
		}
	}
	for k, dst := range map[string]*[]string{"tags": &p.Tags, "aliases": &p.Aliases} {
		if v, ok := fields[k]; ok && !stringList(v, dst) {
			return nil, bad(fmt.Sprintf("'%s' expects a list of strings", k))
		}
	}
	if v, ok := fields["links"]; ok {
		var err error
		if p.Links, err = decodeLinks(v, bad); err != nil {
			return nil, err
		}
	}
	return &p, nil
}

func decodeLinks(raw json.RawMessage, bad func(string) error) ([]gardener.PassportLink, error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || isNull(raw) {
		return nil, bad("'links' expects a list of {target, rel?, note?}")
	}
	out := make([]gardener.PassportLink, 0, len(items))
	for j, item := range items {
		var l gardener.PassportLink
		fields, ok := object(item)
		if !ok || unknownKey(fields, linkKeys) != "" || json.Unmarshal(item, &l) != nil {
			return nil, bad(fmt.Sprintf("links[%d] is not {target, rel?, note?}", j))
		}
		out = append(out, l)
	}
	return out, nil
}

// stringList decodes raw into dst when it is a list of JSON strings,
// null items included in what it refuses.
func stringList(raw json.RawMessage, dst *[]string) bool {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil || isNull(raw) {
		return false
	}
	out := make([]string, len(items))
	for i, it := range items {
		if isNull(it) || json.Unmarshal(it, &out[i]) != nil {
			return false
		}
	}
	*dst = out
	return true
}

// object is raw as an object's fields, false when it is none.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	return m, true
}

// unknownKey is the first key of m (sorted) not in known, "" when none.
func unknownKey(m map[string]json.RawMessage, known []string) string {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(known, k) {
			return k
		}
	}
	return ""
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }
