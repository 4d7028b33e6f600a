// SPDX-License-Identifier: Apache-2.0

// Package harvest is the earlier home of the zero-model composite of
// C.6c, spec 05 (composite retrieval), kept so its callers build: the
// sweep is now the engine's own primitive, [vine.Vine.Harvest], served as
// "harvest" by every transport without importing this package. Its
// types are aliases of the root's and its functions delegate there.
//
// The operator's cap on k is the host's to set with [SetMaxK] (the same
// setting as [vine.SetHarvestMaxK]); the package reads no environment.
package harvest

import (
	"context"

	"github.com/monkeyllm/vine"
)

// Budgets and caps of the sweep (C.6c), the root's.
const (
	Budget          = vine.HarvestBudget          // the whole answer
	WholeBodyTokens = vine.HarvestWholeBodyTokens // bodies up to this size are served whole
	MaxSections     = vine.HarvestMaxSections     // matched sections served per item
	MaxMatches      = vine.HarvestMaxMatches      // refined matches kept per item
	DefaultK        = vine.HarvestDefaultK
	DefaultMaxK     = vine.HarvestDefaultMaxK
	// MaxKEnv names the environment variable of the operator's cap on
	// k. The command (adapters/cli/vine) reads it and passes it to
	// SetMaxK; this package never reads the environment.
	MaxKEnv = vine.HarvestMaxKEnv
)

// Options are the parameters of a sweep besides the question.
//
// Deprecated: Use [vine.HarvestOptions].
type Options = vine.HarvestOptions

// Result is a sweep: the question, the terms it searched bodies for, the
// ranked items, what supersession excluded, and the window facts.
//
// Deprecated: Use [vine.HarvestResult].
type Result = vine.HarvestResult

// Item is one piece of evidence.
//
// Deprecated: Use [vine.HarvestItem].
type Item = vine.HarvestItem

// Block is a piece of an item's body: the whole body (section null), a
// matched section, or, when neither fits, the outline with a hint.
//
// Deprecated: Use [vine.HarvestBlock].
type Block = vine.HarvestBlock

// Excluded names a candidate that gave its seat because live nodes
// supersede it.
//
// Deprecated: Use [vine.HarvestExcluded].
type Excluded = vine.HarvestExcluded

// Reader is what a sweep reads through. The engine satisfies it through
// Engine; a scoped view that filters every read by a policy satisfies it
// too, so scope filtering happens before budgeting. A sweep calls its
// Reader from several goroutines at once (the two legs, then the items),
// so an implementation must be safe for concurrent use, as a Vine is.
//
// Deprecated: Use [vine.HarvestReader].
type Reader = vine.HarvestReader

// Signature is harvest's entry in the engine's signature table. The root
// registers it; this package only names it.
//
// Deprecated: Use [vine.LookupSignature]("harvest").
var Signature, _ = vine.LookupSignature("harvest")

// Harvest sweeps the forest for evidence on query (C.6c) through r.
//
// Deprecated: Use [vine.Vine.Harvest], or [vine.HarvestFrom] for a
// Reader of your own.
func Harvest(ctx context.Context, r Reader, query string, opt Options) (*Result, error) {
	return vine.HarvestFrom(ctx, r, query, opt)
}

// Engine adapts an open forest to Reader.
//
// Deprecated: Use [vine.HarvestEngine].
func Engine(v *vine.Vine) Reader { return vine.HarvestEngine(v) }

// SetMaxK sets the operator's cap on k (C.6c §2.3) for every sweep in
// the process; it is [vine.SetHarvestMaxK], whose doc states the rules.
// adapters/cli/vine passes MONKEYLLM_HARVEST_MAX_K here before every
// command.
//
// Deprecated: Use [vine.SetHarvestMaxK].
func SetMaxK(setting string) { vine.SetHarvestMaxK(setting) }

// MaxK is the cap sweeps clamp k to now: the operator's setting, or
// DefaultMaxK when there is none or it is malformed (the sweep itself
// refuses a malformed one).
//
// Deprecated: Use [vine.HarvestMaxK].
func MaxK() int { return vine.HarvestMaxK() }
