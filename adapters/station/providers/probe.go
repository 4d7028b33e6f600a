// SPDX-License-Identifier: Apache-2.0

package providers

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/station/destination"
)

// Probe limits (09 §8): a test waits 20 s and lists at most 1000 models.
const (
	probeTimeout = 20 * time.Second
	maxModels    = 1000
	maxProbeBody = 8 << 20
)

// TestRequest is the body of POST /v1/admin/providers/test: a stored
// provider by name, or any endpoint; a key given here is used as is.
type TestRequest struct {
	Name     string
	Endpoint string
	APIKey   string
}

// TestResult is a probe's outcome: the models the endpoint advertises,
// or why it could not be read.
type TestResult struct {
	OK     bool         `json:"ok"`
	Models []ModelEntry `json:"models,omitempty"`
	Count  *int         `json:"count,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// ModelEntry is one advertised model; prices are per token and present
// only when the endpoint states them.
type ModelEntry struct {
	ID         string   `json:"id"`
	Name       string   `json:"name"`
	Prompt     *float64 `json:"prompt,omitempty"`
	Completion *float64 `json:"completion,omitempty"`
	Context    *int     `json:"context,omitempty"`
}

// Test probes GET <endpoint>/models. The stored key attaches only when
// the target is the stored provider's own endpoint: a caller-named
// destination carries its own key or none. The destination must pass
// the address rule when named, and again when dialled.
func (s *Store) Test(ctx context.Context, req TestRequest) (TestResult, error) {
	endpoint, key, err := s.target(ctx, req)
	if err != nil {
		return TestResult{}, err
	}
	u, err := destination.Check(ctx, endpoint, s.opt.AllowPrivate, s.opt.Resolver)
	if err != nil {
		return TestResult{}, err
	}
	models, err := s.probe(ctx, strings.TrimSuffix(u.String(), "/")+"/models", key)
	if err != nil {
		return TestResult{OK: false, Error: err.Error()}, nil
	}
	n := len(models)
	return TestResult{OK: true, Models: models, Count: &n}, nil
}

// target is the endpoint to probe and the key that may go with it.
func (s *Store) target(ctx context.Context, req TestRequest) (endpoint, key string, err error) {
	if req.Name == "" && req.Endpoint == "" {
		return "", "", &vine.Error{Code: vine.ESchema, Message: "a provider test requires a 'name' or an 'endpoint'"}
	}
	endpoint, key = req.Endpoint, req.APIKey
	if req.Name == "" {
		return endpoint, key, nil
	}
	p, found, err := s.get(ctx, s.db, req.Name)
	if err != nil {
		return "", "", err
	}
	if !found {
		return "", "", unknownProvider(req.Name)
	}
	if endpoint == "" {
		endpoint = p.endpoint
	}
	if key == "" && endpoint == p.endpoint {
		key = p.key
	}
	return endpoint, key, nil
}

func (s *Store) probe(ctx context.Context, url, key string) ([]ModelEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := s.opt.Probe.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /models answered %s", resp.Status)
	}
	var list modelList
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxProbeBody)).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET /models: not an OpenAI-compatible model list: %v", err)
	}
	return list.entries(), nil
}

// modelList is an OpenAI-compatible /models answer, with the fields
// OpenRouter-style servers add (name, pricing, context_length).
type modelList struct {
	Data []struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Pricing struct {
			Prompt     json.RawMessage `json:"prompt"`
			Completion json.RawMessage `json:"completion"`
		} `json:"pricing"`
		Context int `json:"context_length"`
	} `json:"data"`
}

func (l modelList) entries() []ModelEntry {
	out := make([]ModelEntry, 0, len(l.Data))
	for _, m := range l.Data {
		if m.ID == "" {
			continue
		}
		e := ModelEntry{ID: m.ID, Name: cmp.Or(m.Name, m.ID), Prompt: price(m.Pricing.Prompt), Completion: price(m.Pricing.Completion)}
		if m.Context > 0 {
			e.Context = &m.Context
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b ModelEntry) int { return strings.Compare(a.ID, b.ID) })
	return out[:min(len(out), maxModels)]
}

// price reads a stated per-token price, a JSON number or numeric
// string; nil when none is stated.
func price(raw json.RawMessage) *float64 {
	s := strings.Trim(strings.TrimSpace(string(raw)), `"`)
	if s == "" || s == "null" {
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 {
		return nil
	}
	return &f
}
