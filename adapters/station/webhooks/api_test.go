// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// TestAuthorityLapseSuspendsAndRegrantResumes is F.66: an owner whose
// admin lapses has its webhook suspended (nothing sent), and a later
// matching emission after the regrant resumes it without an edit.
func TestAuthorityLapseSuspendsAndRegrantResumes(t *testing.T) {
	e := newEnv(t, true)
	e.grant("ana", []string{""}, vine.CapAdmin)
	rcv := newReceiver(t, func(int) int { return http.StatusOK })
	s := e.save(caller("ana"), map[string]any{"url": rcv.srv.URL, "events": []string{"node.planted"}})
	ctx := context.Background()

	e.grant("ana", []string{""}, vine.CapRead)
	e.plant("olga", "finance/while-lapsed", "x")
	require.Eventually(t, func() bool {
		w, _, _ := e.h.load(ctx, s.Webhook.ID)
		return w.Suspended != nil
	}, 30*time.Second, 10*time.Millisecond)
	w, _, _ := e.h.load(ctx, s.Webhook.ID)
	assert.Equal(t, suspendedAuthority, *w.Suspended)

	e.grant("ana", []string{""}, vine.CapAdmin)
	e.plant("olga", "finance/after-regrant", "x")
	h := rcv.next(t)
	assert.Contains(t, string(h.body), "finance/after-regrant", "the lapsed emission was never sent")
	w, _, _ = e.h.load(ctx, s.Webhook.ID)
	assert.Nil(t, w.Suspended)
	var actions []string
	for _, row := range e.audit.All() {
		actions = append(actions, row.Primitive)
	}
	assert.Equal(t, []string{"admin.webhook.create", "admin.webhook.suspend", "admin.webhook.resume"}, actions)
}

// TestCallerScopes: a forest admin manages the forest's webhooks, a
// deployment webhook needs reach over every forest, others are refused,
// and a webhook outside the caller's scopes answers exactly as one that
// does not exist.
func TestCallerScopes(t *testing.T) {
	e := newEnv(t, true)
	e.grant("ana", []string{"finance/"}, vine.CapAdmin)
	e.grant("rui", []string{""}, vine.CapRead, vine.CapWrite)
	ctx := context.Background()
	_, err := e.forests.Create(ctx, "other", "Other", nil) // ana no longer holds every forest
	require.NoError(t, err)
	dep := e.save(caller("olga"), map[string]any{"url": "http://127.0.0.1:9/", "scope": "deployment", "events": []string{"key.issued"}})
	own := e.save(caller("ana"), map[string]any{"url": "http://127.0.0.1:9/", "events": []string{"node.planted"},
		"headers": map[string]any{"Authorization-Token": "very-secret-value"}})

	raw, _ := json.Marshal(own)
	assert.NotContains(t, string(raw[strings.Index(string(raw), `"webhook"`):strings.Index(string(raw), `"secret"`)]), "very-secret-value")

	l, err := e.h.List(ctx, caller("ana"))
	require.NoError(t, err)
	assert.Equal(t, []string{ScopeForest}, l.Scopes)
	require.Len(t, l.Webhooks, 1)
	assert.Equal(t, []string{"Authorization-Token"}, l.Webhooks[0].Headers)
	assert.Len(t, l.Events, 20)
	lo, err := e.h.List(ctx, caller("olga"))
	require.NoError(t, err)
	assert.Equal(t, []string{ScopeForest, ScopeDeployment}, lo.Scopes)
	assert.Len(t, lo.Webhooks, 2)
	assert.Len(t, lo.Events, len(Catalogue))
	listed, _ := json.Marshal(lo)
	assert.NotContains(t, string(listed), "very-secret-value")
	assert.NotContains(t, string(listed), "whsec_")

	_, err = e.h.List(ctx, caller("rui"))
	assert.Equal(t, &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on that forest"}, err)
	_, err = e.h.List(ctx, Caller{Principal: "olga", Forest: forestID, Mask: []vine.Capability{vine.CapRead}})
	assert.Error(t, err, "a mask without admin administers nothing")

	raw, _ = json.Marshal(map[string]any{"url": "http://127.0.0.1:9/", "scope": "deployment", "events": []string{"key.issued"}})
	_, _, err = e.h.Save(ctx, caller("ana"), raw)
	assert.Equal(t, &vine.Error{Code: vine.EForbidden, Message: "a deployment webhook requires authority over every forest"}, err)

	_, errOther := e.h.Get(ctx, caller("ana"), dep.Webhook.ID, 0)
	_, errNone := e.h.Get(ctx, caller("ana"), "wh-0000000000", 0)
	assert.Equal(t, errNone, errOther)
	assert.Equal(t, errNoSuchWebhook(), errOther)
	assert.Equal(t, errNoSuchWebhook(), e.h.Delete(ctx, caller("ana"), dep.Webhook.ID))
	require.NoError(t, e.h.Delete(ctx, caller("olga"), own.Webhook.ID))
	_, err = e.h.Get(ctx, caller("olga"), own.Webhook.ID, 0)
	assert.Equal(t, errNoSuchWebhook(), err)
}

// TestValidation is the create body of 09 §10, refusal by refusal.
func TestValidation(t *testing.T) {
	e := newEnv(t, true)
	ok := `"url": "http://127.0.0.1:9/", "events": ["node.planted"]`
	tests := []struct {
		name, body, msg string
	}{
		{"bad json", `{`, "invalid JSON body"},
		{"no url", `{"events": ["node.planted"]}`, "url is required"},
		{"bad url", `{"url": "ftp://x/", "events": ["node.planted"]}`, "endpoint must be an http(s) URL with a host"},
		{"no events", `{"url": "http://127.0.0.1:9/", "events": []}`, "events must be a non-empty list of event names"},
		{"unknown event", `{"url": "http://127.0.0.1:9/", "events": ["node.read"]}`, "unknown events: [node.read]"},
		{"test event", `{"url": "http://127.0.0.1:9/", "events": ["webhook.test"]}`, "unknown events: [webhook.test]"},
		{"ceiling", `{"url": "http://127.0.0.1:9/", "events": ["node.planted", "key.issued", "forest.created"]}`, "events outside this webhook's scope: [key.issued, forest.created]"},
		{"scope", `{` + ok + `, "scope": "galaxy"}`, `scope must be "forest" or "deployment"`},
		{"label", `{` + ok + `, "label": "` + strings.Repeat("x", 81) + `"}`, "label must be a string of at most 80 characters"},
		{"branches", `{` + ok + `, "branches": [` + strings.Repeat(`"a/",`, 20) + `"b/"]}`, "branches takes at most 20 prefixes"},
		{"headers count", `{` + ok + `, "headers": {"a": "1", "b": "1", "c": "1", "d": "1", "e": "1", "f": "1"}}`, "headers takes at most 5 entries"},
		{"header name", `{` + ok + `, "headers": {"-bad": "1"}}`, "invalid header name: '-bad'"},
		{"reserved", `{` + ok + `, "headers": {"User-Agent": "1"}}`, "'User-Agent' is set by the Station"},
		{"ours", `{` + ok + `, "headers": {"X-MonkeyLLM-Signature": "1"}}`, "'X-MonkeyLLM-Signature' is set by the Station"},
		{"value", `{` + ok + `, "headers": {"X-A": "` + strings.Repeat("v", 1025) + `"}}`, "header 'X-A' must be a string of at most 1024 characters"},
		{"flag", `{` + ok + `, "enabled": "yes"}`, "enabled must be true or false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := e.h.Save(context.Background(), caller("olga"), []byte(tt.body))
			var ve *vine.Error
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, vine.ESchema, ve.Code)
			assert.Equal(t, tt.msg, ve.Message)
		})
	}
	s, created, err := e.h.Save(context.Background(), caller("olga"), []byte(`{`+ok+`, "label": "`+strings.Repeat("x", 80)+`", "branches": ["/finance", ""]}`))
	require.NoError(t, err)
	assert.True(t, created)
	assert.Equal(t, []string{"finance/", ""}, s.Webhook.Branches)
}

// TestEmitWithoutSubscribersQueuesNothing: the O(1) path.
func TestEmitWithoutSubscribersQueuesNothing(t *testing.T) {
	e := newEnv(t, true)
	e.save(caller("olga"), map[string]any{"url": "http://127.0.0.1:9/", "events": []string{"node.grafted"}})
	ev := vine.HookEvent{Name: vine.EventNodePlanted, Forest: forestID, Data: map[string]any{"node": "x"}}
	allocs := testing.AllocsPerRun(100, func() { e.h.Emit(ev) })
	assert.Zero(t, allocs)
	assert.Equal(t, Queue{}, e.h.QueueState())
}
