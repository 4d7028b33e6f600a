// SPDX-License-Identifier: Apache-2.0

package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/testforest"
)

func TestHeatModeCommand(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	steps := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"heat-mode", "--forest", dir}, exitOK, "unconditioned\n"},
		{[]string{"heat-mode", "--forest", dir, "conditioned"}, exitOK, "conditioned\n"},
		{[]string{"heat-mode", "--forest", dir, "--json"}, exitOK, `{"heat_mode":"conditioned"}` + "\n"},
		{[]string{"heat-mode", "--forest", dir, "warm"}, exitFailure, ""},
		{[]string{"heat-mode", "--forest", dir}, exitOK, "conditioned\n"},
		{[]string{"heat-mode", "--forest", dir, "unconditioned", "conditioned"}, exitUsage, ""},
		{[]string{"heat-mode", "--forest", dir, "unconditioned"}, exitOK, "unconditioned\n"},
	}
	for _, st := range steps {
		code, out, _ := runCLI(t, "", st.args...)
		require.Equal(t, st.code, code, "%v: %s", st.args, out)
		if st.code == exitFailure {
			assert.Contains(t, out, `"E_SCHEMA"`)
			assert.Contains(t, out, `'mode'`, "the refusal names the parameter")
			continue
		}
		if st.out != "" {
			assert.Equal(t, st.out, out, "%v", st.args)
		}
	}
	head := testforest.Head(t, dir)
	code, _, _ := runCLI(t, "", "heat-mode", "--forest", dir, "conditioned")
	require.Equal(t, exitOK, code)
	assert.Equal(t, head, testforest.Head(t, dir), "the mode is derived state: no commit")
}
