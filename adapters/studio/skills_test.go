// SPDX-License-Identifier: Apache-2.0

package studio_test

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readOnlyKey makes a person holding read alone on the forest (no
// answer, no admin) and returns their key.
func readOnlyKey(t *testing.T, base, ownerKey, principal string) string {
	var person struct {
		APIKey string `json:"api_key"`
	}
	post(t, base, "/v1/admin/people", ownerKey, map[string]any{"principal": principal, "issue_key": true,
		"grant": map[string]any{"forest": forestID, "caps": []string{"read"}}}, &person)
	require.NotEmpty(t, person.APIKey)
	return person.APIKey
}

// skillsConsole is F.52 under a key holding read alone: the console is
// listed, the skill names this origin and forest and teaches no answer,
// a block beyond the key names its cap first, the choices ride the
// address, the .zip downloads and unzips to the text shown, and the
// page asked no route beyond the ones any key already has.
func skillsConsole(t *testing.T, ctx context.Context, base string) {
	var login struct{ Key string }
	post(t, base, "/v1/auth/login", "", map[string]string{"username": owner, "password": ownerPwd}, &login)
	key := readOnlyKey(t, base, login.Key, "sol")
	var health struct{ Version string }
	get := func(path string, out any) {
		res, err := http.Get(base + path)
		require.NoError(t, err)
		defer res.Body.Close()
		require.NoError(t, json.NewDecoder(res.Body).Decode(out))
	}
	get("/v1/health", &health)
	require.NotEmpty(t, health.Version)

	downloads := t.TempDir()
	_, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads})
	require.NoError(t, err)

	signIn(t, ctx, base, key)
	skillReady := `document.querySelector('[data-file="SKILL.md"] pre')`
	do(t, ctx, "skills", click(`nav a[data-console="skills"]`), waitFor(skillReady),
		chromedp.Navigate(base+"/f/"+forestID+"/skills"), afterLoad(skillReady)) // a fresh page: its requests are the console's
	askedOnlyOldRoutes(t, ctx)
	assert.Zero(t, eval[int](t, ctx, `document.querySelectorAll('nav a[data-console="integrations"]').length`), "integrations is for admins")
	core := text(t, ctx, `[data-file="SKILL.md"] pre`)
	assert.Contains(t, core, base, "the skill names this origin")
	assert.Contains(t, core, forestID, "and the forest")
	assert.Contains(t, core, "name: monkeyllm-"+forestID+"\n")
	assert.Contains(t, core, `station: "`+health.Version+`"`)
	assert.Contains(t, core, `"forest": "`+forestID+`"`, "every example carries forest")
	assert.NotContains(t, core, "answer(", "answer is taught only when held")
	for _, ref := range []string{"references/time.md", "references/sharing.md"} {
		assert.Contains(t, core, ref, "the core names %s with its trigger", ref)
	}
	for _, ref := range []string{"saving", "writing", "datasets"} {
		assert.NotContains(t, core, "references/"+ref+".md", "a block beyond read is not chosen by default")
	}
	assert.Contains(t, text(t, ctx, `[data-snippet="pair"]`), base+"/v1/auth/pair")
	assert.Contains(t, text(t, ctx, `[data-snippet="pair"]`), `"label"`)
	assert.Contains(t, text(t, ctx, `[data-snippet="connect"]`), "claude mcp add --transport http monkeyllm "+base+"/mcp/ --header \"Authorization: Bearer mk_")
	themed(t, ctx, "skills")
	shootAt(t, ctx, "skills-install", `[data-step="3"]`)

	// The walkthrough is translated; the skill stays English.
	do(t, ctx, "skills-pt", setLanguage("pt"), waitFor(`document.querySelector('[data-step="1"] h2') && document.querySelector('[data-step="1"] h2').textContent.includes('Parear uma chave') && document.querySelector('[data-file="SKILL.md"] pre')`))
	assert.Contains(t, text(t, ctx, `[data-file="SKILL.md"] pre`), "## Recall before answering")
	themed(t, ctx, "skills-pt")
	do(t, ctx, "skills-en", setLanguage("en"), waitFor(`document.querySelector('[data-step="1"] h2') && document.querySelector('[data-step="1"] h2').textContent.includes('Pair a key') && document.querySelector('[data-file="SKILL.md"] pre')`))

	// A block beyond the key: chosen, it rides the address and names its cap first.
	do(t, ctx, "skills-block", click(`input[name="block"][value="writing"]`),
		waitFor(`document.querySelector('[data-file="references/writing.md"] pre')`))
	assert.Contains(t, location(t, ctx), "blocks=writing%2Ctime%2Csharing")
	assert.True(t, strings.HasPrefix(eval[string](t, ctx, `document.querySelector('[data-file="references/writing.md"] pre').textContent`), "> Needs the `write` capability"), "a block beyond the key names its cap first")
	do(t, ctx, "skills-reload", chromedp.Reload(), afterLoad(`document.querySelector('[data-file="references/writing.md"] pre')`))
	shown := map[string]string{}
	for _, f := range []string{"SKILL.md", "references/writing.md", "references/time.md", "references/sharing.md"} {
		shown[f] = eval[string](t, ctx, `document.querySelector('[data-file="`+f+`"] pre').textContent`)
	}
	themed(t, ctx, "skills-block")

	// The download: a zip of stored entries under one folder named as the archive.
	do(t, ctx, "skills-download", click(`button[data-download="zip"]`))
	name := "monkeyllm-" + forestID
	archive := filepath.Join(downloads, name+".zip")
	require.Eventually(t, func() bool { _, err := os.Stat(archive); return err == nil }, 2*time.Minute, 50*time.Millisecond, "the .zip arrives")
	zr, err := zip.OpenReader(archive)
	require.NoError(t, err)
	defer zr.Close()
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		assert.Equal(t, zip.Store, f.Method, "%s is stored", f.Name)
		rc, err := f.Open()
		require.NoError(t, err)
		body, err := io.ReadAll(rc) // the reader checks the CRC-32 at EOF
		require.NoError(t, err, f.Name)
		rc.Close()
		assert.Equal(t, shown[strings.TrimPrefix(f.Name, name+"/")], string(body), "%s is the text shown", f.Name)
	}
	assert.Equal(t, []string{name + "/SKILL.md", name + "/references/writing.md", name + "/references/time.md", name + "/references/sharing.md"}, names)

	askedOnlyOldRoutes(t, ctx)

	// One file: the same skill, the references appended to SKILL.md.
	do(t, ctx, "skills-single", click(`input[name="assembly"][value="single"]`), waitFor(`document.querySelector('button[data-download="md"]')`),
		click(`button[data-download="md"]`))
	assert.Contains(t, location(t, ctx), "assembly=single")
	single := filepath.Join(downloads, name+".md")
	require.Eventually(t, func() bool { _, err := os.Stat(single); return err == nil }, 2*time.Minute, 50*time.Millisecond, "the .md arrives")
	one, err := os.ReadFile(single)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(one), shown["SKILL.md"]), "SKILL.md comes first")
	for _, f := range []string{"references/writing.md", "references/time.md", "references/sharing.md"} {
		assert.Contains(t, string(one), "<!-- "+f+" -->\n\n"+shown[f])
	}

	// Several forests: one skill, named by the sorted ids, with a routing
	// table the agent picks a forest by.
	const second = "ria-formosa"
	var created map[string]any
	post(t, base, "/v1/admin/forests", login.Key, map[string]any{"id": second, "title": "Ria Formosa"}, &created)
	apiJSON(t, "POST", base+"/v1/admin/grant", login.Key, map[string]any{"principal": "sol", "forest": second, "caps": []string{"read"}}, http.StatusOK)
	do(t, ctx, "skills-forests", chromedp.Reload(), afterLoad(`document.querySelector('input[name="forest"][value="`+second+`"]')`),
		click(`input[name="forest"][value="`+second+`"]`), waitFor(`document.querySelector('[data-file="SKILL.md"] pre') && document.querySelector('[data-file="SKILL.md"] pre').textContent.includes('## Which forest')`))
	assert.Contains(t, location(t, ctx), "forests=mare-alta%2C"+second)
	core = eval[string](t, ctx, `document.querySelector('[data-file="SKILL.md"] pre').textContent`)
	assert.Contains(t, core, "name: monkeyllm-mare-alta-"+second+"\n")
	assert.Contains(t, core, "| "+forestID+" | read |")
	assert.Contains(t, core, "| "+second+" | read |")
	shootAt(t, ctx, "skills-forests", `[data-file="SKILL.md"]`)

	// A name too long to spell is hashed, the same whatever the order.
	hashed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`import(document.querySelector('script[src$="/app.js"]').src.replace(/app\.js$/, 'consoles/skills-text.js'))
		.then(m => [m.skillName(['a-rather-long-forest-id-number-one', 'another-rather-long-forest-id-two']),
			m.skillName(['another-rather-long-forest-id-two', 'a-rather-long-forest-id-number-one']), m.skillName(['Mare_Alta'])])`,
		chromedp.EvalAwaitPromise, chromedp.EvalAsValue))
	require.NoError(t, err)
	assert.Regexp(t, `^monkeyllm-[0-9a-f]{8}$`, hashed[0])
	assert.Equal(t, hashed[0], hashed[1])
	assert.Equal(t, "monkeyllm-mare-alta", hashed[2])
}

// askedOnlyOldRoutes: the page (since its last load) asked the host only
// routes any key already has: the Skills console adds no endpoint.
func askedOnlyOldRoutes(t *testing.T, ctx context.Context) {
	t.Helper()
	seen := 0
	for _, r := range eval[[]string](t, ctx, `performance.getEntriesByType('resource').map(e => e.name)`) {
		u, err := url.Parse(r)
		if err != nil || !strings.HasPrefix(u.Path, "/v1/") && !strings.HasPrefix(u.Path, "/mcp") {
			continue
		}
		switch u.Path {
		case "/v1/health", "/v1/me", "/v1/forests", "/v1/forests/" + forestID + "/coverage":
			seen++
		default:
			t.Errorf("the Skills console asked %s", u.Path)
		}
	}
	assert.GreaterOrEqual(t, seen, 4, "the page's requests were read")
}
