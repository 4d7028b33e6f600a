// SPDX-License-Identifier: Apache-2.0

package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
)

// job is one delivery of one event to one webhook, at one attempt. body
// is nil until the first attempt renders it; every later attempt sends
// the same bytes.
type job struct {
	hook     string
	delivery string
	ev       vine.HookEvent
	body     []byte
	attempt  int
}

// enqueue adds a job, dropping the oldest past the bound.
func (h *Hooks) enqueue(j job) {
	h.mu.Lock()
	if len(h.queue) >= QueueBound {
		h.queue = h.queue[1:]
		h.dropped++
	}
	h.queue = append(h.queue, j)
	h.mu.Unlock()
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// next pops the oldest job.
func (h *Hooks) next() (job, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.queue) == 0 {
		return job{}, false
	}
	j := h.queue[0]
	h.queue = h.queue[1:]
	return j, true
}

// work is the one worker: it attempts queued jobs in order until Close,
// which also cuts short the attempt in flight.
func (h *Hooks) work() {
	defer close(h.stopped)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-h.done
		cancel()
	}()
	for {
		j, ok := h.next()
		if !ok {
			select {
			case <-h.wake:
				continue
			case <-h.done:
				return
			}
		}
		select {
		case <-h.done:
			return
		default:
		}
		h.attempt(ctx, j)
	}
}

// attempt runs one attempt of a job: the webhook as it stands now, its
// owner's authority re-read, then the request, its record, and what
// follows (a retry, the fail streak, a suspension).
func (h *Hooks) attempt(ctx context.Context, j job) {
	w, found, err := h.load(ctx, j.hook)
	if err != nil || !found || !w.Enabled || (w.Suspended != nil && *w.Suspended == suspendedFailing) {
		return
	}
	if ok, err := h.authorise(ctx, w); err != nil || !ok {
		return
	}
	if j.body == nil {
		b, ok, err := h.render(ctx, w, j.delivery, j.ev)
		if err != nil || !ok {
			return
		}
		j.body = b
	} else if ok, err := h.visible(ctx, w, j.ev); err != nil || !ok {
		return
	}
	d := h.send(ctx, w, j.delivery, j.ev.Name, j.attempt, j.body)
	switch {
	case d.OK:
		h.streak(ctx, w, true)
	case j.attempt < MaxAttempts:
		h.retry(j)
	default:
		h.streak(ctx, w, false)
	}
}

// authorise re-reads the owner's authority: a lapse suspends the webhook
// (nothing is sent), its return resumes a webhook suspended for it.
func (h *Hooks) authorise(ctx context.Context, w stored) (bool, error) {
	ok, err := h.ownerHolds(ctx, w)
	if err != nil {
		h.log.Warn("webhooks: reading an owner's authority", "webhook", w.ID, "err", err)
		return false, err
	}
	lapsed := w.Suspended != nil && *w.Suspended == suspendedAuthority
	switch {
	case !ok && !lapsed:
		h.changeSuspension(ctx, w, suspendedAuthority, "suspend")
	case ok && lapsed:
		h.changeSuspension(ctx, w, "", "resume")
	}
	return ok, nil
}

// changeSuspension stores and audits a suspension or resumption.
func (h *Hooks) changeSuspension(ctx context.Context, w stored, reason, action string) {
	if err := h.setSuspended(ctx, w.ID, reason); err != nil {
		h.log.Warn("webhooks: recording a suspension", "webhook", w.ID, "err", err)
		return
	}
	args := map[string]any{"webhook": w.ID, "host": hostOf(w.URL)}
	if reason != "" {
		args["reason"] = reason
	}
	h.audit(ctx, "-", w.Scope, action, args, record.OK)
}

// retry schedules the next attempt after its backoff; Close forgets it.
func (h *Hooks) retry(j job) {
	wait := Backoff[j.attempt-1]
	j.attempt++
	h.mu.Lock()
	h.waiting++
	h.mu.Unlock()
	go func() {
		defer func() {
			h.mu.Lock()
			h.waiting--
			h.mu.Unlock()
		}()
		select {
		case <-h.after(wait):
			h.enqueue(j)
		case <-h.done:
		}
	}()
}

// streak records how a delivery ended: success resets the fail streak,
// an exhausted delivery lengthens it, and the tenth in a row suspends.
func (h *Hooks) streak(ctx context.Context, w stored, ok bool) {
	if ok {
		if w.FailStreak != 0 {
			h.db.ExecContext(ctx, "UPDATE webhooks SET fail_streak = 0 WHERE id = ?", w.ID)
		}
		return
	}
	var n int
	err := h.db.QueryRowContext(ctx, "UPDATE webhooks SET fail_streak = fail_streak + 1 WHERE id = ? RETURNING fail_streak", w.ID).Scan(&n)
	if err == nil && n >= SuspendAfter {
		h.changeSuspension(ctx, w, suspendedFailing, "suspend")
	}
}

// Delivery is one attempt as the log keeps it and the actions answer it.
type Delivery struct {
	Webhook  string  `json:"webhook"`
	Delivery string  `json:"delivery"`
	Event    string  `json:"event"`
	Attempt  int     `json:"attempt"`
	TS       string  `json:"ts"`
	Status   *int    `json:"status"`
	MS       float64 `json:"ms"`
	Error    *string `json:"error"`
	Response *string `json:"response"`
	OK       bool    `json:"ok"`
	body     []byte
}

// clip is the most of an error or a response the log keeps.
const clip = 500

// send makes one signed POST and records it.
func (h *Hooks) send(ctx context.Context, w stored, delivery, event string, attempt int, b []byte) Delivery {
	at := h.now()
	d := Delivery{Webhook: w.ID, Delivery: delivery, Event: event, Attempt: attempt, TS: stamp(at), body: b}
	start := time.Now()
	status, resp, err := h.post(ctx, w, delivery, event, attempt, at, b)
	d.MS = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		e := clipped(err.Error())
		d.Error = &e
	} else {
		d.Status = &status
		r := clipped(resp)
		d.Response = &r
		d.OK = status >= 200 && status < 300
		if !d.OK {
			e := clipped(fmt.Sprintf("HTTP %d", status))
			d.Error = &e
		}
	}
	if err := h.log1(ctx, d); err != nil {
		h.log.Warn("webhooks: recording a delivery", "webhook", w.ID, "err", err)
	}
	return d
}

// post is the request of 09 §10: the signature over "<ts>.<body>", the
// Station's headers, then the custom ones (which never override).
func (h *Hooks) post(ctx context.Context, w stored, delivery, event string, attempt int, at time.Time, b []byte) (int, string, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(b))
	if err != nil {
		return 0, "", err
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "MonkeyLLM-Station/webhooks")
	req.Header.Set("X-MonkeyLLM-Event", event)
	req.Header.Set("X-MonkeyLLM-Delivery", delivery)
	req.Header.Set("X-MonkeyLLM-Attempt", strconv.Itoa(attempt))
	req.Header.Set("X-MonkeyLLM-Forest", w.Scope)
	req.Header.Set("X-MonkeyLLM-Timestamp", ts)
	req.Header.Set("X-MonkeyLLM-Signature", Sign(w.secret, ts, b))
	for k, v := range w.headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(resp.Body, clip))
	return resp.StatusCode, string(text), nil
}

// Sign is the X-MonkeyLLM-Signature of a body sent at the unix-seconds
// timestamp ts: "sha256=" and the hex HMAC-SHA256 of "<ts>.<body>" under
// the webhook's secret. A receiver recomputes it to verify.
func Sign(secret, ts string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

func clipped(s string) string {
	if len(s) > clip {
		return s[:clip]
	}
	return s
}

// log1 appends a delivery row and keeps the newest KeepDeliveries of its
// webhook; it also stamps the webhook's last status.
func (h *Hooks) log1(ctx context.Context, d Delivery) error {
	tx, err := h.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	_, err = tx.ExecContext(ctx, `INSERT INTO webhook_deliveries (webhook, delivery, event, attempt, ts, status, ms,
		error, response, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.Webhook, d.Delivery, d.Event, d.Attempt, d.TS, d.Status, d.MS, d.Error, d.Response, string(d.body))
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook = ? AND rowid NOT IN
		(SELECT rowid FROM webhook_deliveries WHERE webhook = ? ORDER BY rowid DESC LIMIT ?)`,
		d.Webhook, d.Webhook, KeepDeliveries)
	if err != nil {
		return err
	}
	status := 0
	if d.Status != nil {
		status = *d.Status
	}
	if _, err = tx.ExecContext(ctx, "UPDATE webhooks SET last_status = ?, last_at = ? WHERE id = ?",
		status, d.TS, d.Webhook); err != nil {
		return err
	}
	return tx.Commit()
}

// deliveries reads a webhook's log, newest first.
func (h *Hooks) deliveries(ctx context.Context, hook string, limit int) ([]Delivery, error) {
	rows, err := h.db.QueryContext(ctx, `SELECT webhook, delivery, event, attempt, ts, status, ms, error, response, body
		FROM webhook_deliveries WHERE webhook = ? ORDER BY rowid DESC LIMIT ?`, hook, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		var d Delivery
		var b string
		if err := rows.Scan(&d.Webhook, &d.Delivery, &d.Event, &d.Attempt, &d.TS, &d.Status, &d.MS, &d.Error,
			&d.Response, &b); err != nil {
			return nil, err
		}
		d.body = []byte(b)
		d.OK = d.Status != nil && *d.Status >= 200 && *d.Status < 300
		out = append(out, d)
	}
	return out, rows.Err()
}

// audit writes an admin.webhook.<action> row: forest webhooks on their
// forest, deployment ones on "-"; the destination's host only.
func (h *Hooks) audit(ctx context.Context, principal, scope, action string, args map[string]any, result record.Result) {
	if h.opt.Recorder == nil {
		return
	}
	op := "admin.webhook." + action
	h.opt.Recorder.Record(ctx, record.Call{Time: h.now(), Principal: principal, Forest: scope, Primitive: op,
		Args: record.DigestValues(op, args), Result: result})
}
