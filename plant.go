// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/journal"
	"github.com/monkeyllm/vine/internal/payloadplace"
	"github.com/monkeyllm/vine/internal/trust"
)

// MaxBatchPlant is the most nodes one batch plant takes (C.7.4).
const MaxBatchPlant = 20

// PlantOptions are the wire options of plant.
type PlantOptions struct {
	// IfAbsent answers a taken id with created: false instead of E_SCHEMA,
	// writing nothing (C.7.2).
	IfAbsent bool
	// DryRun runs every check of the real plant and writes nothing; a
	// failure lists every determinable problem (C.7.3).
	DryRun bool

	// Adopted is the Gardener's trusted-ingest grant (G.2.5): it drops the
	// two C.7.1 count limits and the C.7.5 media payload check, and
	// nothing else. Only code inside this module can construct a grant,
	// and the wire decoder never fills it: the plant signature has no such
	// parameter, so a request naming one is refused as unknown.
	Adopted trust.Grant `json:"-"`
}

// PlantResult answers a single-node plant. Created is on every result;
// Valid and DryRun only on dry runs.
type PlantResult struct {
	ID      string   `json:"id"`
	Created *bool    `json:"created,omitempty"`
	Valid   bool     `json:"valid,omitempty"`
	Commit  string   `json:"commit,omitempty"`
	Trail   []string `json:"trail,omitempty"`
	DryRun  bool     `json:"dry_run,omitempty"`
}

func (r *PlantResult) nodeIDs() []string { return []string{r.ID} }

// PlantBatchResult answers a list plant: the ids created in list order,
// one commit for all, and the ids that were already taken under IfAbsent.
type PlantBatchResult struct {
	Created  []string `json:"created,omitempty"`
	Valid    bool     `json:"valid,omitempty"`
	Commit   string   `json:"commit,omitempty"`
	Count    int      `json:"count"`
	Existing []string `json:"existing,omitempty"`
	DryRun   bool     `json:"dry_run,omitempty"`
}

func (r *PlantBatchResult) nodeIDs() []string { return r.Created }

// plantOptions are the engine-internal switches no transport can reach.
type plantOptions struct {
	PlantOptions
	adopted bool // trusted ingest: dataset limits and the media check relaxed (G.2.5)
}

// Plant writes one new node, adds its entry to the parent index, and
// commits both in one commit (C.7). Every check runs before the first
// write; a refusal leaves the forest byte-identical.
func (v *Vine) Plant(ctx context.Context, spec NodeSpec, opt PlantOptions) (*PlantResult, error) {
	if err := plantInGrant(ctx, "node", spec); err != nil {
		return nil, err
	}
	return v.plantOne(ctx, spec, plantOptions{PlantOptions: opt, adopted: opt.Adopted.Adopted()})
}

// PlantBatch plants up to 20 nodes as one write: every node is rehearsed
// against the forest plus the earlier nodes of the batch (a branch and its
// children may share a batch), then all land in one commit, or none does.
func (v *Vine) PlantBatch(ctx context.Context, specs []NodeSpec, opt PlantOptions) (*PlantBatchResult, error) {
	for i, spec := range specs {
		if err := plantInGrant(ctx, fmt.Sprintf("node[%d]", i), spec); err != nil {
			return nil, err
		}
	}
	return v.plantBatch(ctx, specs, plantOptions{PlantOptions: opt, adopted: opt.Adopted.Adopted()})
}

// plan is a batch in the making: the nodes it creates and the indexes it
// rewrites, by id, so later nodes see earlier ones.
type plan struct {
	v       *Vine
	today   string
	created []*forest.Node
	touched map[string]*forest.Node // new nodes and rewritten indexes
	births  []*birth                // dataset payloads to create
}

func (v *Vine) newPlan() *plan {
	return &plan{v: v, today: v.today(), touched: map[string]*forest.Node{}}
}

func (v *Vine) plantOne(ctx context.Context, spec NodeSpec, opt plantOptions) (*PlantResult, error) {
	t, release, err := v.beginWrite("plant")
	if err != nil {
		return nil, err
	}
	defer release()
	p := v.newPlan()
	n, taken, problems := p.rehearse(ctx, spec, opt, opt.DryRun)
	if len(problems) > 0 {
		return nil, dryRunEnvelope(problems, opt.DryRun)
	}
	if taken {
		res := &PlantResult{ID: spec.ID, Created: new(false), Trail: forest.Trail(spec.ID)}
		res.DryRun = opt.DryRun
		return res, nil
	}
	if opt.DryRun {
		return &PlantResult{ID: n.ID, Valid: true, DryRun: true}, nil
	}
	subject := gitops.PlantSubject(n.ID, n.Title(), n.Source())
	sha, err := p.apply(ctx, t, subject)
	if err != nil {
		return nil, err
	}
	return &PlantResult{ID: n.ID, Created: new(true), Commit: sha, Trail: forest.Trail(n.ID)}, nil
}

func (v *Vine) plantBatch(ctx context.Context, specs []NodeSpec, opt plantOptions) (*PlantBatchResult, error) {
	t, release, err := v.beginWrite("plant")
	if err != nil {
		return nil, err
	}
	defer release()
	if err := checkBatchShape(specs); err != nil {
		return nil, err
	}
	p := v.newPlan()
	var existing []string
	var problems []*envelope.Error
	for i, spec := range specs {
		_, taken, errs := p.rehearse(ctx, spec, opt, opt.DryRun)
		for _, e := range errs {
			e = prefixed(spec.ID, e)
			problems = append(problems, e.With("index", i))
		}
		if len(problems) > 0 && !opt.DryRun {
			break
		}
		if taken {
			existing = append(existing, spec.ID)
		}
	}
	if len(problems) > 0 {
		return nil, dryRunEnvelope(problems, opt.DryRun)
	}
	res := &PlantBatchResult{Count: len(p.created), Existing: existing}
	if opt.DryRun {
		res.Valid, res.DryRun = true, true
		return res, nil
	}
	res.Created = []string{}
	for _, n := range p.created {
		res.Created = append(res.Created, n.ID)
	}
	if len(p.created) == 0 {
		return res, nil // every id taken: nothing to commit
	}
	sha, err := p.apply(ctx, t, gitops.PlantBatchSubject(len(p.created)))
	if err != nil {
		return nil, err
	}
	res.Commit = sha
	return res, nil
}

func checkBatchShape(specs []NodeSpec) error {
	if len(specs) == 0 || len(specs) > MaxBatchPlant {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("plant: parameter 'node' takes 1 to %d nodes, got %d", MaxBatchPlant, len(specs)),
			"split larger batches; each batch is one commit")
	}
	seen := map[string]bool{}
	for i, s := range specs {
		if len(s.Schema) > 0 || s.rowsGiven {
			return envelope.New(envelope.Schema,
				fmt.Sprintf("plant: node[%d] (%s) carries schema/rows; a dataset is born by a single-node plant", i, s.ID),
				"plant the dataset alone, then the rest as a batch")
		}
		if seen[s.ID] {
			return envelope.New(envelope.Schema, fmt.Sprintf("plant: id %s appears twice in the batch", s.ID),
				"each node of a batch has its own id")
		}
		seen[s.ID] = true
	}
	return nil
}

// prefixed puts "<id>: " before a batch member's message, as C.7.4 asks.
func prefixed(id string, e *envelope.Error) *envelope.Error {
	c := *e
	c.Data = append([]envelope.KV(nil), e.Data...)
	c.Message = id + ": " + e.Message
	return &c
}

// dryRunEnvelope is the first problem; a dry run also lists them all.
func dryRunEnvelope(problems []*envelope.Error, dry bool) error {
	first := *problems[0]
	first.Data = nil
	if !dry {
		for _, kv := range problems[0].Data {
			if kv.Key != "index" && kv.Key != "id" {
				first.Data = append(first.Data, kv)
			}
		}
		return &first
	}
	list := make([]map[string]any, len(problems))
	for i, p := range problems {
		entry := map[string]any{"code": p.Code, "message": p.Message}
		if p.Hint != "" {
			entry["hint"] = p.Hint
		}
		for _, kv := range p.Data {
			if kv.Key == "index" || kv.Key == "id" {
				entry[kv.Key] = kv.Value
			}
		}
		list[i] = entry
	}
	return first.With("errors", list)
}

// rehearse runs the checks of C.7.2 in order for one spec against the
// forest plus the plan. all collects every determinable problem (dry
// runs); otherwise the first problem stops it. On success the node and
// its parent index are staged into the plan (or taken is true).
func (p *plan) rehearse(ctx context.Context, spec NodeSpec, opt plantOptions, all bool) (n *forest.Node, taken bool, problems []*envelope.Error) {
	add := func(err error) bool {
		if err == nil {
			return false
		}
		e := envelope.From("plant", err)
		if _, ok := e.Get("id"); !ok {
			e = e.With("id", spec.ID)
		}
		problems = append(problems, e)
		return !all
	}
	if err := checkCanonicalID(spec.ID); add(err) {
		return nil, false, problems
	} else if err != nil {
		return nil, false, problems // nothing else can be judged without an address
	}
	if len(spec.Schema) > 0 || spec.rowsGiven {
		if stop := add(p.v.checkDatasetSpec(spec, opt.adopted)); stop {
			return nil, false, problems
		}
	}
	n = &forest.Node{ID: spec.ID, Front: spec.frontmatter(p.today), Body: spec.body()}
	check := forest.WriteCheck{Dialect: p.v.Dialect(), StrictSummary: true, Plant: true}
	if all {
		for _, e := range forest.ValidateWriteAll(n, check) {
			add(e)
		}
	} else if add(forest.ValidateWrite(n, check)) {
		return nil, false, problems
	}
	exists, err := p.idTaken(ctx, spec.ID)
	if add(err) {
		return nil, false, problems
	}
	if exists && opt.IfAbsent {
		if len(problems) == 0 {
			return nil, true, nil
		}
	} else if exists && add(envelope.New(envelope.Schema, "id already exists: "+spec.ID,
		"graft changes an existing node; plant with if_absent answers created: false instead")) {
		return nil, false, problems
	}
	if add(p.checkParent(ctx, spec)) {
		return nil, false, problems
	}
	if add(p.v.checkPayloadBirth(spec)) {
		return nil, false, problems
	}
	if add(checkPayloadPlace(ctx, p.v.place, spec)) {
		return nil, false, problems
	}
	if n.Type() == "media" && !opt.adopted && add(checkMediaPayload(ctx, p.v.place, spec)) {
		return nil, false, problems
	}
	if len(problems) > 0 {
		return nil, false, problems
	}
	if err := p.stage(ctx, n, spec); err != nil {
		return nil, false, []*envelope.Error{envelope.From("plant", err)}
	}
	return n, false, nil
}

// checkCanonicalID refuses ids that are not the canonical spelling, so a
// non-canonical spelling never creates a file or a catalog row.
func checkCanonicalID(id string) error {
	trimmed := strings.Trim(strings.TrimSpace(id), "/")
	if id == "" || trimmed != id || strings.HasSuffix(id, forest.NodeExt) || strings.Contains(id, "//") {
		return envelope.New(envelope.Schema, fmt.Sprintf("plant: id %q is not a canonical id", id),
			"an id is the path without .md and without leading or trailing slashes, e.g. projects/roadmap")
	}
	if strings.ContainsFunc(id, unicode.IsControl) {
		return envelope.New(envelope.Schema, fmt.Sprintf("plant: id %q contains a control character", id),
			"an id names a file, so it holds no NUL byte or other control character")
	}
	if reason := forest.IDTooLong(id); reason != "" {
		return envelope.New(envelope.Schema, fmt.Sprintf("plant: id %s %s", clipID(id), reason),
			fmt.Sprintf("an id names a file: each segment at most %d bytes (%d for the last, which gains .md), "+
				"the whole id at most %d; shorten it", forest.MaxNameBytes, forest.MaxNameBytes-len(forest.NodeExt),
				forest.MaxIDBytes)).With("limit", "id_length")
	}
	return nil
}

// clipID shortens an id for a message about its length: the caller sent
// it and knows it; a kilobyte of it helps no one.
func clipID(id string) string {
	const keep = 60
	if len(id) <= keep {
		return strconv.Quote(id)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(id[cut]) {
		cut--
	}
	return strconv.Quote(id[:cut]) + "…"
}

// idTaken reports whether a node file exists for id or an earlier batch
// node claims it. The id is contained first (E_NOT_FOUND on escape).
func (p *plan) idTaken(ctx context.Context, id string) (bool, error) {
	if _, ok := p.touched[id]; ok && p.isCreated(id) {
		return true, nil
	}
	fp, err := p.v.root.Path(id)
	if err != nil {
		return false, envelope.New(envelope.NotFound, "id escapes forest: "+id,
			"ids name files inside the forest")
	}
	if _, err := os.Stat(fp); err == nil {
		return true, nil
	} else if !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	return false, nil
}

func (p *plan) isCreated(id string) bool {
	for _, n := range p.created {
		if n.ID == id {
			return true
		}
	}
	return false
}

// checkParent: the parent must be a branch (in the catalog or earlier in
// the batch) and must be the id's parent index.
func (p *plan) checkParent(ctx context.Context, spec NodeSpec) error {
	parent := strings.TrimSpace(spec.Parent)
	if _, ok := p.touched[parent]; !ok {
		rec, found, err := p.v.cat.Get(ctx, parent)
		if err != nil {
			return err
		}
		if !found || rec.Kind != "branch" {
			return envelope.New(envelope.NotFound, "parent branch not found: "+spec.Parent,
				"plant the branch first (type branch, id <folder>/_index), or in the same batch before its children")
		}
	}
	if want := forest.ParentIndex(spec.ID); parent != want {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("plant: parent of %s must be %s, got %s", spec.ID, want, spec.Parent),
			"the parent is the index of the folder the id lives in")
	}
	return nil
}

// checkMediaPayload (C.7.5): a media node from the wire must name a payload
// inside the forest that exists, before the first write.
func checkMediaPayload(ctx context.Context, place *payloadplace.Place, spec NodeSpec) error {
	hint := "store the bytes first (ingest mode upload, files: [{name, b64}]), then plant the media node naming them"
	if spec.Payload == "" {
		return envelope.New(envelope.Schema, "plant: a media node needs a payload naming its file", hint)
	}
	if f := place.Stat(payloadScope(ctx), spec.ID, spec.Payload); !f.Present {
		return envelope.New(envelope.Schema, "plant: payload not found: "+spec.Payload, hint)
	}
	return nil
}

// checkPayloadPlace applies the payload rule to a passport's payload at
// write time (payloadplace.Place.CheckWrite); a payload the caller's
// grant cannot reach is refused as out of grant. A born dataset's name is
// checked by payloadName.
func checkPayloadPlace(ctx context.Context, place *payloadplace.Place, spec NodeSpec) error {
	if len(spec.Schema) > 0 {
		return nil
	}
	err := place.CheckWrite(payloadScope(ctx), "plant", spec.ID, spec.Payload)
	if errors.Is(err, payloadplace.ErrHidden) {
		return scopeOf(ctx).outOfGrant("plant", "payload", spec.Payload)
	}
	return err
}

// stage adds the node and its parent-index entry to the plan.
func (p *plan) stage(ctx context.Context, n *forest.Node, spec NodeSpec) error {
	if len(spec.Schema) > 0 {
		prepareBirth(n, spec)
		p.births = append(p.births, &birth{node: n, spec: spec})
	}
	parent, err := p.index(ctx, forest.ParentIndex(n.ID))
	if err != nil {
		return err
	}
	section, line := forest.SectionDirect, forest.EntryLine(n.ID, n.Summary())
	if n.Type() == "branch" {
		section = forest.SectionSubBranches
	}
	parent.Body = forest.SetEntry(parent.Body, section, n.ID, line)
	rerenderIndex(parent, p.today)
	p.created = append(p.created, n)
	p.touched[n.ID] = n
	return nil
}

// index returns the plan's copy of an index node, reading it on first use.
func (p *plan) index(ctx context.Context, id string) (*forest.Node, error) {
	if n, ok := p.touched[id]; ok {
		return n, nil
	}
	rec, err := p.v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if path, err := p.v.root.TrustedPath(rec.ID); err == nil {
		if n, ok := p.v.recent.node(p.v.generation(ctx), rec.ID, path); ok {
			p.touched[id] = n
			return n, nil
		}
	}
	n, err := p.v.files.node(rec)
	if err != nil {
		return nil, err
	}
	p.touched[id] = n
	return n, nil
}

// rerenderIndex recounts an index's coverage from its entry lines and
// stamps updated.
func rerenderIndex(n *forest.Node, today string) {
	notes, subs := forest.CountCoverage(n.Body)
	n.Front.Set("coverage", forest.FormatCoverage(notes, subs))
	n.Front.Set("updated", today)
}

// apply writes the plan: dataset payloads first (their hashes land in the
// passports), then every touched node, in one commit.
func (p *plan) apply(ctx context.Context, t *txn, subject string) (string, error) {
	for _, b := range p.births {
		name, _ := payloadName(b.spec)
		if err := t.note(journal.Born, payloadplace.LexicalRel(b.spec.ID, name), ""); err != nil {
			p.v.unbear(p.births)
			return "", err
		}
		if err := p.v.bear(ctx, b); err != nil {
			p.v.unbear(p.births)
			return "", err
		}
	}
	ids := make([]string, 0, len(p.touched))
	for _, n := range p.created {
		ids = append(ids, n.ID)
	}
	for id := range p.touched {
		if !p.isCreated(id) {
			ids = append(ids, id)
		}
	}
	for _, id := range ids {
		if err := t.put(p.touched[id]); err != nil {
			p.v.unbear(p.births)
			return "", err
		}
	}
	sha, err := t.commit(ctx, subject)
	if err != nil {
		p.v.unbear(p.births)
		return "", err
	}
	t.emitPlanted(ctx, p.created, sha)
	return sha, nil
}

// ---- wire ----

var plantSignature = Signature{
	Name: "plant",
	Doc: "Write new nodes: one node object, or a list of up to 20 as one commit. Each node needs id, type, " +
		"title, summary (A.4: at most 60 tokens) and parent (the id's parent index). graft changes an existing node.",
	Params: []Param{
		{Name: "node", Type: TObjectOrList, Required: true, Doc: "a NodeSpec object or a list of 1-20"},
		{Name: "if_absent", Type: TBoolean, Default: false, Doc: "answer created:false for a taken id instead of refusing"},
		{Name: "dry_run", Type: TBoolean, Default: false, Doc: "check everything, write nothing"},
	},
}

func init() { register(primitive{sig: plantSignature, run: runPlant}) }

func runPlant(ctx context.Context, v *Vine, a Args) (any, error) {
	if err := v.writable("plant"); err != nil {
		return nil, err
	}
	opt := PlantOptions{IfAbsent: a.Bool("if_absent"), DryRun: a.Bool("dry_run")}
	if !a.IsList("node") {
		spec, err := decodeWireNode("node", a.Raw("node"))
		if err != nil {
			return nil, err
		}
		return v.Plant(ctx, spec, opt)
	}
	items := a.RawItems("node")
	specs := make([]NodeSpec, 0, len(items))
	for i, it := range items {
		spec, err := decodeWireNode(fmt.Sprintf("node[%d]", i), it)
		if err != nil {
			return nil, err
		}
		specs = append(specs, spec)
	}
	return v.PlantBatch(ctx, specs, opt)
}

// decodeWireNode decodes one node of a wire plant. A node naming
// "adopted" is refused rather than kept as custom frontmatter: trusted
// ingest is a grant the Gardener holds, and a request that tries to carry
// it is an error, never a relaxed guard (G.2.5).
func decodeWireNode(field string, raw json.RawMessage) (NodeSpec, error) {
	if members, err := orderedObject(raw); err == nil {
		if _, ok := lookup(members, "adopted"); ok {
			return NodeSpec{}, envelope.New(envelope.Schema,
				fmt.Sprintf("plant: %s.adopted is not a plant parameter", field),
				"trusted ingest is granted to the Gardener only; plant the node without it")
		}
	}
	return decodeNodeSpec(field, raw)
}
