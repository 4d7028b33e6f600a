// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/internal/wire"
)

var updateGolden = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// goldenCases are command lines whose whole output (stdout, stderr and
// exit code) is pinned in testdata/NAME.golden: help, version and the
// usage mistakes. Run "go test -run TestGolden -update" after an intended
// change and read the diff.
var goldenCases = []struct {
	name string
	args []string
}{
	{"root_help", []string{"--help"}},
	{"help", []string{"help"}},
	{"no_args", nil},
	{"version", []string{"version"}},
	{"version_flag", []string{"--version"}},
	{"version_json", []string{"version", "--json"}},
	{"serve_help", []string{"serve", "--help"}},
	{"help_serve", []string{"help", "serve"}},
	{"keys_help", []string{"keys", "--help"}},
	{"keys_add_help", []string{"keys", "add", "--help"}},
	{"help_keys_revoke", []string{"help", "keys", "revoke"}},
	{"call_help", []string{"call", "-h"}},
	{"canopy_build_help", []string{"canopy", "build", "--help"}},
	{"snapshot_help", []string{"snapshot", "--help"}},
	{"completion_help", []string{"completion", "--help"}},
	{"unknown_command", []string{"frobnicate"}},
	{"help_unknown", []string{"help", "nonsense"}},
	{"unknown_flag", []string{"validate", "--bogus"}},
	{"flag_without_value", []string{"serve", "--forest"}},
	{"keys_no_action", []string{"keys"}},
	{"keys_unknown_action", []string{"keys", "mint"}},
	{"no_forest", []string{"validate"}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, "", tc.args...)
			got := normalizeVersion(fmt.Sprintf("$ vine %s\nexit %d\n--- stdout\n%s--- stderr\n%s",
				strings.Join(tc.args, " "), code, out, errOut))
			path := filepath.Join("testdata", tc.name+".golden")
			if *updateGolden {
				require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				return
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run go test -run TestGolden -update to create it")
			assert.Equal(t, string(want), got)
		})
	}
}

// normalizeVersion replaces what differs between builds and machines.
func normalizeVersion(s string) string {
	return strings.NewReplacer(
		wire.Version(), "VERSION",
		runtime.Version(), "GOVERSION",
		runtime.GOOS+"/"+runtime.GOARCH, "OS/ARCH",
		`"os":"`+runtime.GOOS+`"`, `"os":"OS"`,
		`"arch":"`+runtime.GOARCH+`"`, `"arch":"ARCH"`,
	).Replace(s)
}

// TestEveryCommandHasHelp: --help on every command and subcommand prints
// its usage line on stdout and exits 0, and "vine help" lists it.
func TestEveryCommandHasHelp(t *testing.T) {
	_, list, _ := runCLI(t, "", "help")
	var walk func(path []string, names []string)
	walk = func(path []string, names []string) {
		for _, name := range names {
			args := append(append([]string{}, path...), name)
			code, out, errOut := runCLI(t, "", append(args, "--help")...)
			assert.Equal(t, exitOK, code, "%v --help: %s", args, errOut)
			assert.True(t, strings.HasPrefix(out, "usage: vine "+strings.Join(args, " ")), "%v --help: %s", args, out)
			hcode, hout, _ := runCLI(t, "", append([]string{"help"}, args...)...)
			assert.Equal(t, exitOK, hcode, "help %v", args)
			assert.Equal(t, out, hout, "vine help %v prints what --help does", args)
			walk(args, subcommands(out))
		}
	}
	top := subcommands(list)
	require.Contains(t, top, "serve")
	require.Contains(t, top, "keys")
	walk(nil, top)
}

// subcommands reads the "commands:" section of a help page.
func subcommands(help string) []string {
	_, section, ok := strings.Cut(help, "\ncommands:\n")
	if !ok {
		return nil
	}
	var names []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		if f := strings.Fields(line); len(f) > 0 && f[0] != "help" {
			names = append(names, f[0])
		}
	}
	return names
}

// TestShellCompletion: the scripts exist, and the hidden flag the scripts
// call completes commands and flags.
func TestShellCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish", "pwsh"} {
		code, out, _ := runCLI(t, "", "completion", shell)
		assert.Equal(t, exitOK, code, shell)
		assert.Contains(t, out, "--generate-shell-completion", shell)
	}
	// The root completes from the process's own arguments, so it runs as
	// a process.
	top, err := vineCommand("--generate-shell-completion").Output()
	require.NoError(t, err)
	assert.Contains(t, string(top), "serve:")
	code, out, _ := runCLI(t, "", "serve", "--fo", "--generate-shell-completion")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "--forest:")
	assert.Contains(t, out, "--forests:")
	code, out, _ = runCLI(t, "", "keys", "--generate-shell-completion")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "revoke:")
}
