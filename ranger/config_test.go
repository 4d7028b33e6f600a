// SPDX-License-Identifier: Apache-2.0

package ranger_test

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/ranger"
)

func TestParseConfig(t *testing.T) {
	def := ranger.DefaultConfig()
	with := func(edit func(c *ranger.Config)) ranger.Config {
		c := def
		edit(&c)
		return c
	}
	tests := []struct {
		name string
		yaml string
		want ranger.Config
	}{
		{"empty file", "", def},
		{"comments only", "# nothing set yet\n", def},
		{"spec example", "half_life_days: 30\nsession_ttl_hours: 24\npromote_floor: 0.2\n" +
			"promoted_confidence: 0.8\nprune_below: 0.5\npayload_cache_gb: 5   # v0.11\n", def},
		{"one key", "half_life_days: 7\n", with(func(c *ranger.Config) { c.HalfLifeDays = 7 })},
		{"integer for a number", "promote_floor: 1\n", with(func(c *ranger.Config) { c.PromoteFloor = 1 })},
		{"null is absent", "prune_below: null\n", def},
		{"zero cache", "payload_cache_gb: 0\n", with(func(c *ranger.Config) { c.PayloadCacheGB = 0 })},
		{"health limits", "fat_degree: 80\nsplit_entries: 200\nsplit_tokens: 5000\n",
			with(func(c *ranger.Config) { c.FatDegree, c.SplitEntries, c.SplitTokens = 80, 200, 5000 })},
		{"flow mapping", "{half_life_days: 10}", with(func(c *ranger.Config) { c.HalfLifeDays = 10 })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ranger.ParseConfig([]byte(tc.yaml))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseConfigRefusals(t *testing.T) {
	tests := []struct {
		name, yaml string
		says       []string // the message names these
	}{
		{"not yaml", "half_life_days: [1,\n", []string{ranger.ConfigFile, "not valid YAML"}},
		{"a list", "- 1\n- 2\n", []string{"must be a mapping", "a list"}},
		{"a scalar", "30\n", []string{"must be a mapping", "30"}},
		{"unknown key", "half_life: 30\n", []string{"unknown key 'half_life'"}},
		{"duplicate key", "prune_below: 0.1\nprune_below: 0.2\n", []string{"not valid YAML"}},
		{"string number", "half_life_days: thirty\n", []string{"half_life_days", "a number greater than 0", `string "thirty"`}},
		{"quoted number", "half_life_days: '30'\n", []string{"half_life_days", `string "30"`}},
		{"boolean", "prune_below: true\n", []string{"prune_below", "boolean true"}},
		{"zero half-life", "half_life_days: 0\n", []string{"half_life_days", "greater than 0", "got 0"}},
		{"negative ttl", "session_ttl_hours: -1\n", []string{"session_ttl_hours", "got -1"}},
		{"floor over 1", "promote_floor: 1.5\n", []string{"promote_floor", "at most 1"}},
		{"promotion to 1.0", "promoted_confidence: 1.0\n", []string{"promoted_confidence", "less than 1", "vote"}},
		{"prune everything", "prune_below: 1\n", []string{"prune_below", "less than 1"}},
		{"not a number", "half_life_days: .nan\n", []string{"half_life_days", "NaN"}},
		{"infinite cache", "payload_cache_gb: .inf\n", []string{"payload_cache_gb"}},
		{"fractional count", "fat_degree: 50.5\n", []string{"fat_degree", "an integer"}},
		{"integral float count", "split_entries: 150.0\n", []string{"split_entries", "an integer"}},
		{"zero count", "split_tokens: 0\n", []string{"split_tokens", "at least 1"}},
		{"nested mapping", "half_life_days: {days: 3}\n", []string{"half_life_days", "a mapping"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ranger.ParseConfig([]byte(tc.yaml))
			var e *vine.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, vine.ESchema, e.Code)
			for _, s := range tc.says {
				assert.Contains(t, e.Message, s)
			}
			assert.Contains(t, e.Hint, "half_life_days (30)", "the hint lists the accepted keys with defaults")
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	got, err := ranger.LoadConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, ranger.DefaultConfig(), got, "no file, defaults")

	require.NoError(t, os.MkdirAll(filepath.Join(dir, "_meta"), 0o755))
	p := filepath.Join(dir, filepath.FromSlash(ranger.ConfigFile))
	require.NoError(t, os.WriteFile(p, []byte("payload_cache_gb: 0.5\n"), 0o644))
	got, err = ranger.LoadConfig(dir)
	require.NoError(t, err)
	assert.Equal(t, 0.5, got.PayloadCacheGB)

	require.NoError(t, os.Remove(p))
	require.NoError(t, os.Mkdir(p, 0o755)) // unreadable as a file
	_, err = ranger.LoadConfig(dir)
	assert.Equal(t, vine.ESchema, vine.CodeOf(err))
}

func TestConfigValidate(t *testing.T) {
	assert.NoError(t, ranger.DefaultConfig().Validate())
	for name, edit := range map[string]func(c *ranger.Config){
		"zero value":          func(c *ranger.Config) { *c = ranger.Config{} },
		"NaN floor":           func(c *ranger.Config) { c.PromoteFloor = math.NaN() },
		"promotion confirms":  func(c *ranger.Config) { c.PromotedConfidence = 1 },
		"negative cache":      func(c *ranger.Config) { c.PayloadCacheGB = -1 },
		"no fat threshold":    func(c *ranger.Config) { c.FatDegree = 0 },
		"infinite half-life":  func(c *ranger.Config) { c.HalfLifeDays = math.Inf(1) },
		"negative split size": func(c *ranger.Config) { c.SplitTokens = -3 },
	} {
		t.Run(name, func(t *testing.T) {
			c := ranger.DefaultConfig()
			edit(&c)
			assert.Equal(t, vine.ESchema, vine.CodeOf(c.Validate()))
		})
	}
}

// FuzzParseConfig: any bytes give either E_SCHEMA or a configuration that
// passes Validate; never a panic.
func FuzzParseConfig(f *testing.F) {
	for _, seed := range []string{"", "half_life_days: 30\n", "prune_below: 0.5\npromote_floor: 0.2\n",
		"- 1\n", "fat_degree: 50.5\n", "{a: [1, {b: 2}]}", "payload_cache_gb: .inf\n", "&a x: *a\n",
		"half_life_days: 1e400\n", "split_tokens: 99999999999999999999\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ranger.ParseConfig(data)
		if err != nil {
			if vine.CodeOf(err) != vine.ESchema {
				t.Fatalf("refusal is not E_SCHEMA: %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("accepted config fails Validate: %+v: %v", c, err)
		}
	})
}
