// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const input = "BenchmarkA/x-2  10  2000000 ns/op  3.0 p95-ms\nBenchmarkA/x-2  10  2200000 ns/op  5.0 p95-ms\n"

func TestRunRendersAndChecksTargets(t *testing.T) {
	dir := t.TempDir()
	targets := filepath.Join(dir, "targets.txt")
	require.NoError(t, os.WriteFile(targets, []byte("^BenchmarkA/ p95-ms 3.5\n"), 0o644))

	var out, errOut bytes.Buffer
	code := run([]string{"-targets", targets}, strings.NewReader(input), &out, &errOut)
	assert.Equal(t, 0, code, errOut.String())
	assert.Regexp(t, `BenchmarkA/x\s+2\s+2\.10ms\s+4\.00\s+p95-ms<3\.5 MISS`, out.String())
	assert.Contains(t, out.String(), "1 target(s) missed")

	out.Reset()
	code = run([]string{"-strict", "-targets", targets}, strings.NewReader(input), &out, &errOut)
	assert.Equal(t, 1, code, "strict fails on a miss")

	file := filepath.Join(dir, "bench.txt")
	require.NoError(t, os.WriteFile(file, []byte(input), 0o644))
	out.Reset()
	assert.Equal(t, 0, run([]string{file}, strings.NewReader(""), &out, &errOut))
	assert.Contains(t, out.String(), "BenchmarkA/x")
}

func TestRunRefusals(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.Equal(t, 2, run([]string{"-nope"}, strings.NewReader(""), &out, &errOut))
	assert.Equal(t, 1, run([]string{"-targets", filepath.Join(t.TempDir(), "missing")}, strings.NewReader(""), &out, &errOut))
	bad := filepath.Join(t.TempDir(), "bad.txt")
	require.NoError(t, os.WriteFile(bad, []byte("^A p95-ms\n"), 0o644))
	errOut.Reset()
	assert.Equal(t, 1, run([]string{"-targets", bad}, strings.NewReader(""), &out, &errOut))
	assert.Contains(t, errOut.String(), "line 1")
	assert.Equal(t, 1, run([]string{filepath.Join(t.TempDir(), "none.txt")}, strings.NewReader(""), &out, &errOut))
}
