// SPDX-License-Identifier: Apache-2.0

// Package record is the contract between the surfaces that serve calls
// (adapters/rest, adapters/mcp) and whoever keeps the audit trail (spec
// 09 §9): one [Call] per scoped call, handed to a [Recorder] once the
// response is decided. It imports the standard library only, so a
// surface never imports the host that stores the rows.
//
// A surface fills what it knows of a call and never waits on the trail:
//
//	if rec != nil {
//		rec.Record(ctx, record.Call{Principal: who, Forest: id, Primitive: name,
//			Args: record.Digest(name, body), Result: record.OK, Size: int64(len(out))})
//	}
//
// The argument digest ([Digest]) keeps each top-level argument
// stringified when it is at most 80 characters and replaces it by
// "<N chars>" otherwise; arguments that carry bodies or secrets are
// always replaced, whatever their length. A Recorder must never fail or
// slow the act: Record returns nothing and must not block.
package record

import (
	"context"
	"time"
)

// NoForest is the forest of a row that belongs to no forest
// (governance, or a call refused before any forest was named).
const NoForest = "-"

// Result is how a call ended, as the audit row states it.
type Result string

// The results of spec 09 §9.
const (
	OK      Result = "ok"      // served
	Error   Result = "error"   // refused or failed; ErrorCode says how
	Cache   Result = "cache"   // served from the answer store
	Refused Result = "refused" // a governance act that was refused
)

// Call is one audit row as a surface knows it (spec 09 §9). Optional
// fields are absent when zero (strings) or nil (clocks and cost): an
// absent clock never claims 0 ms, an absent cost never claims $0.00.
type Call struct {
	// Time is when the response was decided; zero lets the Recorder
	// stamp its own clock.
	Time time.Time
	// Principal is who asked (the key's principal name).
	Principal string
	// Forest is the forest id the call named, or NoForest.
	Forest string
	// Primitive is the primitive, composite, route or governance action.
	Primitive string
	// Args is the argument digest; never a body, a secret or a path.
	Args Args
	// Result is how the call ended.
	Result Result
	// Size is the byte length of the serialized result (the envelope on
	// a refusal; reindex: nodes; snapshot: bytes).
	Size int64
	// CommitSHA is the commit a write made (ingest: the last of its
	// range), empty when none.
	CommitSHA string
	// ErrorCode is the refusal's envelope code, never its message.
	ErrorCode string
	// MS is the engine clock of the call (REST: Server-Timing's vine),
	// nil when not measured.
	MS *float64
	// ModelMS is the provider's time, nil when no model ran.
	ModelMS *float64
	// CostUSD is the spend of a priced model call; on a Cache row, the
	// cost avoided. Nil when nothing was priced.
	CostUSD *float64
	// Via is "ext:<id>" (built by [Via] only) when an extension was in
	// the call's path; Principal stays whoever asked. Empty otherwise,
	// and on rows written before the column existed: absent, never "no
	// extension".
	Via string
}

// ViaPrefix begins every Via value.
const ViaPrefix = "ext:"

// Via is the one builder of Call.Via: "ext:<id>" for the extension id
// that acted, "" when id is empty (no extension in the path).
func Via(id string) string {
	if id == "" {
		return ""
	}
	return ViaPrefix + id
}

// Recorder keeps audit rows. Record must return promptly whatever
// happens to the row: a full queue or a failed store is the Recorder's
// to log and count, never the caller's to wait on (spec 09 §9: an audit
// write never fails or slows the act). Implementations are safe for
// concurrent use.
type Recorder interface {
	Record(ctx context.Context, c Call)
}

// Func adapts a function to a Recorder.
type Func func(ctx context.Context, c Call)

// Record calls f.
func (f Func) Record(ctx context.Context, c Call) { f(ctx, c) }

// Millis is d in milliseconds rounded to three decimals, the form of
// Call.MS and Call.ModelMS.
func Millis(d time.Duration) *float64 {
	ms := float64(d.Microseconds()) / 1000
	return &ms
}
