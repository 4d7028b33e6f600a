// SPDX-License-Identifier: Apache-2.0

package rest_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/gardener"
)

func TestIngestStatus(t *testing.T) {
	roots := t.TempDir()
	src := filepath.Join(roots, "notes")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "a.txt"), []byte("A note about tides and moorings.\n"), 0o644))
	st := newStation(t, func(o *rest.Options) { o.IngestRoots = []string{roots} })
	path := "/v1/forests/" + forestID + "/ingest"
	var status struct {
		Source   *string           `json:"source"`
		CanSync  bool              `json:"can_sync"`
		HostPath bool              `json:"host_paths"`
		Formats  []gardener.Format `json:"formats"`
	}
	r := st.do("GET", path, keyFull, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.NoError(t, json.Unmarshal([]byte(r.body), &status))
	assert.Nil(t, status.Source, "nothing adopted yet")
	assert.False(t, status.CanSync)
	assert.True(t, status.HostPath)
	assert.Contains(t, status.Formats, gardener.Format{Extension: ".md", Via: "builtin"}, "the formats some converter claims")
	assert.True(t, slices.IsSortedFunc(status.Formats, func(a, b gardener.Format) int { return strings.Compare(a.Extension, b.Extension) }),
		"one list, in extension order")

	adopt, _ := json.Marshal(map[string]any{"mode": "adopt", "path": src, "dest": "operations", "wait": true})
	require.Equal(t, http.StatusOK, st.post(keyFull, "ingest", string(adopt)).status)
	r = st.do("GET", path, keyFull, "")
	require.NoError(t, json.Unmarshal([]byte(r.body), &status))
	require.NotNil(t, status.Source)
	assert.True(t, status.CanSync, "the recorded root lies inside the ingest roots")

	envelope(t, st.do("GET", path, keyRead, ""), http.StatusForbidden, vine.EForbidden)
	envelope(t, st.do("GET", path, keyOther, ""), http.StatusNotFound, vine.ENotFound)
}
