// SPDX-License-Identifier: Apache-2.0

package ext

import "time"

// Seam names a place where an extension may contribute (Part L.3). The
// list is closed: an extension reaches the engine only through these.
type Seam string

// The seams.
const (
	SeamConverters Seam = "converters"
	SeamCuration   Seam = "curation"
	SeamEvents     Seam = "events"
	SeamJobs       Seam = "jobs"
	SeamTools      Seam = "tools"
	SeamRoutes     Seam = "routes"
	SeamRanking    Seam = "ranking"
	SeamPrompt     Seam = "prompt"
	SeamRoles      Seam = "roles"
	SeamPanel      Seam = "panel"
)

// namedSeams are the seams whose contributions carry a name.
var namedSeams = []Seam{SeamCuration, SeamEvents, SeamJobs, SeamTools, SeamRoutes, SeamRanking, SeamPrompt}

// NamedSeams are the seams whose contributions carry a name.
func NamedSeams() []Seam { return append([]Seam(nil), namedSeams...) }

// Contract is what a seam passes and expects, declared once: the kit
// checks handlers against it and the authoring document is generated
// from it.
type Contract struct {
	Seam        Seam
	Summary     string
	Params      []string // what the host passes, by name; nil for declarative seams
	Returns     string
	CalledBy    string
	Precedence  string
	OnFailure   string
	Attributed  bool // the call it touches names it in its trace
	Declarative bool // manifest only: no handler runs
	// Deadline is how long a call may take before it counts as failed;
	// zero means the host's worker timeout.
	Deadline time.Duration
}

// Contracts are the seams' contracts in catalogue order.
func Contracts() []Contract { return append([]Contract(nil), contracts...) }

// ContractOf is the contract of seam s.
func ContractOf(s Seam) (Contract, bool) {
	for _, c := range contracts {
		if c.Seam == s {
			return c, true
		}
	}
	return Contract{}, false
}

var contracts = []Contract{
	{Seam: SeamConverters, Summary: "turn one source file into a conversion",
		Params: []string{"path"}, Returns: "conversion {kind, title, markdown?, schema?, rows?, tables?, samples?, counts?}",
		CalledBy: "the Gardener's discovery, stage 1", Precedence: "hook > ext:<id> (install order) > describer > plugin:<name> > builtin",
		OnFailure: "the next claimant converts; the report's errors line names ext:<id>; the batch completes"},
	{Seam: SeamCuration, Summary: "edit a new draft before it is planted",
		Params: []string{"draft"}, Returns: "draft (nothing = unchanged)",
		CalledBy: "the Gardener's stage 2, new drafts", Precedence: "all, in install order, after the host's hooks",
		OnFailure: "the hook is skipped and the report says why", Deadline: 30 * time.Second},
	{Seam: SeamEvents, Summary: "hear what happened, after it succeeded",
		Params: []string{"event", "forest", "principal", "data", "metadata"}, Returns: "ignored",
		CalledBy: "the one event emitter, asynchronously", Precedence: "all, order unspecified",
		OnFailure: "logged; the act is never failed or slowed", Deadline: 10 * time.Second},
	{Seam: SeamJobs, Summary: "run a task an admin pulls; never scheduled",
		Params: []string{"forest"}, Returns: "object",
		CalledBy: "an admin, on demand", Precedence: "independent", OnFailure: "the job answers the envelope"},
	{Seam: SeamTools, Summary: "answer an MCP tool call",
		Params: []string{"args"}, Returns: "object (else {result: …})",
		CalledBy: "MCP tools/call", Precedence: "namespaced; a collision refuses the install", OnFailure: "the call answers an envelope"},
	{Seam: SeamRoutes, Summary: "answer POST /v1/ext/<id>/<name>",
		Params: []string{"forest", "body"}, Returns: "object",
		CalledBy: "the REST route", Precedence: "by path", OnFailure: "the call answers an envelope"},
	{Seam: SeamRanking, Summary: "reorder (or drop) harvest's items before the budget",
		Params: []string{"query", "results"}, Returns: "ids drawn from results, in the new order",
		CalledBy: "harvest, after items are built, before the budget", Precedence: "first claimant",
		OnFailure: "the original order", Attributed: true, Deadline: 2 * time.Second},
	{Seam: SeamPrompt, Summary: "append to answer's system message",
		Params: []string{"mode", "question", "system"}, Returns: "text appended",
		CalledBy: "answer, sweep and walk", Precedence: "first claimant",
		OnFailure: "the unmodified system message", Attributed: true, Deadline: 2 * time.Second},
	{Seam: SeamRoles, Summary: "register model roles", Returns: "—",
		CalledBy: "the models catalogue", Precedence: "a collision refuses the install", Declarative: true},
	{Seam: SeamPanel, Summary: "a declarative console panel", Returns: "—",
		CalledBy: "the console", Precedence: "one per extension", OnFailure: "unservable: inert and named", Declarative: true},
}
