// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

func TestKeysAddListRevoke(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.json")
	code, out, stderr := runCLI(t, "", "keys", "add", "--keys", file, "--label", "reports", "--forest", "acme",
		"--allow", "sales/", "--deny", "sales/payroll/", "--caps", "read,query", "--mask", "read", "--expires", "30d")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "shown once")
	var added map[string]string
	require.NoError(t, json.Unmarshal([]byte(out), &added))
	secret := added["secret"]
	assert.Regexp(t, `^mk_[A-Za-z0-9_-]{43}$`, secret)
	assert.Equal(t, secret[:9], added["prefix"])
	assert.Equal(t, keys.Digest(secret), added["sha256"])

	data, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.NotContains(t, string(data), secret[3:], "the file never holds the secret")
	f, err := keys.Parse(data)
	require.NoError(t, err)
	require.Len(t, f.Keys, 1)
	k := f.Keys[0]
	assert.Equal(t, vine.Policy{Allow: []string{"sales/"}, Deny: []string{"sales/payroll/"},
		Caps: []vine.Capability{vine.CapRead, vine.CapQuery}}, k.Grants["acme"])
	assert.Equal(t, []vine.Capability{vine.CapRead}, k.Caps)

	code, _, stderr = runCLI(t, "", "keys", "add", "--keys", file, "--label", "reports", "--forest", "acme", "--all")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "taken")

	code, out, _ = runCLI(t, "", "keys", "list", "--keys", file)
	require.Equal(t, exitOK, code)
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &listed))
	require.Len(t, listed, 1)
	assert.Equal(t, "active", listed[0]["status"])
	assert.NotContains(t, out, secret[3:])

	code, out, stderr = runCLI(t, "", "keys", "revoke", "--keys", file, "--key", "reports")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, `"status":"revoked"`)
}

func TestKeysUsage(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.yaml")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no action", []string{"keys"}, exitUsage, "add, list or revoke"},
		{"unknown action", []string{"keys", "rotate"}, exitUsage, `unknown action "rotate"`},
		{"add without forest", []string{"keys", "add", "--keys", file, "--label", "x"}, exitUsage, "--forest F are required"},
		{"add without a grant", []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "f"}, exitUsage, "--allow PREFIX (repeatable) or --all"},
		{"add with both grants", []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "f", "--all", "--allow", "a/"}, exitUsage, "not both"},
		{"unknown cap", []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "f", "--all", "--caps", "read,root"}, exitUsage, `unknown capability "root"`},
		{"too long", []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "f", "--all", "--expires", "400d"}, exitUsage, "at most 365d"},
		{"bad lifetime", []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "f", "--all", "--expires", "soon"}, exitUsage, "expected days"},
		{"list without file", []string{"keys", "list"}, exitUsage, "--keys FILE is required"},
		{"revoke without key", []string{"keys", "revoke", "--keys", file}, exitUsage, "--key SHA256|LABEL is required"},
		{"revoke unknown", []string{"keys", "revoke", "--keys", file, "--key", "nobody"}, exitFailure, "no key"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCLI(t, "", tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.want)
		})
	}
	_, err := os.Stat(file)
	assert.True(t, os.IsNotExist(err), "a refused add writes nothing")
}

func TestKeysAddRefusesPrefixesThatMisgrant(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.yaml")
	tests := []struct {
		flag, value, want string
	}{
		{"--allow", "", "would grant the whole forest"},
		{"--allow", " ", "would grant the whole forest"},
		{"--allow", "sales/,", "would grant the whole forest"},
		{"--allow", "/", `starts with "/"`},
		{"--allow", "/sales/", `starts with "/"`},
		{"--allow", "*", "is a glob"},
		{"--allow", "sales/*", "is a glob"},
		{"--allow", "./sales", `"." segment`},
		{"--allow", "../", `".." segment`},
		{"--allow", "sales/../hr", `".." segment`},
		{"--allow", `sales\eu`, "backslash"},
		{"--allow", "sales/_index", "index id"},
		{"--deny", "", "would hide nothing"},
		{"--deny", "sales/[ab]", "is a glob"},
	}
	for _, tt := range tests {
		t.Run(tt.flag+"="+tt.value, func(t *testing.T) {
			args := []string{"keys", "add", "--keys", file, "--label", "x", "--forest", "acme", tt.flag, tt.value}
			if tt.flag == "--deny" {
				args = append(args, "--allow", "sales/")
			}
			code, out, stderr := runCLI(t, "", args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, out, "no secret is printed")
			assert.Contains(t, stderr, "E_SCHEMA: "+tt.flag+" ")
			assert.Contains(t, stderr, tt.want)
			assert.Contains(t, stderr, "hint: ")
		})
	}
	_, err := os.Stat(file)
	assert.True(t, os.IsNotExist(err), "a refused add writes nothing")
	code, _, stderr := runCLI(t, "", "keys", "add", "--keys", file, "--label", "x", "--forest", "acme", "--allow", "")
	require.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--allow ""`, "the refusal shows the value as given")
}

func TestKeysAddStoresGoodPrefixes(t *testing.T) {
	file := filepath.Join(t.TempDir(), "keys.yaml")
	tests := []struct {
		label string
		args  []string
		allow []string
		deny  []string
	}{
		{"branch", []string{"--allow", "sales/"}, []string{"sales/"}, []string{}},
		{"nested", []string{"--allow", "ops/runbooks/"}, []string{"ops/runbooks/"}, []string{}},
		{"bare", []string{"--allow", "sales"}, []string{"sales"}, []string{}},
		{"list", []string{"--allow", "sales/, ops/", "--deny", "sales/payroll/"}, []string{"sales/", "ops/"}, []string{"sales/payroll/"}},
		{"whole", []string{"--all", "--deny", "hr/"}, []string{""}, []string{"hr/"}},
	}
	for _, tt := range tests {
		args := append([]string{"keys", "add", "--keys", file, "--label", tt.label, "--forest", "acme"}, tt.args...)
		code, _, stderr := runCLI(t, "", args...)
		require.Equal(t, exitOK, code, stderr)
	}
	f, err := keys.ReadFile(file)
	require.NoError(t, err)
	require.Len(t, f.Keys, len(tests))
	for i, tt := range tests {
		g := f.Keys[i].Grants["acme"]
		assert.Equal(t, tt.allow, g.Allow, tt.label)
		assert.Equal(t, tt.deny, append([]string{}, g.Deny...), tt.label)
	}
}
