// SPDX-License-Identifier: Apache-2.0

package ranger

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/monkeyllm/vine/envelope"
)

// ConfigFile is where a forest keeps its Ranger thresholds, relative to
// the forest root (H.5). It is not a node and the engine never commits it.
const ConfigFile = "_meta/ranger.yaml"

// Config holds the Ranger's thresholds. The first six are the keys of
// H.5; the last three name the H.3 health limits, which the specification
// fixes and this implementation lets an operator move.
type Config struct {
	HalfLifeDays       float64 // half_life_days: heat halves in this many days (30)
	SessionTTLHours    float64 // session_ttl_hours: unclosed hunts' heat expires after this (24)
	PromoteFloor       float64 // promote_floor: both ends at least this hot promote a link (0.2)
	PromotedConfidence float64 // promoted_confidence: what promotion sets, always < 1.0 (0.8)
	PruneBelow         float64 // prune_below: cold links at or below this confidence are pruned (0.5)
	PayloadCacheGB     float64 // payload_cache_gb: remote-payload cache cap, decimal GB (5)
	FatDegree          int     // fat_degree: more edges than this is a fat node (50)
	SplitEntries       int     // split_entries: a branch with more "- [[" lines needs a split (150)
	SplitTokens        int     // split_tokens: a branch body over this many tokens needs a split (3000)
}

// DefaultConfig is the configuration a forest without ConfigFile runs
// with: the defaults of H.3 and H.5.
func DefaultConfig() Config {
	return Config{
		HalfLifeDays:       30,
		SessionTTLHours:    24,
		PromoteFloor:       0.2,
		PromotedConfidence: 0.8,
		PruneBelow:         0.5,
		PayloadCacheGB:     5,
		FatDegree:          50,
		SplitEntries:       150,
		SplitTokens:        3000,
	}
}

// configKey is one key of ConfigFile: how to read it from and into a
// Config, and the rule its value obeys, stated the way a refusal teaches it.
type configKey struct {
	name    string
	integer bool
	rule    string
	ok      func(float64) bool
	get     func(Config) float64
	set     func(*Config, float64)
}

var configKeys = []configKey{
	{"half_life_days", false, "a number greater than 0", positive,
		func(c Config) float64 { return c.HalfLifeDays }, func(c *Config, f float64) { c.HalfLifeDays = f }},
	{"session_ttl_hours", false, "a number of at least 0", nonNegative,
		func(c Config) float64 { return c.SessionTTLHours }, func(c *Config, f float64) { c.SessionTTLHours = f }},
	{"promote_floor", false, "a number greater than 0 and at most 1",
		func(f float64) bool { return f > 0 && f <= 1 },
		func(c Config) float64 { return c.PromoteFloor }, func(c *Config, f float64) { c.PromoteFloor = f }},
	{"promoted_confidence", false, "a number greater than 0 and less than 1 (heat never confirms a link; 1.0 is a person's vote)",
		func(f float64) bool { return f > 0 && f < 1 },
		func(c Config) float64 { return c.PromotedConfidence }, func(c *Config, f float64) { c.PromotedConfidence = f }},
	{"prune_below", false, "a number of at least 0 and less than 1",
		func(f float64) bool { return f >= 0 && f < 1 },
		func(c Config) float64 { return c.PruneBelow }, func(c *Config, f float64) { c.PruneBelow = f }},
	{"payload_cache_gb", false, "a number of at least 0 (0 keeps nothing)", nonNegative,
		func(c Config) float64 { return c.PayloadCacheGB }, func(c *Config, f float64) { c.PayloadCacheGB = f }},
	{"fat_degree", true, "an integer of at least 1", atLeastOne,
		func(c Config) float64 { return float64(c.FatDegree) }, func(c *Config, f float64) { c.FatDegree = int(f) }},
	{"split_entries", true, "an integer of at least 1", atLeastOne,
		func(c Config) float64 { return float64(c.SplitEntries) }, func(c *Config, f float64) { c.SplitEntries = int(f) }},
	{"split_tokens", true, "an integer of at least 1", atLeastOne,
		func(c Config) float64 { return float64(c.SplitTokens) }, func(c *Config, f float64) { c.SplitTokens = int(f) }},
}

// maxCount bounds the integer keys, so a huge value cannot overflow int.
const maxCount = 1 << 31

func positive(f float64) bool    { return f > 0 }
func nonNegative(f float64) bool { return f >= 0 }
func atLeastOne(f float64) bool  { return f >= 1 && f <= maxCount }

// LoadConfig reads ConfigFile of the forest at dir. A missing file means
// DefaultConfig; a malformed one is E_SCHEMA naming the file and the key.
func LoadConfig(dir string) (Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ConfigFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return DefaultConfig(), nil
	}
	if err != nil {
		return Config{}, envelope.New(envelope.Schema, ConfigFile+" cannot be read", configHint()).
			With("detail", err.Error())
	}
	return ParseConfig(data)
}

// ParseConfig reads the YAML text of ConfigFile over DefaultConfig: each
// key present overrides its default, and a null value means absent. An
// empty document is the defaults. Invalid YAML, a document that is not a
// mapping, an unknown key or a value of the wrong type or out of range is
// E_SCHEMA naming the key, what arrived and what was expected.
func ParseConfig(data []byte) (Config, error) {
	c := DefaultConfig()
	var doc any
	if err := yaml.UnmarshalWithOptions(data, &doc, yaml.UseOrderedMap()); err != nil {
		return Config{}, envelope.New(envelope.Schema,
			ConfigFile+" is not valid YAML: "+firstLine(err.Error()), configHint())
	}
	if doc == nil {
		return c, nil
	}
	m, ok := doc.(yaml.MapSlice)
	if !ok {
		return Config{}, envelope.New(envelope.Schema,
			fmt.Sprintf("%s must be a mapping of keys to numbers, got %s", ConfigFile, kindOf(doc)), configHint())
	}
	for _, item := range m {
		name := fmt.Sprint(item.Key)
		k, ok := lookupKey(name)
		if !ok {
			return Config{}, envelope.New(envelope.Schema,
				fmt.Sprintf("%s: unknown key '%s'", ConfigFile, name), configHint()).With("key", name)
		}
		if item.Value == nil {
			continue
		}
		f, ok := number(item.Value, k.integer)
		if !ok || !k.ok(f) {
			return Config{}, envelope.New(envelope.Schema,
				fmt.Sprintf("%s: %s expects %s, got %s", ConfigFile, name, k.rule, kindOf(item.Value)), configHint()).
				With("key", name)
		}
		k.set(&c, f)
	}
	return c, nil
}

// Validate checks a Config built in code (WithConfig) against the rules
// ParseConfig enforces on the file.
func (c Config) Validate() error {
	for _, k := range configKeys {
		if f := k.get(c); math.IsNaN(f) || math.IsInf(f, 0) || !k.ok(f) {
			return envelope.New(envelope.Schema,
				fmt.Sprintf("ranger config: %s expects %s, got %v", k.name, k.rule, f), configHint()).With("key", k.name)
		}
	}
	return nil
}

func lookupKey(name string) (configKey, bool) {
	for _, k := range configKeys {
		if k.name == name {
			return k, true
		}
	}
	return configKey{}, false
}

// number reads a YAML scalar as a finite number; integer keys take
// integers only (no 3.0, no booleans, no strings), as C.12 types them.
func number(v any, integer bool) (float64, bool) {
	var f float64
	isInt := true
	switch t := v.(type) {
	case int:
		f = float64(t)
	case int64:
		f = float64(t)
	case uint64:
		f = float64(t)
	case float64:
		f, isInt = t, false
	default:
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || (integer && !isInt) {
		return 0, false
	}
	return f, true
}

// kindOf names what arrived, for a refusal: the value itself when it is a
// short scalar, else its shape.
func kindOf(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(t)
	case string:
		if len(t) > 40 {
			t = t[:40] + "…"
		}
		return "string " + strconv.Quote(t)
	case int, int64, uint64, float64:
		return fmt.Sprint(t)
	case []any:
		return "a list"
	case yaml.MapSlice:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}

func configHint() string {
	var b strings.Builder
	b.WriteString("Accepted keys (defaults): ")
	def := DefaultConfig()
	for i, k := range configKeys {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (%s)", k.name, strconv.FormatFloat(k.get(def), 'f', -1, 64))
	}
	b.WriteString(". Delete the file to run with the defaults.")
	return b.String()
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}
