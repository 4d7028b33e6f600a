// SPDX-License-Identifier: Apache-2.0

package ext_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/ext"
)

const goodManifest = `{
  "id": "whisper", "version": "1.2.0", "license": "MIT", "station_compat": ">=0.83,<0.84",
  "description": "transcribes audio",
  "permissions": {"network": ["api.example.com"], "filesystem": "read", "capabilities": ["ingest"]},
  "models": {"requires": ["transcribe_audio"], "registers": [{"role": "transcribe_audio", "kind": "transcribe"}]},
  "contributes": {
    "converters": [{"extensions": [".ogg", ".mp3"], "handler": "audio", "heavy": true}],
    "tools": [{"name": "x_whisper_transcribe", "handler": "transcribe", "description": "transcribe a file"}],
    "panel": "ui/panel.json"
  },
  "config": {"language": {"type": "string", "default": "en"}, "api_key": {"type": "string", "secret": true, "required": true}}
}`

func TestParseManifest(t *testing.T) {
	m, err := ext.ParseManifest([]byte(goodManifest))
	require.NoError(t, err)
	assert.Equal(t, "whisper", m.ID)
	assert.Equal(t, map[ext.Seam][]string{ext.SeamConverters: {"audio"}, ext.SeamTools: {"transcribe"}}, m.Handlers())
	assert.Equal(t, "x_whisper_", ext.Namespace(m.ID))
	assert.Equal(t, "x_speech_to_text_", ext.Namespace("speech-to-text"))
}

func TestParseManifestRefuses(t *testing.T) {
	edit := func(from, to string) string {
		if !strings.Contains(goodManifest, from) {
			t.Fatalf("fixture lacks %q", from)
		}
		return strings.Replace(goodManifest, from, to, 1)
	}
	tests := []struct {
		name, manifest, field string
	}{
		{"unknown top-level key", edit(`"description"`, `"homepage": "x", "description"`), ""},
		{"unknown nested key", edit(`"heavy": true`, `"heavy": true, "priority": 1`), ""},
		{"bad id", edit(`"whisper"`, `"Whisper"`), "id"},
		{"one-letter id", edit(`"whisper"`, `"w"`), "id"},
		{"missing version", edit(`"version": "1.2.0", `, ``), "version"},
		{"missing license", edit(`"license": "MIT", `, ``), "license"},
		{"unreadable compat", edit(`>=0.83,<0.84`, `>=0.83,soon`), "station_compat"},
		{"empty compat clause", edit(`>=0.83,<0.84`, `>=0.83,`), "station_compat"},
		{"tool outside namespace", edit(`x_whisper_transcribe`, `transcribe`), "contributes.tools[0].name"},
		{"extension without dot", edit(`".ogg"`, `"ogg"`), "contributes.converters[0].extensions[0]"},
		{"uppercase extension", edit(`".ogg"`, `".OGG"`), "contributes.converters[0].extensions[0]"},
		{"role kind", edit(`"kind": "transcribe"`, `"kind": "telepathy"`), "models.registers[0].kind"},
		{"role name", edit(`"requires": ["transcribe_audio"]`, `"requires": ["Transcribe"]`), "models.requires[0]"},
		{"config type", edit(`"type": "string", "default": "en"`, `"type": "list"`), "config.language.type"},
		{"filesystem", edit(`"filesystem": "read"`, `"filesystem": "all"`), "permissions.filesystem"},
		{"entry escapes", edit(`"description"`, `"entry": "../bin/x", "description"`), "entry"},
		{"panel escapes", edit(`"ui/panel.json"`, `"/etc/passwd"`), "contributes.panel"},
		{"trailing data", goodManifest + ` {}`, ""},
		{"not an object", `[]`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ext.ParseManifest([]byte(tc.manifest))
			var me *ext.ManifestError
			require.True(t, errors.As(err, &me), "want a *ManifestError, got %v", err)
			assert.Equal(t, tc.field, me.Field, "%v", err)
		})
	}
}

func TestCompatible(t *testing.T) {
	tests := []struct {
		spec, host string
		want       bool
	}{
		{">=0.83,<0.84", "0.83.5", true},
		{">=0.83,<0.84", "v0.84.0", false},
		{">=0.83,<0.84", "0.82.9", false},
		{"0.83", "0.83.0", true}, // no operator is ==, tuples zero-padded
		{"==0.83", "0.83.1", false},
		{"!=1.0", "1.0.0", false},
		{">1", "1.0.1", true},
		{"<=2.0", "2", true},
		{">=0.83", "v0.90.0-rc1+meta", true},
		{">=99", "(devel)", true}, // a development build admits every readable range
		{">=99", "devel+abc123", true},
	}
	for _, tc := range tests {
		got, err := ext.Compatible(tc.spec, tc.host)
		require.NoError(t, err, tc.spec)
		assert.Equal(t, tc.want, got, "%s against %s", tc.spec, tc.host)
	}
	for _, bad := range []string{"", ">=", ">=a.b", "~1.2", ">=1..2", ">=-1", "1.2,", ">= 1.x"} {
		_, err := ext.Compatible(bad, "1.0")
		assert.Error(t, err, "%q", bad)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte(`{"id":"ab","version":"1","license":"x","station_compat":"1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ext.ParseManifest(data)
		if err != nil {
			var me *ext.ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("a refusal that is not a *ManifestError: %v", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		if _, err := ext.Compatible(m.StationCompat, "1.0.0"); err != nil {
			t.Fatalf("parsed with an unreadable range: %v", err)
		}
	})
}
