// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

// verify recomputes a request's signature as a receiver would.
func verify(t *testing.T, secret string, h hit) {
	t.Helper()
	ts := h.header.Get("X-MonkeyLLM-Timestamp")
	require.NotEmpty(t, ts)
	assert.Equal(t, Sign(secret, ts, h.body), h.header.Get("X-MonkeyLLM-Signature"), "the HMAC verifies")
	assert.Equal(t, "application/json", h.header.Get("Content-Type"))
	assert.Equal(t, "MonkeyLLM-Station/webhooks", h.header.Get("User-Agent"))
}

// TestRetriesShareIDAndBodyThenSuspend is F.65-F.67: a failing receiver
// sees five attempts of one delivery (same id, same body, each signed),
// the backoffs of 09 §10 between them, and after ten exhausted deliveries
// the webhook is suspended and receives nothing more.
func TestRetriesShareIDAndBodyThenSuspend(t *testing.T) {
	e := newEnv(t, true)
	rcv := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	s := e.save(caller("olga"), map[string]any{"url": rcv.srv.URL + "/in", "events": []string{"node.planted"},
		"headers": map[string]any{"X-Team": "blue"}})
	require.Regexp(t, `^whsec_[A-Za-z0-9_-]{43}$`, s.Secret)
	require.Regexp(t, `^wh-[0-9a-f]{10}$`, s.Webhook.ID)

	for i := range SuspendAfter {
		e.plant("olga", "finance/n"+strconv.Itoa(i), "body text")
		first := rcv.next(t)
		verify(t, s.Secret, first)
		var b map[string]any
		require.NoError(t, json.Unmarshal(first.body, &b))
		assert.Equal(t, first.header.Get("X-MonkeyLLM-Delivery"), b["id"])
		assert.Equal(t, "node.planted", first.header.Get("X-MonkeyLLM-Event"))
		assert.Equal(t, forestID, first.header.Get("X-MonkeyLLM-Forest"))
		assert.Equal(t, "blue", first.header.Get("X-Team"))
		assert.Equal(t, "1", first.header.Get("X-MonkeyLLM-Attempt"))
		for attempt := 2; attempt <= MaxAttempts; attempt++ {
			again := rcv.next(t)
			verify(t, s.Secret, again)
			assert.Equal(t, strconv.Itoa(attempt), again.header.Get("X-MonkeyLLM-Attempt"))
			assert.Equal(t, first.header.Get("X-MonkeyLLM-Delivery"), again.header.Get("X-MonkeyLLM-Delivery"))
			assert.Equal(t, string(first.body), string(again.body), "one body across retries")
		}
	}
	ctx := context.Background()
	require.Eventually(t, func() bool {
		w, _, _ := e.h.load(ctx, s.Webhook.ID)
		return w.Suspended != nil
	}, 30*time.Second, 10*time.Millisecond)
	w, _, err := e.h.load(ctx, s.Webhook.ID)
	require.NoError(t, err)
	assert.Equal(t, suspendedFailing, *w.Suspended)
	assert.Equal(t, SuspendAfter, w.FailStreak)
	want := []time.Duration{}
	for range SuspendAfter {
		want = append(want, Backoff...)
	}
	assert.Equal(t, want, e.waits.list(), "retries wait 5, 30, 120, 600 s")

	d, err := e.h.Get(ctx, caller("olga"), s.Webhook.ID, 0)
	require.NoError(t, err)
	assert.Len(t, d.Deliveries, 50, "every attempt logged")
	assert.Equal(t, 500, *d.Deliveries[0].Status)

	// Suspended: a later emission sends nothing; the test action still does.
	e.plant("olga", "finance/after", "x")
	select {
	case h := <-rcv.hits:
		assert.Equal(t, TestEvent, h.header.Get("X-MonkeyLLM-Event"), "a suspended webhook got %s", h.header.Get("X-MonkeyLLM-Event"))
	default:
	}
	out, err := e.h.Act(ctx, caller("olga"), s.Webhook.ID, []byte(`{"action": "test"}`))
	require.NoError(t, err)
	sent := rcv.next(t)
	verify(t, s.Secret, sent)
	assert.Equal(t, TestEvent, sent.header.Get("X-MonkeyLLM-Event"))
	assert.False(t, out.(map[string]any)["delivery"].(Delivery).OK)

	// A replace clears the suspension and the streak.
	raw, _ := json.Marshal(map[string]any{"id": s.Webhook.ID, "url": rcv.srv.URL + "/in", "events": []string{"node.planted"}})
	saved, created, err := e.h.Save(ctx, caller("olga"), raw)
	require.NoError(t, err)
	assert.False(t, created)
	assert.Nil(t, saved.Webhook.Suspended)
	assert.Zero(t, saved.Webhook.FailStreak)
	assert.Equal(t, []string{"X-Team"}, saved.Webhook.Headers, "headers absent keep the stored map")
}

// TestSuccessResetsTheStreakAndRedeliverResends: a 2xx ends a delivery
// at its first attempt; redeliver sends the logged body unchanged as the
// next attempt, signed afresh; rotate changes the secret the next
// signature uses.
func TestSuccessResetsTheStreakAndRedeliverResends(t *testing.T) {
	e := newEnv(t, true)
	rcv := newReceiver(t, func(int) int { return http.StatusNoContent })
	s := e.save(caller("olga"), map[string]any{"url": rcv.srv.URL, "events": []string{"node.planted"}})
	e.plant("olga", "finance/ok", "x")
	first := rcv.next(t)
	verify(t, s.Secret, first)
	ctx := context.Background()
	id := first.header.Get("X-MonkeyLLM-Delivery")
	require.Eventually(t, func() bool { // the worker logs after the answer
		d, err := e.h.Get(ctx, caller("olga"), s.Webhook.ID, 0)
		return err == nil && len(d.Deliveries) == 1
	}, 30*time.Second, 10*time.Millisecond)

	rot, err := e.h.Act(ctx, caller("olga"), s.Webhook.ID, []byte(`{"action": "rotate"}`))
	require.NoError(t, err)
	secret := rot.(Saved).Secret
	require.NotEqual(t, s.Secret, secret)

	out, err := e.h.Act(ctx, caller("olga"), s.Webhook.ID, []byte(`{"action": "redeliver", "delivery": "`+id+`"}`))
	require.NoError(t, err)
	again := rcv.next(t)
	verify(t, secret, again)
	assert.Equal(t, string(first.body), string(again.body))
	assert.Equal(t, "2", again.header.Get("X-MonkeyLLM-Attempt"))
	assert.True(t, out.(map[string]any)["delivery"].(Delivery).OK)

	_, err = e.h.Act(ctx, caller("olga"), s.Webhook.ID, []byte(`{"action": "redeliver", "delivery": "whd-000000000000"}`))
	assert.Equal(t, "no such delivery", err.(*vine.Error).Message)
	_, err = e.h.Act(ctx, caller("olga"), s.Webhook.ID, []byte(`{"action": "explode"}`))
	assert.Equal(t, &vine.Error{Code: vine.ESchema, Message: "unknown action: explode", Hint: "One of: test, rotate, redeliver."}, err)
	for _, row := range e.audit.All() {
		assert.NotContains(t, row.Args, "url")
		for _, v := range row.Args {
			assert.NotContains(t, v, "whsec_", "no secret in an audit row")
			assert.NotContains(t, v, "http://", "the host only")
		}
	}
}

// TestPrivateDestinationsRefusedUnlessAllowed: a receiver on 127.0.0.1
// is refused at creation, and at dial time for a webhook stored while
// allowed.
func TestPrivateDestinationsRefusedUnlessAllowed(t *testing.T) {
	e := newEnv(t, false)
	rcv := newReceiver(t, func(int) int { return http.StatusOK })
	raw, _ := json.Marshal(map[string]any{"url": rcv.srv.URL, "events": []string{"node.planted"}})
	_, _, err := e.h.Save(context.Background(), caller("olga"), raw)
	require.Error(t, err)
	assert.Equal(t, &vine.Error{Code: vine.ESchema, Message: "endpoint resolves to a non-public address",
		Hint: "MONKEYLLM_STATION_PROVIDER_ALLOW_PRIVATE=1"}, err)

	// Stored by a Station that allowed it, delivered by one that does not.
	allowing, err := New(context.Background(), e.reg.DB(), &Options{Registry: e.reg, Forests: e.forests, AllowPrivate: true})
	require.NoError(t, err)
	defer allowing.Close()
	s, created, err := allowing.Save(context.Background(), caller("olga"), raw)
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, e.h.refresh(context.Background()))
	out, err := e.h.Act(context.Background(), caller("olga"), s.Webhook.ID, []byte(`{"action": "test"}`))
	require.NoError(t, err)
	d := out.(map[string]any)["delivery"].(Delivery)
	assert.False(t, d.OK)
	require.NotNil(t, d.Error)
	assert.Contains(t, *d.Error, "non-public")
	assert.Empty(t, rcv.hits, "nothing reached the loopback receiver")
}

// TestBlackHoleNeverHoldsAWrite is F.65's latency rule, by order: while
// the worker is stuck inside a destination that never answers, plants
// still complete.
func TestBlackHoleNeverHoldsAWrite(t *testing.T) {
	e := newEnv(t, true)
	entered := make(chan struct{}, 10)
	release := make(chan struct{})
	hole := newReceiverFunc(t, func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
	})
	defer close(release)
	e.save(caller("olga"), map[string]any{"url": hole, "events": []string{"node.planted"}})
	e.plant("olga", "finance/first", "x")
	<-entered // the worker is now held by the black hole
	for i := range 5 {
		e.plant("olga", "finance/more-"+strconv.Itoa(i), "x") // returns while the hole holds
	}
	assert.Equal(t, 5, e.h.QueueState().Pending, "the later deliveries wait in the queue, not in the writes")

	// Past the bound the oldest are dropped, and counted.
	ev := vine.HookEvent{Name: vine.EventNodePlanted, Forest: forestID, Data: map[string]any{"node": "finance/x"}}
	for range QueueBound {
		e.h.Emit(ev)
	}
	assert.Equal(t, Queue{Pending: QueueBound, Dropped: 5}, e.h.QueueState())
}

func newReceiverFunc(t *testing.T, f http.HandlerFunc) string {
	srv := newReceiver(t, nil)
	srv.srv.Config.Handler = f
	return srv.srv.URL
}
