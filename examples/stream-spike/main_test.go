// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpikeShips(t *testing.T) {
	var out bytes.Buffer
	start := time.Now()
	code := run(&out)
	require.Equal(t, 0, code, out.String())
	assert.Less(t, time.Since(start), 10*time.Second)

	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	assert.Equal(t, "ship", lines[len(lines)-1])
	assert.Equal(t, "exits: 2 3 4 5 0", lines[len(lines)-2])
	for _, name := range []string{"trunc.txt", "bad_header.txt", "forbid.txt", "long.txt", "ok.txt",
		"remote: socket dropped", "remote: server hangs"} {
		assert.Contains(t, out.String(), name)
	}
	assert.Equal(t, 7, strings.Count(out.String(), " match"))
}
