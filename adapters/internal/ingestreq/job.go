// SPDX-License-Identifier: Apache-2.0

package ingestreq

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/gitops"
)

// Job states (J.9).
const (
	StateRunning   = "running"
	StateDone      = "done"
	StateError     = "error"
	StateCancelled = "cancelled"
)

// Job is a job record on the wire (J.9), in wire order: what every
// surface answers an accepted ingest with.
type Job struct {
	ID       string      `json:"id"`
	Forest   string      `json:"forest"`
	Mode     string      `json:"mode"`
	State    string      `json:"state"`
	Done     int         `json:"done"`
	Total    int         `json:"total"`
	Current  *string     `json:"current"`
	Stage    *string     `json:"stage"`
	Errors   int         `json:"errors"`
	Started  string      `json:"started"`
	Finished string      `json:"finished,omitempty"`
	Report   *Report     `json:"report,omitempty"`
	Error    *vine.Error `json:"error,omitempty"`
}

// Report is the Gardener's report with what the adapter adds (J.8): the
// caller's mode, the commit range the batch made, and curation's rollup,
// curated and bound.
type Report struct {
	Mode string `json:"mode"`
	*gardener.IngestReport
	CommitBefore string                 `json:"commit_before"`
	Commit       string                 `json:"commit"`
	Rollup       *gardener.RollupReport `json:"rollup"`  // null unless a bound model's batch finished
	Curated      bool                   `json:"curated"` // the model wrote a summary or a rollup
	Bound        bool                   `json:"bound"`   // a model Curator is bound
}

// Answer is the body of every answer carrying one job: {"job": {…}}.
type Answer struct {
	Job Job `json:"job"`
}

// NewJob is a running record for a batch of mode on forest, started now.
func NewJob(forest, mode string) Job {
	return Job{ID: newJobID(), Forest: forest, Mode: mode, State: StateRunning, Started: Stamp(time.Now())}
}

func newJobID() string {
	var b [4]byte
	rand.Read(b[:])
	return "ing-" + hex.EncodeToString(b[:])
}

// Stamp is t as a job record writes times: UTC to the second, with Z.
func Stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }

// Head is the forest's current commit, "" when it cannot be read: the
// two ends of a batch's commit range.
func Head(dir string) string {
	if dir == "" {
		return ""
	}
	r, err := gitops.Open(dir)
	if err != nil {
		return ""
	}
	h, err := r.Head()
	if err != nil {
		return ""
	}
	return h
}
