// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/monkeyllm/vine"
)

// request is a create or replace body, decoded and checked (09 §10).
type request struct {
	id              string
	deployment      bool
	label           string
	url             string
	events          []string
	branches        []string
	headers         map[string]*string // nil value: keep the stored one
	headersGiven    bool
	includeMetadata bool
	enabled         bool
}

func schema(format string, a ...any) *vine.Error {
	return &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf(format, a...)}
}

// decodeRequest reads the fields of a create or replace body.
func decodeRequest(raw []byte) (request, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return request{}, schema("invalid JSON body")
	}
	r := request{enabled: true}
	steps := []func(map[string]json.RawMessage, *request) error{decodeIdentity, decodeEvents, decodeBranches, decodeHeaders, decodeFlags}
	for _, step := range steps {
		if err := step(m, &r); err != nil {
			return request{}, err
		}
	}
	return r, nil
}

func decodeIdentity(m map[string]json.RawMessage, r *request) error {
	if raw, ok := m["id"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &r.id) != nil {
			return schema("id must be a string")
		}
	}
	if raw, ok := m["scope"]; ok && string(raw) != "null" {
		var s string
		if json.Unmarshal(raw, &s) != nil || (s != ScopeForest && s != ScopeDeployment) {
			return schema("scope must be %q or %q", ScopeForest, ScopeDeployment)
		}
		r.deployment = s == ScopeDeployment
	}
	if raw, ok := m["label"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &r.label) != nil || utf8.RuneCountInString(r.label) > MaxLabel {
			return schema("label must be a string of at most %d characters", MaxLabel)
		}
	}
	if raw, ok := m["url"]; ok {
		json.Unmarshal(raw, &r.url)
	}
	if strings.TrimSpace(r.url) == "" {
		return schema("url is required")
	}
	return nil
}

// decodeEvents checks the events against the catalogue and the scope's
// ceiling: never silently dropped.
func decodeEvents(m map[string]json.RawMessage, r *request) error {
	if json.Unmarshal(m["events"], &r.events) != nil || len(r.events) == 0 {
		return schema("events must be a non-empty list of event names")
	}
	var unknown, outside []string
	for _, e := range r.events {
		entry, ok := entryOf(e)
		switch {
		case !ok:
			unknown = append(unknown, e)
		case entry.Scope == ScopeDeployment && !r.deployment:
			outside = append(outside, e)
		}
	}
	if len(unknown) > 0 {
		return &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("unknown events: [%s]", strings.Join(unknown, ", ")),
			Hint: "GET the webhook list for the catalogue; " + TestEvent + " is sent by the test action and cannot be subscribed"}
	}
	if len(outside) > 0 {
		return schema("events outside this webhook's scope: [%s]", strings.Join(outside, ", "))
	}
	slices.Sort(r.events)
	r.events = slices.Compact(r.events)
	return nil
}

// decodeBranches normalises the prefixes as a policy does.
func decodeBranches(m map[string]json.RawMessage, r *request) error {
	r.branches = []string{}
	raw, ok := m["branches"]
	if !ok || string(raw) == "null" {
		return nil
	}
	var in []string
	if json.Unmarshal(raw, &in) != nil {
		return schema("branches must be a list of branch prefixes")
	}
	if len(in) > MaxBranches {
		return schema("branches takes at most %d prefixes", MaxBranches)
	}
	for _, b := range in {
		if err := vine.CheckPrefix(b); err != nil {
			return err
		}
		p := strings.Trim(strings.TrimSpace(b), "/")
		if p != "" {
			p += "/"
		}
		r.branches = append(r.branches, p)
	}
	return nil
}

var headerName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// reservedHeaders are set by the Station on every request.
var reservedHeaders = []string{"host", "content-length", "content-type", "connection", "transfer-encoding", "user-agent"}

func decodeHeaders(m map[string]json.RawMessage, r *request) error {
	raw, ok := m["headers"]
	if !ok {
		return nil
	}
	r.headersGiven = true
	r.headers = map[string]*string{}
	if string(raw) == "null" {
		return nil
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(raw, &in) != nil {
		return schema("headers must be an object of names and string values")
	}
	if len(in) > MaxHeaders {
		return schema("headers takes at most %d entries", MaxHeaders)
	}
	for name, v := range in {
		low := strings.ToLower(name)
		if !headerName.MatchString(name) {
			return schema("invalid header name: '%s'", name)
		}
		if slices.Contains(reservedHeaders, low) || strings.HasPrefix(low, "x-monkeyllm-") {
			return schema("'%s' is set by the Station", name)
		}
		if string(v) == "null" {
			r.headers[name] = nil
			continue
		}
		var s string
		if json.Unmarshal(v, &s) != nil || len(s) > MaxHeaderValue {
			return schema("header '%s' must be a string of at most %d characters", name, MaxHeaderValue)
		}
		r.headers[name] = &s
	}
	return nil
}

func decodeFlags(m map[string]json.RawMessage, r *request) error {
	for key, dst := range map[string]*bool{"include_metadata": &r.includeMetadata, "enabled": &r.enabled} {
		if raw, ok := m[key]; ok && string(raw) != "null" {
			if json.Unmarshal(raw, dst) != nil {
				return schema("%s must be true or false", key)
			}
		}
	}
	return nil
}

// mergeHeaders applies the request's headers to the stored ones: absent
// keeps them all, a null value keeps that one, {} or null clears.
func mergeHeaders(stored map[string]string, r request) map[string]string {
	if !r.headersGiven {
		return stored
	}
	out := map[string]string{}
	for k, v := range r.headers {
		if v != nil {
			out[k] = *v
		} else if old, ok := stored[k]; ok {
			out[k] = old
		}
	}
	return out
}

// headerNames lists a header map's names, sorted: all the public shape
// shows.
func headerNames(h map[string]string) []string {
	out := []string{}
	for k := range h {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
