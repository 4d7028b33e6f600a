// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/jsonerr"
)

// GraftMutable are the frontmatter fields graft may set (C.8, A.3; lang by
// the forest-format decision of v0.75). Everything else is written by the
// engine alone: id and created never change, updated is the clock's, links
// have their own operations and moving a node is transplant.
var GraftMutable = []string{"title", "summary", "tags", "confidence", "aliases", "origin", "lang"}

// graftOps is the closed set of patch keys, in the order a refusal lists
// them.
var graftOps = []string{"set_frontmatter", "add_links", "remove_links", "append_section", "replace_section", "replace_body"}

// Fortification is the persistent heat a re-added link pair gives its
// source and its target (C.8: reinforce before create).
const Fortification = 0.1

// GraftPatch is one graft: frontmatter sets, link additions and removals,
// and body edits, applied as one write. The zero value is the empty patch,
// which graft refuses.
type GraftPatch struct {
	// SetFrontmatter sets graft-mutable fields in the order given; a nil
	// Value removes the key (origin: null, lang: null).
	SetFrontmatter []forest.Field
	// AddLinks adds links; a pair already present is fortified instead.
	AddLinks []Link
	// RemoveLinks removes links by (rel, target); absent pairs are ignored.
	RemoveLinks []LinkRef
	// AppendSection appends "## <header>" with body, even when a section of
	// that name exists.
	AppendSection *SectionEdit
	// ReplaceSection replaces the content of an existing section.
	ReplaceSection *SectionEdit
	// ReplaceBody replaces the whole body; "" is a valid body.
	ReplaceBody *string
}

// SectionEdit names a section by its heading text (without #) and gives
// its new content.
type SectionEdit struct {
	Header string
	Body   string
}

// LinkRef identifies a link by its (rel, target) pair.
type LinkRef struct {
	Rel    string `json:"rel"`
	Target string `json:"target"`
}

func (p GraftPatch) empty() bool {
	return len(p.SetFrontmatter) == 0 && len(p.AddLinks) == 0 && len(p.RemoveLinks) == 0 &&
		p.AppendSection == nil && p.ReplaceSection == nil && p.ReplaceBody == nil
}

// GraftResult answers a graft. Commit is nil when nothing changed (only
// fortifications, or removals matching nothing); SummaryStale is set when
// the body changed and the patch did not set summary.
type GraftResult struct {
	ID           string    `json:"id"`
	Commit       *string   `json:"commit"`
	Fortified    []LinkRef `json:"fortified"`
	Trail        []string  `json:"trail"`
	SummaryStale bool      `json:"summary_stale,omitempty"`
}

func (r *GraftResult) nodeIDs() []string { return []string{r.ID} }

// HeatReinforcer is the optional write side of a HeatSource (Part D). When
// the configured HeatSource implements it, graft's fortification raises
// the persistent heat of a re-added link's source and target by delta,
// capped at 1.0 by the implementation.
type HeatReinforcer interface {
	Reinforce(ctx context.Context, ids []string, delta float64) error
}

// Graft changes an existing node (C.8): every check runs before the first
// write, a refusal leaves the forest byte-identical, and the changed node
// lands in one commit together with every index whose entry carries a new
// summary. A patch that changes no byte writes nothing and answers a nil
// Commit.
func (v *Vine) Graft(ctx context.Context, id string, patch GraftPatch) (*GraftResult, error) {
	t, release, err := v.beginWrite("graft")
	if err != nil {
		return nil, err
	}
	defer release()
	if patch.empty() {
		return nil, emptyPatch()
	}
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	old, err := v.files.node(rec)
	if err != nil {
		return nil, err
	}
	g := &grafting{v: v, old: old, patch: patch,
		n: &forest.Node{ID: old.ID, Front: old.Front.Clone(), Body: old.Body}}
	if err := g.apply(); err != nil {
		return nil, err
	}
	res := &GraftResult{ID: old.ID, Fortified: append([]LinkRef{}, g.fortified...), Trail: forest.Trail(old.ID)}
	if bytes.Equal(old.Bytes(), g.n.Bytes()) {
		v.reinforce(ctx, old.ID, g.fortified)
		return res, nil // §9.8: identical bytes are no write and no commit
	}
	sha, written, err := g.commit(ctx, t)
	if err != nil {
		return nil, err
	}
	v.markStale(ctx, written...)
	v.reinforce(ctx, old.ID, g.fortified)
	res.Commit = &sha
	if t.listening() {
		t.emit(ctx, EventNodeGrafted, map[string]any{"node": old.ID, "operations": graftOperations(patch), "commit": sha}, nil)
	}
	res.SummaryStale = g.n.Body != old.Body && !g.setsSummary()
	return res, nil
}

// grafting is one graft in progress: the stored node and its patched copy.
type grafting struct {
	v         *Vine
	old, n    *forest.Node
	patch     GraftPatch
	fortified []LinkRef
}

// apply runs the checks of C.8 in order and patches g.n; the first
// failure is returned and nothing is written.
func (g *grafting) apply() error {
	for _, step := range []func() error{g.checkBody, g.applySets, g.applyLinks, g.applyBodyOps, g.checkFinal} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// checkBody: contradictory body instructions and index bodies (steps 2-3).
func (g *grafting) checkBody() error {
	p := g.patch
	if p.ReplaceBody != nil && (p.AppendSection != nil || p.ReplaceSection != nil) {
		return envelope.New(envelope.Schema,
			"graft: replace_body cannot be combined with append_section or replace_section",
			"send the whole new body in replace_body alone, or edit sections without it")
	}
	if p.ReplaceBody != nil && forest.IsIndex(g.n.ID) {
		return envelope.New(envelope.Schema,
			"graft: replace_body is refused on the branch index "+g.n.ID+"; index bodies are generated by the indexer",
			"edit an index with append_section or replace_section; its entries follow plant, prune and transplant")
	}
	return nil
}

// applySets applies set_frontmatter (steps 4-5): every key must be
// graft-mutable, then the fields' own rules are checked, strictly for
// summary when it is set and with the stored node's tags grandfathered.
func (g *grafting) applySets() error {
	var readOnly []string
	for _, f := range g.patch.SetFrontmatter {
		if !slices.Contains(GraftMutable, f.Key) {
			readOnly = append(readOnly, "'"+f.Key+"'")
		}
	}
	if len(readOnly) > 0 {
		return envelope.New(envelope.ReadOnly,
			fmt.Sprintf("graft: set_frontmatter cannot change %s: not graft-mutable", strings.Join(readOnly, ", ")),
			"graft sets only "+strings.Join(GraftMutable, ", ")+
				"; links have add_links/remove_links, moving a node is transplant, id/type/created never change").
			With("mutable", GraftMutable)
	}
	if len(g.patch.SetFrontmatter) == 0 {
		return nil
	}
	for _, f := range g.patch.SetFrontmatter {
		setField(g.n.Front, f)
	}
	return forest.ValidateWrite(g.n, g.check())
}

// setField applies one set: nil removes, confidence is stored as a float
// and only when it is not the default 1.0 (A.3).
func setField(fm *forest.Frontmatter, f forest.Field) {
	if f.Value == nil {
		fm.Delete(f.Key)
		return
	}
	fm.Set(f.Key, f.Value)
	if f.Key != "confidence" {
		return
	}
	switch c, _ := fm.Get(f.Key); c := c.(type) {
	case int64:
		fm.Set(f.Key, float64(c))
		if c == 1 {
			fm.Delete(f.Key)
		}
	case float64:
		if c == 1.0 {
			fm.Delete(f.Key)
		}
	}
}

func (g *grafting) check() forest.WriteCheck {
	return forest.WriteCheck{Dialect: g.v.Dialect(), StrictSummary: g.setsSummary(), Prior: g.old}
}

func (g *grafting) setsSummary() bool {
	return slices.ContainsFunc(g.patch.SetFrontmatter, func(f forest.Field) bool { return f.Key == "summary" })
}

// applyLinks removes then adds links (step 6). A pair already present is
// fortified, never duplicated; a new discovered-shortcut defaults to
// confidence 0.5 and discovered_by agent.
func (g *grafting) applyLinks() error {
	d := g.v.Dialect()
	for i, l := range g.patch.AddLinks {
		if !d.HasRel(l.Rel) {
			return envelope.New(envelope.Schema,
				fmt.Sprintf("graft: add_links.%d.rel: '%s' is not a rel declared in this forest (link to '%s')", i, l.Rel, l.Target),
				relsHint(d.RelNames()))
		}
	}
	if len(g.patch.AddLinks) == 0 && len(g.patch.RemoveLinks) == 0 {
		return nil
	}
	v, _ := g.n.Front.Get("links")
	items, _ := v.([]any)
	items = slices.Clone(items)
	for _, r := range g.patch.RemoveLinks {
		items = slices.DeleteFunc(items, func(it any) bool { return linkIs(it, r.Rel, r.Target) })
	}
	for _, l := range g.patch.AddLinks {
		if slices.ContainsFunc(items, func(it any) bool { return linkIs(it, l.Rel, l.Target) }) {
			ref := LinkRef{Rel: l.Rel, Target: l.Target}
			if !slices.Contains(g.fortified, ref) {
				g.fortified = append(g.fortified, ref)
			}
			continue
		}
		items = append(items, newLinkEntry(l))
	}
	if len(items) > forest.MaxLinks {
		return envelope.New(envelope.Schema,
			fmt.Sprintf("graft: %s would have %d links, over the limit of %d per node", g.n.ID, len(items), forest.MaxLinks),
			"A node this connected is a branch candidate: split it, or remove weaker links in the same patch.")
	}
	if len(items) == 0 {
		g.n.Front.Delete("links")
	} else {
		g.n.Front.Set("links", items)
	}
	return nil
}

func linkIs(it any, rel, target string) bool {
	m, ok := it.(*forest.Frontmatter)
	return ok && m.String("rel") == rel && m.String("target") == target
}

// newLinkEntry renders a link as the file keeps it: rel, target,
// confidence, then extras in the order given.
func newLinkEntry(l Link) *forest.Frontmatter {
	e := forest.NewFrontmatter(forest.Field{Key: "rel", Value: l.Rel}, forest.Field{Key: "target", Value: l.Target})
	conf := l.Confidence
	if conf == nil && l.Rel == "discovered-shortcut" {
		half := 0.5
		conf = &half
	}
	if conf != nil {
		e.Set("confidence", *conf)
	}
	for _, f := range l.Extra {
		e.Set(f.Key, f.Value)
	}
	if l.Rel == "discovered-shortcut" && !e.Has("discovered_by") {
		e.Set("discovered_by", "agent")
	}
	return e
}

// relsHint lists the declared rels, as the plant refusal does (v0.61).
func relsHint(names []string) string {
	sorted := slices.Sorted(slices.Values(names))
	return "This forest declares these rels: " + strings.Join(sorted, ", ") +
		". New ones are declared in _meta/schema.md before first use."
}

// applyBodyOps applies replace_body, replace_section, append_section in
// that order (step 7).
func (g *grafting) applyBodyOps() error {
	p := g.patch
	if p.ReplaceBody != nil {
		g.n.Body = cleanBody(*p.ReplaceBody)
	}
	if p.ReplaceSection != nil {
		body, err := replaceSection(g.n, *p.ReplaceSection)
		if err != nil {
			return err
		}
		g.n.Body = body
	}
	if p.AppendSection != nil {
		g.n.Body = appendSection(g.n.Body, *p.AppendSection)
	}
	return nil
}

// cleanBody drops what a read would drop anyway: leading blank lines and
// trailing whitespace.
func cleanBody(s string) string {
	return strings.TrimRight(strings.TrimLeft(s, "\r\n"), " \t\r\n")
}

// headingMarks strips a header's leading "#"s (§9.16: "## Notes" as a
// header would otherwise be written "## ## Notes").
var headingMarks = regexp.MustCompile(`^#+\s*`)

func normalizeHeader(h string) string {
	return strings.Join(strings.Fields(headingMarks.ReplaceAllString(strings.TrimSpace(h), "")), " ")
}

// replaceSection keeps the matched heading line and replaces everything up
// to the next heading of the same or a higher level with a blank line and
// the trimmed text.
func replaceSection(n *forest.Node, s SectionEdit) (string, error) {
	header := normalizeHeader(s.Header)
	start, end, ok := forest.FindSection(n.Body, header)
	if !ok {
		return "", envelope.New(envelope.NotFound,
			fmt.Sprintf("graft: replace_section: no section '%s' in %s", header, n.ID),
			sectionsHint(n.Body))
	}
	body := n.Body
	headEnd := len(body)
	if i := strings.IndexByte(body[start:end], '\n'); i >= 0 {
		headEnd = start + i + 1
	}
	head := strings.TrimRight(body[start:headEnd], "\r\n") + "\n"
	var b strings.Builder
	b.WriteString(body[:start])
	b.WriteString(head)
	if text := strings.TrimSpace(s.Body); text != "" {
		b.WriteString("\n" + text + "\n")
	}
	if rest := body[end:]; rest != "" {
		b.WriteString("\n" + rest)
	}
	return b.String(), nil
}

func sectionsHint(body string) string {
	names := forest.ParseOutline(body).SectionNames()
	hint := "append_section adds a new section"
	if len(names) > 0 {
		hint += "; this node's sections: " + strings.Join(names[:min(len(names), 20)], ", ")
	}
	return hint
}

// appendSection appends "\n\n## <header>\n\n<body>\n" to the body.
func appendSection(body string, s SectionEdit) string {
	out := strings.TrimRight(body, " \t\r\n")
	if out != "" {
		out += "\n\n"
	}
	out += "## " + normalizeHeader(s.Header) + "\n"
	if text := strings.TrimSpace(s.Body); text != "" {
		out += "\n" + text + "\n"
	}
	return out
}

// checkFinal re-validates the patched node (step 8). That it reads back
// is proven by txn.put before the first file is written (E_FRONTMATTER),
// while the old file is still on disk.
func (g *grafting) checkFinal() error {
	return forest.ValidateWrite(g.n, g.check())
}

// commit stamps updated, syncs the summary into the indexes, and writes
// everything in one commit. It returns the ids of the files written.
func (g *grafting) commit(ctx context.Context, t *txn) (string, []string, error) {
	touched := newTouchSet(g.v)
	g.n.Front.Set("updated", touched.today)
	touched.put(g.n)
	if g.setsSummary() {
		if err := touched.propagateSummary(ctx, g.n); err != nil {
			return "", nil, err
		}
	}
	if err := touched.stage(t); err != nil {
		return "", nil, err
	}
	sha, err := t.commit(ctx, gitops.GraftSubject(g.n.ID, g.summary()))
	return sha, touched.ids(), err
}

// summary describes the patch for the commit subject.
func (g *grafting) summary() gitops.PatchSummary {
	p := g.patch
	s := gitops.PatchSummary{AddLinks: len(p.AddLinks), RemoveLinks: len(p.RemoveLinks)}
	for _, f := range p.SetFrontmatter {
		s.Set = append(s.Set, f.Key)
	}
	if p.AppendSection != nil {
		s.Append = []string{normalizeHeader(p.AppendSection.Header)}
	}
	if p.ReplaceSection != nil {
		s.Replace = []string{normalizeHeader(p.ReplaceSection.Header)}
	}
	if p.ReplaceBody != nil {
		s.ReplaceBody, s.ReplaceBodyWords = true, len(strings.Fields(*p.ReplaceBody))
	}
	return s
}

// reinforce deposits fortification heat, best effort: heat is derived
// state, and the write (or no-op) already stands.
func (v *Vine) reinforce(ctx context.Context, id string, fortified []LinkRef) {
	r, ok := v.heat.source.(HeatReinforcer)
	if !ok || len(fortified) == 0 {
		return
	}
	ids := []string{id}
	for _, f := range fortified {
		ids = append(ids, f.Target)
	}
	if err := r.Reinforce(ctx, ids, Fortification); err != nil {
		v.log.Warn("fortification heat not deposited", "id", id, "err", err)
	}
}

func emptyPatch() error {
	return envelope.New(envelope.Schema, "graft: patch is empty; nothing to apply",
		"a patch holds at least one of: "+strings.Join(graftOps, ", "))
}

// ---- wire ----

var graftSignature = Signature{
	Name: "graft",
	Doc: "Change an existing node with one patch: set_frontmatter {" + strings.Join(GraftMutable, ", ") +
		"}, add_links/remove_links [{rel, target}], append_section/replace_section {header, body}, or " +
		"replace_body. A new summary is copied into the parent index. Moving a node is transplant; " +
		"new nodes are plant.",
	Params: []Param{
		{Name: "id", Type: TString, Required: true, Doc: "the node to change"},
		{Name: "patch", Type: TObject, Required: true, Doc: "operations: " + strings.Join(graftOps, ", ")},
	},
}

func init() { register(primitive{sig: graftSignature, run: runGraft}) }

func runGraft(ctx context.Context, v *Vine, a Args) (any, error) {
	if err := v.writable("graft"); err != nil {
		return nil, err
	}
	patch, err := decodeGraftPatch(a.Raw("patch"))
	if err != nil {
		return nil, err
	}
	return v.Graft(ctx, a.String("id"), patch)
}

// decodeGraftPatch reads the wire patch. The key set is closed: an unknown
// key is refused naming it, so a legal operation beside it is never
// applied alone (v0.56).
func decodeGraftPatch(raw json.RawMessage) (GraftPatch, error) {
	var p GraftPatch
	members, err := orderedObject(raw)
	if err != nil {
		return p, envelope.New(envelope.Schema,
			"graft: parameter 'patch' expects object, got "+arrived(raw),
			"a patch holds at least one of: "+strings.Join(graftOps, ", "))
	}
	var unknown []string
	for _, m := range members {
		if !slices.Contains(graftOps, m.key) {
			unknown = append(unknown, "'"+m.key+"'")
		}
	}
	if len(unknown) > 0 {
		word := "key"
		if len(unknown) > 1 {
			word = "keys"
		}
		return p, envelope.New(envelope.Schema,
			fmt.Sprintf("graft: unknown patch %s %s; nothing was applied", word, strings.Join(unknown, ", ")),
			"patch operations are: "+strings.Join(graftOps, ", ")+"; relocation is transplant")
	}
	for _, m := range members {
		if isNull(m.raw) {
			continue
		}
		if err := decodeGraftOp(&p, m); err != nil {
			return p, err
		}
	}
	if p.empty() {
		return p, emptyPatch()
	}
	return p, nil
}

func decodeGraftOp(p *GraftPatch, m member) error {
	switch m.key {
	case "set_frontmatter":
		fields, err := orderedObject(m.raw)
		if err != nil {
			return patchShape(m.key, "object {field: value}", m.raw)
		}
		for _, f := range fields {
			p.SetFrontmatter = append(p.SetFrontmatter, forest.Field{Key: f.key, Value: jsonValue(f.raw)})
		}
	case "add_links":
		items, err := patchList(m)
		if err != nil {
			return err
		}
		for i, it := range items {
			l, err := decodeGraftLink(fmt.Sprintf("add_links.%d", i), it, true)
			if err != nil {
				return err
			}
			p.AddLinks = append(p.AddLinks, l)
		}
	case "remove_links":
		items, err := patchList(m)
		if err != nil {
			return err
		}
		for i, it := range items {
			l, err := decodeGraftLink(fmt.Sprintf("remove_links.%d", i), it, false)
			if err != nil {
				return err
			}
			p.RemoveLinks = append(p.RemoveLinks, LinkRef{Rel: l.Rel, Target: l.Target})
		}
	case "append_section", "replace_section":
		s, err := decodeSectionEdit(m)
		if err != nil {
			return err
		}
		if m.key == "append_section" {
			p.AppendSection = &s
		} else {
			p.ReplaceSection = &s
		}
	case "replace_body":
		s, err := asString(m.raw)
		if err != nil {
			return patchShape(m.key, "string", m.raw)
		}
		p.ReplaceBody = &s
	}
	return nil
}

func patchShape(key, want string, got json.RawMessage) error {
	return envelope.New(envelope.Schema,
		fmt.Sprintf("graft: patch.%s expects %s, got %s", key, want, arrived(got)), "")
}

func patchList(m member) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if jsonerr.Kind(m.raw) != "list" || json.Unmarshal(m.raw, &items) != nil {
		return nil, patchShape(m.key, "a list of {rel, target} objects", m.raw)
	}
	return items, nil
}

// decodeGraftLink reads one link entry. Additions keep extras (note,
// discovered_by, ...); removals name exactly {rel, target}.
func decodeGraftLink(path string, raw json.RawMessage, extras bool) (Link, error) {
	var l Link
	members, err := orderedObject(raw)
	if err != nil {
		return l, envelope.New(envelope.Schema,
			fmt.Sprintf("graft: patch.%s expects object {rel, target}, got %s", path, arrived(raw)), "")
	}
	for _, m := range members {
		if !extras && m.key != "rel" && m.key != "target" {
			return l, envelope.New(envelope.Schema,
				fmt.Sprintf("graft: patch.%s has unknown key '%s'", path, m.key),
				"a removal names a link by rel and target only")
		}
		switch m.key {
		case "rel", "target":
			s, err := asString(m.raw)
			if err != nil || strings.TrimSpace(s) == "" {
				return l, envelope.New(envelope.Schema,
					fmt.Sprintf("graft: patch.%s.%s expects a non-empty string, got %s", path, m.key, arrived(m.raw)), "")
			}
			if m.key == "rel" {
				l.Rel = strings.TrimSpace(s)
			} else {
				l.Target = strings.Trim(strings.TrimSpace(s), "/")
			}
		case "confidence":
			f, err := asNumber(m.raw)
			if err != nil || f < 0 || f > 1 {
				return l, envelope.New(envelope.Schema,
					fmt.Sprintf("graft: patch.%s.confidence expects a number in [0.0, 1.0], got %s", path, arrived(m.raw)),
					"confidence below 1.0 marks a link as unconfirmed; leave it out for a confirmed link")
			}
			l.Confidence = &f
		default:
			if !isNull(m.raw) {
				l.Extra = append(l.Extra, forest.Field{Key: m.key, Value: jsonValue(m.raw)})
			}
		}
	}
	if l.Rel == "" || l.Target == "" {
		return l, envelope.New(envelope.Schema,
			fmt.Sprintf("graft: patch.%s needs both rel and target", path), "a link is {rel, target}")
	}
	return l, nil
}

func decodeSectionEdit(m member) (SectionEdit, error) {
	var s SectionEdit
	members, err := orderedObject(m.raw)
	if err != nil {
		return s, patchShape(m.key, "object {header, body}", m.raw)
	}
	for _, f := range members {
		switch f.key {
		case "header", "body":
			v, err := asString(f.raw)
			if err != nil {
				return s, patchShape(m.key+"."+f.key, "string", f.raw)
			}
			if f.key == "header" {
				s.Header = v
			} else {
				s.Body = v
			}
		default:
			return s, envelope.New(envelope.Schema,
				fmt.Sprintf("graft: patch.%s has unknown key '%s'", m.key, f.key),
				"a section edit is {header, body}")
		}
	}
	if normalizeHeader(s.Header) == "" {
		return s, envelope.New(envelope.Schema,
			fmt.Sprintf("graft: patch.%s.header is required (the heading text, without #)", m.key),
			"e.g. {\"header\": \"Notes\", \"body\": \"...\"}")
	}
	return s, nil
}
