// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adoptRoot is the host folder the browser fixture's Station may read
// (its ingest root).
var adoptRoot string

// adoptAndSync: on a Station with an ingest root, an admin sees the
// adopt tab, mirrors a host folder into a branch through one job, and
// the optimize tab then offers the sync of that recorded source, which
// picks up a changed file.
func adoptAndSync(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	signIn(t, ctx, base, login.Key)
	src := filepath.Join(adoptRoot, "handbook")
	require.NoError(t, os.MkdirAll(src, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(src, "mooring.md"), []byte("# Mooring\n\nBow lines first, then springs; the harbour master checks the fenders at dusk.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(src, "fuel.md"), []byte("# Fuel dock\n\nThe fuel dock opens at seven and closes when the tide turns.\n"), 0o644))

	setDest := js(`(() => { const s = document.querySelector('form.adopt select[name="dest"]'); s.value = 'operations/_index'; s.dispatchEvent(new Event('change')); })()`)
	do(t, ctx, "ingest-adopt", chromedp.Navigate(base+"/f/"+forestID+"/ingest?mode=adopt"),
		afterLoad(`document.querySelector('form.adopt input[name="path"]') && document.querySelector('form.adopt select[name="dest"] option[value="operations/_index"]')`),
		input(`form.adopt input[name="path"]`, src), setDest)
	themed(t, ctx, "ingest-adopt")
	do(t, ctx, "ingest-adopted", click(`form.adopt button[type="submit"]`),
		waitFor(`location.search.includes('job=') && document.querySelector('[data-job-state="done"]')`))
	assert.Equal(t, "2", text(t, ctx, `[data-count="planted"]`), text(t, ctx, ".job"))
	var found struct{ Results []struct{ ID string } }
	post(t, base, "/v1/forests/"+forestID+"/locate", login.Key, map[string]any{"query": "fuel dock tide"}, &found)
	var ids []string
	for _, r := range found.Results {
		ids = append(ids, r.ID)
	}
	assert.Contains(t, ids, "operations/fuel", "locate finds the adopted node: the folder's files land in the destination branch")

	// The source is recorded: sync refreshes what changed.
	require.NoError(t, os.WriteFile(filepath.Join(src, "fuel.md"), []byte("# Fuel dock\n\nThe fuel dock now opens at six.\n"), 0o644))
	do(t, ctx, "ingest-sync", chromedp.Navigate(base+"/f/"+forestID+"/ingest?mode=optimize"),
		afterLoad(`document.querySelector('[data-card="sync"] button.sync') && !document.querySelector('[data-card="sync"] button.sync').disabled`),
		click(`[data-card="sync"] button.sync`),
		waitFor(`location.search.includes('job=') && document.querySelector('[data-job-state="done"]')`))
	assert.Equal(t, "1", text(t, ctx, `[data-count="updated"]`), text(t, ctx, ".job"))
	themed(t, ctx, "ingest-sync")
}
