// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const ledger = "finance/ledger-2026"

// signIn opens the Studio with a key and dismisses the first-access card.
func signIn(t *testing.T, ctx context.Context, base, key string) {
	t.Helper()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name="key"]`)),
		input(`input[name="key"]`, key), click(`form button[type="submit"]`), waitFor(`document.querySelector('dialog.welcome[open]')`),
		click(`dialog.welcome button`), waitFor(`document.querySelector('nav a[data-console]') && !document.querySelector('dialog.welcome')`)))
}

// historyOf lists the commit messages of a node, newest first.
func historyOf(t *testing.T, base, key, id string) []string {
	var h struct{ Entries []struct{ Message string } }
	post(t, base, "/v1/forests/"+forestID+"/history", key, map[string]any{"id": id}, &h)
	var out []string
	for _, e := range h.Entries {
		out = append(out, e.Message)
	}
	return out
}

// dataConsole is 10 §6.7 end to end with the owner's key: rows paged,
// sorted and filtered; a draft staged, kept across leaving, compiled
// into the fewest statements and applied one tend each; the SQL tab's
// two refusals told apart; notes saved as one graft; a dataset created
// by one plant and another imported by one upload ingest.
func dataConsole(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	signIn(t, ctx, base, login.Key)
	rowsReady := `document.querySelector('table.rows tbody tr[data-rowid]')`
	status := `document.querySelector('main p.meta[role="status"]').textContent`

	// Rows: the first page of 330, then sorted, then filtered.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/data?dataset="+ledger), waitFor(rowsReady)))
	assert.Contains(t, eval[string](t, ctx, status), "1–50 of 330")
	require.NoError(t, chromedp.Do(ctx, click(`button[data-sort="amount"]`),
		waitFor(`document.querySelector('th[aria-sort="ascending"] button[data-sort="amount"]') && document.querySelector('table.rows tbody tr[data-rowid]')`)))
	amounts := eval[[]float64](t, ctx, `[...document.querySelectorAll('table.rows tbody td[data-col="amount"]')].map(td => Number(td.textContent))`)
	assert.IsNonDecreasing(t, amounts, "sorted by amount")
	require.NoError(t, chromedp.Do(ctx, input(`input[aria-label="Filter account"]`, "fuel"),
		waitFor(status+`.includes('of 66')`)))
	accounts := eval[[]string](t, ctx, `[...document.querySelectorAll('table.rows tbody td[data-col="account"]')].map(td => td.textContent)`)
	assert.NotEmpty(t, accounts)
	for _, a := range accounts {
		assert.Equal(t, "fuel", a)
	}
	assert.NotRegexp(t, `amount|fuel`, location(t, ctx), "sort and filters are tab memory, never the address")

	// A draft: the same memo on two rows shares one UPDATE, a deletion
	// comes last, a new row joins one INSERT.
	edit := func(i int, v string) chromedp.Action[chromedp.Void] {
		return chromedp.Steps(
			js(`document.querySelectorAll('table.rows tbody tr[data-rowid]')[`+strconv.Itoa(i)+`].querySelector('td[data-col="memo"]').click()`),
			waitFor(`document.querySelector('input.cell')`),
			js(`(() => { const i = document.querySelector('input.cell'); i.value = `+jsString(v)+`; i.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); })()`),
			waitFor(`!document.querySelector('table.rows input.cell')`))
	}
	rowids := eval[[]string](t, ctx, `[...document.querySelectorAll('table.rows tbody tr[data-rowid]')].slice(0, 3).map(r => r.dataset.rowid)`)
	require.NoError(t, chromedp.Do(ctx, edit(0, "checked"), edit(1, "checked"),
		js(`document.querySelectorAll('table.rows tbody tr[data-rowid]')[2].querySelector('button.icon').click()`),
		js(`(() => { for (const [c, v] of [['day', '2026-12-01'], ['account', 'ice'], ['port', 'Itajaí'], ['amount', '-12.5'], ['memo', 'staged row']]) document.querySelector('form.new-row input[data-col="'+c+'"]').value = v; })()`),
		click(`form.new-row button[type="submit"]`), waitFor(`document.querySelector('.draft-bar pre')`)))
	stmts := strings.Split(text(t, ctx, ".draft-bar pre"), ";\n")
	require.Len(t, stmts, 3, "one UPDATE for two rows, one INSERT, one DELETE")
	pair := []string{rowids[0], rowids[1]}
	slices.SortFunc(pair, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
	assert.Equal(t, `UPDATE "ledger" SET "memo" = 'checked' WHERE rowid IN (`+pair[0]+", "+pair[1]+")", stmts[0])
	assert.True(t, strings.HasPrefix(stmts[1], `INSERT INTO "ledger" ("day", "account", "port", "amount", "memo") VALUES ('2026-12-01', 'ice', 'Itajaí', -12.5, 'staged row')`), stmts[1])
	assert.Equal(t, `DELETE FROM "ledger" WHERE rowid IN (`+rowids[2]+")", stmts[2])
	shoot(t, ctx, "data-draft")
	axe(t, ctx, "data draft")

	// Leaving keeps the draft; it is named in the list and still there on return.
	require.NoError(t, chromedp.Do(ctx, click(`button.leave`), waitFor(`document.querySelector('main .badge.draft')`)))
	assert.Contains(t, text(t, ctx, "main .badge.draft"), "4 staged")
	require.NoError(t, chromedp.Do(ctx, chromedp.NavigateBack(), waitFor(`document.querySelector('.draft-bar pre')`)))

	// Apply: one tend per statement, each its own commit.
	before := len(historyOf(t, base, login.Key, ledger))
	require.NoError(t, chromedp.Do(ctx, click(`.draft-bar button.apply`), waitFor(`!document.querySelector('.draft-bar pre') && `+rowsReady)))
	log := historyOf(t, base, login.Key, ledger)
	require.Len(t, log, before+3, "three statements, three commits")
	assert.Equal(t, []string{"tend(finance/ledger-2026): DELETE 1 row(s)", "tend(finance/ledger-2026): INSERT 1 row(s)",
		"tend(finance/ledger-2026): UPDATE 2 row(s)"}, log[:3])
	assert.Contains(t, eval[string](t, ctx, status), "of 65", "one fuel row deleted, the new row is ice")

	// SQL: invalid and forbidden are told apart; a good query answers a table.
	require.NoError(t, chromedp.Do(ctx, click(`button[data-tab="sql"]`), waitFor(`document.querySelector('textarea.sql')`)))
	assert.Equal(t, "true", attr(t, ctx, "pre.sql-mirror", "aria-hidden"), "the highlighted mirror is hidden from readers")
	runSQL := func(q string, want string) {
		t.Helper()
		require.NoError(t, chromedp.Do(ctx,
			js(`(() => { const a = document.querySelector('textarea.sql'); a.value = `+jsString(q)+`; a.dispatchEvent(new Event('input')); })()`),
			click(`main form.card button[type="submit"]`), waitFor(`document.querySelector('`+want+`')`)), q)
	}
	runSQL("SELECT nope FROM ledger", ".refusal.invalid")
	assert.Equal(t, "E_QUERY_INVALID", attr(t, ctx, ".refusal", "data-code"))
	runSQL("DELETE FROM ledger WHERE 1", ".refusal.forbidden")
	assert.Equal(t, "E_QUERY_FORBIDDEN", attr(t, ctx, ".refusal", "data-code"))
	runSQL("SELECT account, COUNT(*) AS n FROM ledger GROUP BY account ORDER BY account", "main table.grid tbody tr")
	assert.Equal(t, "fuel", text(t, ctx, "main table.grid tbody tr:nth-child(1) td"))
	assert.Contains(t, text(t, ctx, "pre.sql-mirror .tok-kw"), "SELECT")
	shoot(t, ctx, "data-sql")
	axe(t, ctx, "data sql")

	// Structure is read-only; notes are one graft, appended then replaced.
	require.NoError(t, chromedp.Do(ctx, click(`button[data-tab="structure"]`), waitFor(`document.querySelector('main pre.json')`)))
	assert.Contains(t, text(t, ctx, "main pre.json"), "CREATE TABLE")
	shoot(t, ctx, "data-structure")
	for i, note := range []string{"Amounts are BRL.", "Amounts are BRL; costs are negative."} {
		require.NoError(t, chromedp.Do(ctx, click(`button[data-tab="notes"]`), waitFor(`document.querySelector('textarea[name="notes"]')`),
			js(`document.querySelector('textarea[name="notes"]').value = `+jsString(note)),
			click(`main form.card button[type="submit"]`), waitFor(`document.querySelector('.notes-body').textContent.includes(`+jsString(note)+`)`)))
		assert.Regexp(t, `^graft\(finance/ledger-2026\)`, historyOf(t, base, login.Key, ledger)[0], "note %d", i)
	}
	assert.Contains(t, location(t, ctx), "tab=notes", "the tab round-trips through the address")
	require.NoError(t, chromedp.Do(ctx, chromedp.Reload(), waitFor(`document.querySelector('.notes-body')`)))
	assert.Contains(t, text(t, ctx, ".notes-body"), "costs are negative")
	shoot(t, ctx, "data-notes")

	// Create: one plant with a declarative schema, then the new dataset.
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/data"), waitFor(`document.querySelector('form.create-dataset select option[value="finance/_index"]')`),
		js(`document.querySelector('form.create-dataset').closest('details').open = true`),
		input(`form.create-dataset input[name="title"]`, "Catch log"),
		js(`(() => { const s = document.querySelector('form.create-dataset select[name="parent"]'); s.value = 'finance/_index'; s.dispatchEvent(new Event('change')); })()`),
		input(`form.create-dataset textarea[name="summary"]`, "Daily catch per boat in kilograms, one row per landing."),
		waitFor(`document.querySelector('code.leaf-id').textContent === 'finance/catch-log'`)))
	shoot(t, ctx, "data-create")
	axe(t, ctx, "data create")
	require.NoError(t, chromedp.Do(ctx, click(`form.create-dataset button[type="submit"]`),
		waitFor(`location.search.includes('dataset=finance%2Fcatch-log') && document.querySelector('main p.meta[role="status"]') && document.querySelector('main p.meta[role="status"]').textContent.includes('of 0')`)))
	assert.Regexp(t, `^plant\(finance/catch-log\)`, historyOf(t, base, login.Key, "finance/catch-log")[0])

	// Import: one file, one upload ingest; the list refreshes when it settles.
	csv := filepath.Join(t.TempDir(), "tides.csv")
	require.NoError(t, os.WriteFile(csv, []byte("day,height_m\n2026-12-01,1.4\n2026-12-02,1.6\n"), 0o644))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/data"), waitFor(`document.querySelector('form.import-dataset select option[value="finance/_index"]')`),
		js(`document.querySelector('form.import-dataset').closest('details').open = true`),
		chromedp.SetUploadFiles(chromedp.CSS(`form.import-dataset input[type="file"]`), []string{csv}),
		js(`document.querySelector('form.import-dataset select[name="dest"]').value = 'finance/_index'`),
		click(`form.import-dataset button[type="submit"]`), waitFor(`document.querySelector('[data-job-state]')`)))
	assert.Equal(t, "done", attr(t, ctx, "[data-job-state]", "data-job-state"), text(t, ctx, "[data-job-state]"))
	assert.Contains(t, text(t, ctx, "main ul.results"), "finance/tides", "the imported dataset is listed")

	// Read offers the dataset's payload and a branch's zip, fetched with the key.
	blob := func(rest, want string) string {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import(new URL('api.js', document.querySelector('script[type="module"]').src).href).then(m => m.forestBlob('`+forestID+`', '`+rest+`', 'x'))
			.then(async r => r.name + ' ' + new TextDecoder().decode(await r.blob.slice(0, `+strconv.Itoa(len(want))+`).arrayBuffer()))`,
			chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
		require.NoError(t, err, rest)
		return got
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/read?node="+ledger), waitFor(`document.querySelector('button.payload-download')`),
		click(`button.payload-download`), waitFor(`!document.querySelector('button.payload-download').disabled`)))
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('main [role="alert"]')`), "the payload download was refused")
	assert.Equal(t, "x SQLite format 3", blob("payload/finance/ledger-2026", "SQLite format 3"))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(base+"/f/"+forestID+"/read?node=finance/_index"), waitFor(`document.querySelector('button.export-branch')`),
		click(`button.export-branch`), waitFor(`!document.querySelector('button.export-branch').disabled`)))
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('main [role="alert"]')`), "the branch export was refused")
	assert.Regexp(t, `\.zip PK$`, blob("export/finance/_index?recursive=true", "PK"))
	assert.False(t, eval[bool](t, ctx, `!!document.querySelector('button.payload-download')`), "a branch has no payload")
}
