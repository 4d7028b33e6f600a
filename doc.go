// SPDX-License-Identifier: Apache-2.0

// Package vine is the MonkeyLLM knowledge-forest engine. A forest is a
// folder of markdown nodes, laid out as spec 01 (forest format) says, with its own git
// repository and a derived catalog that can always be rebuilt; vine opens
// one and serves token-budgeted primitives over it, so a model can find
// and read what it needs without loading the whole forest.
//
// A forest made by the original Python implementation opens here
// unchanged, and one made here opens there.
//
// # Opening a forest
//
// [Init] makes a new forest (the master index, the dialect schema and the
// first commit); [Open] serves an existing one and returns a [*Vine].
// [Options] configure it: ReadOnly, the clock, the writer-lock wait, SQL
// limits, the payload fetcher, the embedder. A nil *Options is the zero
// value, a writable forest on the host clock.
//
//	v, err := vine.Open(ctx, "kb", nil)
//	if err != nil {
//		log.Fatal(err)
//	}
//	defer v.Close()
//
// # Navigating
//
// Reading follows one path, each step costing more and saying more, as
// spec 02 (reads: entry) lays it out:
//
//   - [Vine.Locate] ranks the nodes for a question from the catalog alone
//     and answers passports: id, trail, summary, body size. No file is
//     opened.
//   - [Vine.Look] digests one node: its passport, outline or children, and
//     edges both ways. It never returns the body.
//   - [Vine.Move] walks the edges (or a branch's children) to neighbours.
//   - [Vine.Pick] reads the body: one section, several, or page by page.
//
// For example:
//
//	res, _ := v.Locate(ctx, "storm warning", vine.LocateOptions{})
//	d, _ := v.Look(ctx, res.Results[0].ID, vine.LookOptions{})
//	sec, _ := v.Pick(ctx, d.ID, vine.PickOptions{Section: d.Outline[0]})
//
// [Vine.LookBatch] and [Vine.PickBatch] take several ids under one budget.
// Region reads, spec 03 (reads: region), cover many nodes at once:
// [Vine.Scan] lists a branch, [Vine.Sniff] and [Vine.SniffEach] search
// bodies for literal terms, [Vine.Calendar], [Vine.Coverage] and
// [Vine.History] tell what the forest holds and when it changed, and
// [Vine.View] locates a media node's image. [Vine.Harvest], the
// zero-model primitive of spec 05 (composite retrieval), fuses locate and
// sniff into one answer of evidence.
//
// # Writing
//
// Every write is one git commit: spec 04 (writes and datasets).
// [Vine.Plant] and [Vine.PlantBatch] add nodes described by a [NodeSpec]
// and re-render the parent index; a dataset is born from a declared schema
// and rows. [Vine.Graft] edits a node in place with a [GraftPatch];
// [Vine.Tend] changes a dataset's rows and [Vine.Query] reads them with one
// guarded SELECT; [Vine.Transplant] moves a node and leaves a waymark at
// the old id; [Vine.Prune] removes one. A write that fails leaves the
// forest byte-identical.
//
// The markdown is the truth and the catalog is derived: after edits made
// outside the engine, [Vine.Reindex] rebuilds it, and [Vine.Validate]
// checks every file against the dialect.
//
// A forest travels as the git repository it is: [Clone] copies one from a
// remote (file://, HTTP(S) with a token, SSH with a key; credentials are
// per call, never stored), [Vine.Push] sends its commits, and [Vine.Pull]
// fast-forwards or merges per node, refusing nodes both sides changed
// with [EConflict]. [Vine.Follow] keeps a read-only replica in step with
// its origin while it serves reads, and [Vine.Origin] reports the lag.
//
// # Budgets and truncation
//
// Every read answers within a fixed token budget, [BudgetLook] for a
// digest or [BudgetPick] for a body, with tokens counted as spec 01 (token
// estimation) says: four code points each. An answer never fails for
// being too big: it drops whole items from its tail and says so with
// Truncated, and where it helps names what was cut, as [Digest] does in
// TruncatedFields. Pick's pages are byte-exact: joining a cursor walk
// reproduces the body. A caller that sees Truncated asks narrower, never
// for a bigger budget.
//
// # Refusals
//
// Every refusal is an [*Error] carrying a stable [Code] from spec 01
// (envelope and codes), a message and an optional hint, the same on every transport.
// Branch on the code with [errors.Is] and read the rest with [errors.As]:
//
//	_, err := v.Look(ctx, id, vine.LookOptions{})
//	switch {
//	case errors.Is(err, vine.ENotFound):
//		// no such node
//	case errors.Is(err, vine.EMoved):
//		// transplanted: the error's data names moved_to
//	}
//
// [CodeOf] returns the code of any error, "" for one that is not a
// refusal. A panic inside a primitive run through [Vine.Call] comes back as
// [EInternal], its detail in the log, never on the wire.
//
// # Concurrency and the writer lock
//
// A [*Vine] is safe for concurrent use. Reads never wait on writes; writes
// pass one mutex, so one write runs at a time: spec 01 (concurrency).
// Across processes each write also takes the forest's writer lock for its
// own duration only, never for the handle's life, so any number of
// processes may hold one forest open writable; a write that waits past
// [Options].LockWait answers [ELocked] naming the holder. A read-only
// handle refuses every write with [EReadOnly] before any other check.
//
// # The wire surface and scoped access
//
// [Vine.Call] runs any primitive by name with JSON arguments, validated
// against one signature table ([Signatures]); every transport goes through
// it, and composites built on the engine (such as answer's sweep) join it
// with [Register]. A host
// serves each principal through [Vine.Scoped] with a [Policy], as spec 08
// (surfaces and policy) says: a node outside the policy answers exactly as an
// absent one, and a missing capability answers [EForbidden].
//
// # Where the subpackages fit
//
// The root holds the handle and the primitives; the packages below own
// their concepts:
//
//   - [github.com/monkeyllm/vine/forest]: the on-disk format of spec 01
//     (forest format): parsing, paths, the writer lock.
//   - [github.com/monkeyllm/vine/catalog]: the derived SQLite catalog the
//     reads rank from.
//   - [github.com/monkeyllm/vine/gitops]: the forest's git repository and
//     commit subjects.
//   - [github.com/monkeyllm/vine/trails]: heat and telemetry, the
//     pheromone of spec 05 (telemetry, pheromone) that ranks well-trodden
//     nodes higher.
//   - [github.com/monkeyllm/vine/canopy]: the optional vector layer of
//     spec 05 (vectors).
//   - [github.com/monkeyllm/vine/payload]: fetching remote dataset
//     payloads into the cache.
//   - [github.com/monkeyllm/vine/answer]: the composites of spec 05
//     (composite retrieval) whose answers a model writes; the
//     zero-model evidence is the root's [Vine.Harvest]
//     ([github.com/monkeyllm/vine/harvest] keeps its earlier API).
//   - [github.com/monkeyllm/vine/model]: the chat-model contract.
//   - [github.com/monkeyllm/vine/gardener]: ingest of document trees, spec
//     06 (gardener).
//   - [github.com/monkeyllm/vine/ranger] and
//     [github.com/monkeyllm/vine/snapshot]: maintenance and portable
//     snapshots, spec 07 (maintenance, snapshots).
//   - [github.com/monkeyllm/vine/gate]: applying a model's file patch only
//     when its frame is whole.
//   - adapters/mcp, adapters/rest and adapters/cli: the transports, built
//     on Vine.Call and Vine.Scoped; adapters depend on the core, never the
//     reverse.
package vine
