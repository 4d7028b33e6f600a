// SPDX-License-Identifier: Apache-2.0

package station

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMCPTrailingSlash: <origin>/mcp/, the address the Studio teaches
// clients, is the MCP endpoint like /mcp; a path below it is not.
func TestMCPTrailingSlash(t *testing.T) {
	ts := newTestStation(t, nil)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`
	for _, tt := range []struct {
		path   string
		status int
		has    string
	}{
		{"/mcp", http.StatusOK, `"name":"locate"`},
		{"/mcp/", http.StatusOK, `"name":"locate"`},
		{"/mcp/elsewhere", http.StatusMethodNotAllowed, ""},
	} {
		req, err := http.NewRequest("POST", ts.url+tt.path, strings.NewReader(list))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		assert.Equal(t, tt.status, res.StatusCode, "%s: %s", tt.path, body)
		assert.Contains(t, string(body), tt.has, tt.path)
	}
}
