// SPDX-License-Identifier: Apache-2.0

package webhooks

import "github.com/monkeyllm/vine"

// The two scopes of a webhook and of an event: a forest's, or the
// deployment's (stored as "-").
const (
	ScopeForest     = "forest"
	ScopeDeployment = "deployment"
	// Deployment is the stored scope of a deployment webhook.
	Deployment = "-"
)

// Entry is one event of the catalogue (08 §11).
type Entry struct {
	Event string `json:"event"`
	Scope string `json:"scope"`
	Group string `json:"group"`
}

// Groups are the catalogue's groups, in the listing's order.
var Groups = []string{"content", "ingest", "answer", "access", "config", "maintenance"}

// TestEvent is the event the test action sends; nobody subscribes to it.
const TestEvent = "webhook.test"

// Catalogue is the closed list of events a webhook may take (08 §11):
// reads are absent on purpose.
var Catalogue = []Entry{
	{vine.EventNodePlanted, ScopeForest, "content"},
	{vine.EventBranchCreated, ScopeForest, "content"},
	{vine.EventDatasetCreated, ScopeForest, "content"},
	{vine.EventNodeGrafted, ScopeForest, "content"},
	{vine.EventNodePruned, ScopeForest, "content"},
	{vine.EventNodeTransplanted, ScopeForest, "content"},
	{vine.EventDatasetChanged, ScopeForest, "content"},
	{"ingest.started", ScopeForest, "ingest"},
	{"ingest.finished", ScopeForest, "ingest"},
	{"ingest.failed", ScopeForest, "ingest"},
	{"ingest.cancelled", ScopeForest, "ingest"},
	{"ingest.document.failed", ScopeForest, "ingest"},
	{"answer.served", ScopeForest, "answer"},
	{"answer.failed", ScopeForest, "answer"},
	{"access.denied", ScopeForest, "access"},
	{"grant.changed", ScopeForest, "access"},
	{"model.bound", ScopeForest, "access"},
	{"snapshot.created", ScopeForest, "maintenance"},
	{"canopy.built", ScopeForest, "maintenance"},
	{"reindex.finished", ScopeForest, "maintenance"},
	{"auth.login.succeeded", ScopeDeployment, "access"},
	{"auth.login.failed", ScopeDeployment, "access"},
	{"pair.issued", ScopeDeployment, "access"},
	{"key.issued", ScopeDeployment, "access"},
	{"key.revoked", ScopeDeployment, "access"},
	{"provider.changed", ScopeDeployment, "config"},
	{"forest.created", ScopeDeployment, "config"},
}

// entryOf finds an event in the catalogue.
func entryOf(event string) (Entry, bool) {
	for _, e := range Catalogue {
		if e.Event == event {
			return e, true
		}
	}
	return Entry{}, false
}

// catalogueFor lists the events a webhook of the widest scope held may
// take: a forest webhook the forest's, a deployment webhook all.
func catalogueFor(deployment bool) []Entry {
	out := []Entry{}
	for _, e := range Catalogue {
		if deployment || e.Scope == ScopeForest {
			out = append(out, e)
		}
	}
	return out
}

// idFields are the data fields that carry a node id: the policy and the
// branches judge them. node decides whether an event is delivered; the
// others are withheld when hidden.
var idFields = []string{"parent", "moved_from"}
