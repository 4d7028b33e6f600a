// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/answer"
)

// The answer store's administration (09 §12, J.10.7): per-forest
// settings kept in the registry's forest_settings, applied by the
// Answerer on every call, and the store's statistics. Not audited (ref).

// cacheSetting is the forest_settings key of the answer store.
const cacheSetting = "answer_cache"

// cacheSettings are a forest's answer store settings as stored and shown.
type cacheSettings struct {
	Enabled    bool     `json:"enabled"`
	MaxEntries int      `json:"max_entries"`
	TTLHours   *float64 `json:"ttl_hours"`
}

func defaultCacheSettings() cacheSettings {
	return cacheSettings{Enabled: true, MaxEntries: answer.DefaultMaxEntries}
}

// storeOptions are the settings as the Answerer applies them.
func (c cacheSettings) storeOptions() answer.StoreOptions {
	o := answer.StoreOptions{Disabled: !c.Enabled, MaxEntries: c.MaxEntries}
	if c.TTLHours != nil {
		o.TTL = time.Duration(*c.TTLHours * float64(time.Hour))
	}
	return o
}

// cacheOf reads forest's settings, the defaults when never set.
func (s *Server) cacheOf(ctx context.Context, forest string) (cacheSettings, error) {
	c := defaultCacheSettings()
	_, err := s.reg.Setting(ctx, forest, cacheSetting, &c)
	return c, err
}

// StoreSettings are the per-forest answer store settings an Answerer
// bound to this Station applies (answer.Options.StoreSettings); a
// forest whose settings cannot be read keeps the defaults.
func (s *Server) StoreSettings(ctx context.Context, v *vine.Vine) answer.StoreOptions {
	c, err := s.cacheOf(ctx, filepath.Base(v.Dir()))
	if err != nil {
		s.log.Warn("station: reading answer store settings", "err", err)
	}
	return c.storeOptions()
}

type cacheAnswer struct {
	Forest   string            `json:"forest"`
	Settings cacheSettings     `json:"settings"`
	Stats    answer.StoreStats `json:"stats"`
	Cleared  *bool             `json:"cleared,omitempty"`
}

// adminOn checks the r6 gate of a per-forest governance route (cache,
// models): the forest named first, then admin on it.
func (s *Server) adminOn(c adminCall, forest string) error {
	if forest == "" {
		return &vine.Error{Code: vine.ESchema, Message: "parameter 'forest' is required",
			Hint: "name it: ?forest=<id> on a GET, \"forest\" in the JSON body of a POST"}
	}
	if _, err := s.forests.Dir(forest); err != nil {
		return err
	}
	ok, err := s.reg.IsAdmin(c.r.Context(), c.who.Name, forest, c.who.Mask)
	if err == nil && !ok {
		err = &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on that forest"}
	}
	return err
}

// cacheStatus serves GET /v1/admin/cache?forest=.
func (s *Server) cacheStatus(c adminCall) {
	forest := c.r.URL.Query().Get("forest")
	if err := s.adminOn(c, forest); err != nil {
		s.api.Refuse(c.w, "admin.cache", err)
		return
	}
	out, err := s.cacheReport(c.r.Context(), forest, false)
	if err != nil {
		s.api.Refuse(c.w, "admin.cache", err)
		return
	}
	s.api.WriteJSON(c.w, "admin.cache", http.StatusOK, out)
}

// changeCache serves POST /v1/admin/cache {forest, enabled?,
// max_entries?, ttl_hours?, clear?}: clear empties the entries and keeps
// the tallies.
func (s *Server) changeCache(c adminCall) {
	const op = "admin.cache"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	forest := text(m, "forest")
	if err := s.adminOn(c, forest); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	ctx := c.r.Context()
	cur, err := s.cacheOf(ctx, forest)
	if err == nil {
		err = applyCacheChange(&cur, m)
	}
	if err == nil {
		err = s.reg.SetSetting(ctx, forest, cacheSetting, cur)
	}
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	out, err := s.cacheReport(ctx, forest, isTrue(m["clear"]))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, out)
}

// applyCacheChange validates and applies the fields present in m.
func applyCacheChange(c *cacheSettings, m map[string]json.RawMessage) error {
	if raw, ok := m["enabled"]; ok {
		if json.Unmarshal(raw, &c.Enabled) != nil {
			return &vine.Error{Code: vine.ESchema, Message: "enabled must be true or false"}
		}
	}
	if raw, ok := m["max_entries"]; ok {
		var n float64
		if json.Unmarshal(raw, &n) != nil || n != math.Trunc(n) {
			return &vine.Error{Code: vine.ESchema, Message: "max_entries must be an integer"}
		}
		if n < 1 {
			return &vine.Error{Code: vine.ESchema, Message: "max_entries must be at least 1",
				Hint: "Switch the store off with enabled: false rather than starving it."}
		}
		c.MaxEntries = int(min(n, math.MaxInt32))
	}
	if raw, ok := m["ttl_hours"]; ok {
		var h *float64
		if json.Unmarshal(raw, &h) != nil || (h != nil && (*h <= 0 || math.IsInf(*h, 0))) {
			return &vine.Error{Code: vine.ESchema, Message: "ttl_hours must be a positive number, or null for no expiry"}
		}
		c.TTLHours = h
	}
	return nil
}

// cacheReport is the settings and statistics of forest's store, after
// clearing it when asked. Without a bound Answerer the store is empty.
func (s *Server) cacheReport(ctx context.Context, forest string, clear bool) (cacheAnswer, error) {
	settings, err := s.cacheOf(ctx, forest)
	if err != nil {
		return cacheAnswer{}, err
	}
	out := cacheAnswer{Forest: forest, Settings: settings}
	if clear {
		cleared := true
		out.Cleared = &cleared
	}
	if s.answerer == nil {
		return out, nil
	}
	v, err := s.forests.Forest(ctx, forest)
	if err != nil {
		return cacheAnswer{}, err
	}
	if clear {
		if err := s.answerer.ClearStore(ctx, v); err != nil {
			return cacheAnswer{}, err
		}
	}
	out.Stats, err = s.answerer.StoreStats(ctx, v)
	return out, err
}
