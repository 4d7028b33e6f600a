// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/ingestreq"
	"github.com/monkeyllm/vine/adapters/keys"
)

// Job states (J.9).
const (
	jobRunning   = ingestreq.StateRunning
	jobDone      = ingestreq.StateDone
	jobError     = ingestreq.StateError
	jobCancelled = ingestreq.StateCancelled
)

// jobsListed bounds GET …/jobs; jobsKept bounds the finished records a
// forest keeps in memory.
const (
	jobsListed = 20
	jobsKept   = 100
)

// jobView is a job record on the wire (J.9), shared with every surface.
type jobView = ingestreq.Job

// jobReport is the report a finished job carries.
type jobReport = ingestreq.Report

// job is one batch in host memory. Records are never persisted: a
// restart forgets them, never the work, which is committed per step.
type job struct {
	principal string // who started it; others see it only as the admin of the whole forest

	mu     sync.Mutex
	view   jobView
	cancel bool          // asked; honoured at the next step boundary
	done   chan struct{} // closed when finished
}

func (j *job) snapshot() jobView {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := j.view
	if v.Report != nil {
		r := *v.Report
		v.Report = &r
	}
	return v
}

func (j *job) update(fn func(v *jobView)) {
	j.mu.Lock()
	fn(&j.view)
	j.mu.Unlock()
}

func (j *job) cancelled() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cancel
}

// Batches records the ingest batches running on a host: at most one per
// forest (J.9).
type Batches interface {
	// Reserve claims forest for job, or refuses E_LOCKED naming the
	// batch running there; hint is the refusal's.
	Reserve(forest, job, hint string) error
	// Release frees forest when job holds it.
	Release(forest, job string)
}

// jobs are the batches of every forest: at most one running per forest,
// never a queue.
type jobs struct {
	mu       sync.Mutex
	byForest map[string][]*job // oldest first
	running  Batches
	ctx      context.Context // ends on Close
	stopAll  context.CancelFunc
	wg       sync.WaitGroup
}

func newJobs(running Batches) *jobs {
	ctx, cancel := context.WithCancel(context.Background())
	if running == nil {
		running = ingestreq.NewBatches()
	}
	return &jobs{byForest: map[string][]*job{}, running: running, ctx: ctx, stopAll: cancel}
}

// reserve registers a running job for forest, or refuses with E_LOCKED
// naming the batch already running there.
func (js *jobs) reserve(forest, mode, principal string) (*job, error) {
	j := &job{principal: principal, done: make(chan struct{}), view: ingestreq.NewJob(forest, mode)}
	if err := js.running.Reserve(forest, j.view.ID,
		"one batch per forest at a time: wait for it (GET …/jobs lists this surface's) or cancel it"); err != nil {
		return nil, err
	}
	return j, nil
}

// abandon drops a reserved job whose batch was refused before it began.
func (js *jobs) abandon(forest string, j *job) { js.running.Release(forest, j.view.ID) }

// begin records a reserved job as started: it is listed from now on.
func (js *jobs) begin(forest string, j *job) {
	js.mu.Lock()
	defer js.mu.Unlock()
	list := append(js.byForest[forest], j)
	// Keep the newest finished records; the running one is never dropped.
	for len(list) > jobsKept && list[0] != j {
		list = list[1:]
	}
	js.byForest[forest] = list
	js.wg.Add(1)
}

// finish frees the forest for the next batch.
func (js *jobs) finish(forest string, j *job) {
	js.running.Release(forest, j.view.ID)
	close(j.done)
	js.wg.Done()
}

// list is forest's jobs newest first, those who may see them only.
func (js *jobs) list(forest string, may func(*job) bool) []*job {
	js.mu.Lock()
	defer js.mu.Unlock()
	var out []*job
	for _, j := range slices.Backward(js.byForest[forest]) {
		if may(j) {
			out = append(out, j)
		}
	}
	return out
}

func (js *jobs) get(forest, id string) *job {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.byForest[forest] {
		if j.view.ID == id {
			return j
		}
	}
	return nil
}

// states counts the job records kept in memory by state.
func (js *jobs) states() map[string]int {
	js.mu.Lock()
	list := make([]*job, 0, len(js.byForest))
	for _, l := range js.byForest {
		list = append(list, l...)
	}
	js.mu.Unlock()
	out := map[string]int{jobRunning: 0, jobDone: 0, jobError: 0, jobCancelled: 0}
	for _, j := range list {
		out[j.snapshot().State]++
	}
	return out
}

// stop cancels every running batch and waits for each to stop at its
// step boundary.
func (js *jobs) stop() {
	js.stopAll()
	js.wg.Wait()
}

// jobPath is where a job is read: the Location of the ingest 202.
func jobPath(forest, id string) string {
	return "/v1/forests/" + url.PathEscape(forest) + "/jobs/" + url.PathEscape(id)
}

// jobAccess checks what every job route needs, without opening the
// forest: the forest granted, and ingest in the policy. It returns who
// may see which job.
func (s *Server) jobAccess(r *http.Request, op string) (string, func(*job) bool, error) {
	who := callerOf(r.Context())
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		return "", nil, err
	}
	caps := keys.Expand(pol.Caps)
	if !slices.Contains(caps, vine.CapIngest) {
		return "", nil, needsCaps(op, caps, vine.CapIngest)
	}
	whole := slices.Contains(caps, vine.CapAdmin) && wholeForest(pol)
	return id, func(j *job) bool { return whole || j.principal == who.Name }, nil
}

// wholeForest reports whether a policy sees the whole forest, no deny.
func wholeForest(p vine.Policy) bool {
	if len(p.Deny) > 0 {
		return false
	}
	return slices.ContainsFunc(p.Allow, func(a string) bool { return strings.Trim(strings.TrimSpace(a), "/") == "" })
}

type jobList struct {
	Jobs      []jobView `json:"jobs"`
	Truncated bool      `json:"truncated,omitempty"`
	Next      string    `json:"next,omitempty"`
}

// listJobs answers GET …/jobs[?after=<job>]: newest first, bounded; a
// truncated page names the cursor of the next (next: the last job
// listed), passed back as after. Reading a job touches no forest.
func (s *Server) listJobs(w http.ResponseWriter, r *http.Request) {
	forest, may, err := s.jobAccess(r, "jobs")
	if err != nil {
		s.refuse(w, "jobs", err)
		return
	}
	all, err := jobsAfter(s.jobs.list(forest, may), r.URL.Query().Get("after"))
	if err != nil {
		s.refuse(w, "jobs", err)
		return
	}
	out := jobList{Jobs: []jobView{}, Truncated: len(all) > jobsListed}
	for _, j := range all[:min(len(all), jobsListed)] {
		out.Jobs = append(out.Jobs, j.snapshot())
	}
	if out.Truncated {
		out.Next = out.Jobs[len(out.Jobs)-1].ID
	}
	s.writeJSON(w, "jobs", http.StatusOK, out)
}

// jobsAfter is the listing past the cursor: the jobs older than job id
// after. A cursor the caller may not see, or one forgotten since (only
// the newest records are kept), is refused rather than read as the start.
func jobsAfter(all []*job, after string) ([]*job, error) {
	if after == "" {
		return all, nil
	}
	i := slices.IndexFunc(all, func(j *job) bool { return j.view.ID == after })
	if i < 0 {
		return nil, &vine.Error{Code: vine.ESchema, Message: "jobs: unknown cursor 'after': " + strconv.Quote(after),
			Hint: "pass the next of the previous page; the server keeps only the newest jobs, so list again from the start"}
	}
	return all[i+1:], nil
}

type jobAnswer struct {
	Job jobView `json:"job"`
}

// getJob answers GET …/jobs/{job}.
func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.findJob(r, "jobs")
	if err != nil {
		s.refuse(w, "jobs", err)
		return
	}
	s.writeJSON(w, "jobs", http.StatusOK, jobAnswer{j.snapshot()})
}

// cancelJob answers POST …/jobs/{job}/cancel: the batch stops at its
// next step boundary (a document is whole or absent); a finished job is
// left as it is.
func (s *Server) cancelJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.findJob(r, "cancel")
	if err != nil {
		s.refuse(w, "cancel", err)
		return
	}
	j.mu.Lock()
	if j.view.State == jobRunning {
		j.cancel = true
	}
	j.mu.Unlock()
	s.writeJSON(w, "cancel", http.StatusOK, jobAnswer{j.snapshot()})
}

func (s *Server) findJob(r *http.Request, op string) (*job, error) {
	forest, may, err := s.jobAccess(r, op)
	if err != nil {
		return nil, err
	}
	id := r.PathValue("job")
	if j := s.jobs.get(forest, id); j != nil && may(j) {
		return j, nil
	}
	return nil, &vine.Error{Code: vine.ENotFound, Message: "job not found: " + id,
		Hint: "jobs live in the server's memory and a restart forgets them; GET …/jobs lists the ones it knows"}
}
