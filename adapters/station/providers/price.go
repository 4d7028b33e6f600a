// SPDX-License-Identifier: Apache-2.0

package providers

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/monkeyllm/vine/adapters/station/destination"
)

// How long a provider's price listing is trusted, and how long a listing
// that could not be read is remembered as unpriced (so a provider with
// no /models does not cost a probe per call).
const (
	priceTTL     = 10 * time.Minute
	priceMissTTL = time.Minute
)

// Rates are a model's published per-token prices in US dollars.
type Rates struct {
	Prompt, Completion float64
}

// Cost is what prompt and completion tokens cost at r.
func (r Rates) Cost(prompt, completion int) float64 {
	return float64(prompt)*r.Prompt + float64(completion)*r.Completion
}

// priceCache keeps each endpoint's listing for priceTTL.
type priceCache struct {
	mu   sync.Mutex
	byEP map[string]priceListing // endpoint + "\x00" + key
}

type priceListing struct {
	fetched time.Time
	ttl     time.Duration
	models  map[string]ModelEntry
}

// Price is what m's provider publishes for m's model in its /models
// listing (the price the provider test shows), read as a provider test
// reads it (the address rule, the stored key only for the stored
// endpoint) and kept for ten minutes. found is false when the listing
// cannot be read or states no price for the model: such a call is
// unpriced, never $0.00.
func (s *Store) Price(ctx context.Context, m Model) (Rates, bool) {
	key := m.Endpoint + "\x00" + m.APIKey
	now := s.now()
	s.prices.mu.Lock()
	l, ok := s.prices.byEP[key]
	s.prices.mu.Unlock()
	if !ok || now.Sub(l.fetched) > l.ttl {
		l = priceListing{fetched: now, ttl: priceMissTTL}
		if u, err := destination.Check(ctx, m.Endpoint, s.opt.AllowPrivate, s.opt.Resolver); err == nil {
			if models, err := s.probe(ctx, strings.TrimSuffix(u.String(), "/")+"/models", m.APIKey); err == nil {
				l.ttl, l.models = priceTTL, map[string]ModelEntry{}
				for _, e := range models {
					l.models[e.ID] = e
				}
			}
		}
		s.prices.mu.Lock()
		if s.prices.byEP == nil {
			s.prices.byEP = map[string]priceListing{}
		}
		s.prices.byEP[key] = l
		s.prices.mu.Unlock()
	}
	e, ok := l.models[m.Model]
	if !ok || e.Prompt == nil || e.Completion == nil {
		return Rates{}, false
	}
	return Rates{Prompt: *e.Prompt, Completion: *e.Completion}, true
}
