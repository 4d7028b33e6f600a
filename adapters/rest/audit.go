// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
)

// auditNote is what a scoped route learns of its call for the audit row
// (spec 09 §9); end records it once the response is out, so every
// outcome of the route, refusals included, is one row and only one.
type auditNote struct {
	forest    string
	primitive string
	args      record.Args
	commit    string
	size      int64 // overrides the bytes written when set (reindex: nodes)
	sized     bool
	deferred  bool // an ingest job records itself when it finishes
}

// noteCall opens the audit note of a scoped call on forest (as sent; the
// route replaces it by the canonical id once granted). It is nil, and
// every later note a no-op, when no Recorder is set.
func (s *Server) noteCall(r *http.Request, forest, primitive string) *auditNote {
	if s.opt.Recorder == nil {
		return nil
	}
	x := exchangeOf(r.Context())
	if x == nil {
		return nil
	}
	if forest == "" {
		forest = record.NoForest
	}
	x.audit = &auditNote{forest: record.Clip(forest), primitive: record.Clip(primitive), args: record.Args{}}
	return x.audit
}

// noteOf is the request's audit note, nil without a Recorder.
func noteOf(r *http.Request) *auditNote {
	if x := exchangeOf(r.Context()); x != nil {
		return x.audit
	}
	return nil
}

func (n *auditNote) setForest(id string) {
	if n != nil {
		n.forest = id
	}
}

func (n *auditNote) setArgs(a func() record.Args) {
	if n != nil {
		n.args = a()
	}
}

func (n *auditNote) setCommit(result any) {
	if n != nil {
		n.commit = record.CommitOf(result)
	}
}

func (n *auditNote) setSize(size int64) {
	if n != nil {
		n.size, n.sized = size, true
	}
}

// handOff hands the row to an ingest job, which records at its finish.
func (n *auditNote) handOff() {
	if n != nil {
		n.deferred = true
	}
}

// recordExchange hands the finished exchange's row to the Recorder.
func (s *Server) recordExchange(ctx context.Context, x *exchange) {
	n := x.audit
	if n == nil || n.deferred {
		return
	}
	c := record.Call{Time: time.Now(), Principal: x.principal, Forest: n.forest, Primitive: n.primitive,
		Args: n.args, Result: record.OK, Size: x.bytes, CommitSHA: n.commit,
		MS: record.Millis(time.Duration(x.t.vine.Load()))}
	if n.sized {
		c.Size = n.size
	}
	if x.status >= http.StatusBadRequest {
		c.Result, c.ErrorCode, c.CommitSHA = record.Error, string(x.code), ""
		if c.ErrorCode == "" {
			c.ErrorCode = string(vine.EInternal)
		}
	}
	s.record(ctx, c)
}

// record calls the Recorder, which must not block; a Recorder that
// panics is logged, never let near the act.
func (s *Server) record(ctx context.Context, c record.Call) {
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("audit recorder panicked", "primitive", c.Primitive, "panic", p)
		}
	}()
	s.opt.Recorder.Record(context.WithoutCancel(ctx), c)
}

// stamped is ctx carrying who's commit trailer (station-principal, J.4)
// for the writes of this call, so history answers by; the local owner of
// an unauthenticated server stamps nothing.
func stamped(ctx context.Context, who *keys.Principal) context.Context {
	if who == nil || who.IsLocal() || who.Name == "" {
		return ctx
	}
	return vine.WithPrincipal(ctx, who.Name)
}

// jobAudit is what an ingest job needs to record its own row at finish:
// the row the request began, and who to stamp its commits with.
type jobAudit struct {
	note  auditNote // a copy: the request's exchange is gone by then
	who   string    // the principal's name
	stamp *keys.Principal
	start time.Time
}

// newJobAudit takes over the request's note for a job about to start;
// the request then records nothing. Without a Recorder it only carries
// the stamp.
func newJobAudit(r *http.Request, who *keys.Principal) *jobAudit {
	ja := &jobAudit{who: who.Name, stamp: who, start: time.Now()}
	if n := noteOf(r); n != nil {
		ja.note = *n
		n.handOff()
	}
	return ja
}

// recordJob records an ingest job's row when it ends (spec 09 §12: audit
// at job finish or failure): the job id and the commit range in the
// digest, the last commit as commit_sha, the job record's size.
func (s *Server) recordJob(ja *jobAudit, j *job, before string) {
	if s.opt.Recorder == nil || ja.note.primitive == "" {
		return
	}
	v := j.snapshot()
	args := ja.note.args.With("job", v.ID)
	c := record.Call{Time: time.Now(), Principal: ja.who, Forest: ja.note.forest, Primitive: ja.note.primitive,
		Result: record.OK, MS: record.Millis(time.Since(ja.start))}
	if v.State != jobDone {
		args = args.With("state", v.State)
	}
	if v.Report != nil && v.Report.Commit != "" && v.Report.Commit != before {
		c.CommitSHA = v.Report.Commit
		args = args.With("commit_before", before)
	}
	if v.Error != nil {
		c.Result, c.ErrorCode = record.Error, string(v.Error.Code)
	}
	c.Args = args
	if body, err := wire.Encode(jobAnswer{v}); err == nil {
		c.Size = int64(len(body))
	}
	s.record(s.jobs.ctx, c)
}
