// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/goccy/go-yaml"

	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/budget"
)

// PickOptions are the wire parameters of pick besides the id. The two
// addressing schemes never combine: Section or Sections with Paged or
// After is refused with E_SCHEMA.
type PickOptions struct {
	// Section reads one section by header name (case-insensitive; an exact
	// header first, else the first header starting with it).
	Section string

	// Sections reads 1 to 10 sections in one call under one 4000-token
	// budget; a non-nil list selects the list shape even for one name.
	Sections []string

	// Paged asks for the page shape even when the body fits one page (the
	// wire's after="" does this). After, when set, implies it.
	Paged bool

	// After is the cursor b<N> a previous page returned as next; the page
	// resumes at block N+1.
	After string
}

// ContentShape tells which of pick's four answers a Content is.
type ContentShape int

// The shapes of pick's answer.
const (
	// ContentBody is the whole body: id, title, body, body_tokens, truncated.
	ContentBody ContentShape = iota
	// ContentSection is one section: id, title, section, body, body_tokens,
	// truncated, and cut when an oversize section was clipped.
	ContentSection
	// ContentPage is a page of the body: id, title, total, body,
	// body_tokens, returned, truncated, then cut, next, outline and hint
	// when they apply.
	ContentPage
	// ContentSections is a section list: id, title, sections, missing,
	// dropped, truncated, and hint when names are missing.
	ContentSections
)

// Content is pick's answer (C.4). Pages are byte-exact substrings of the
// body: joining the pages of a cursor walk reproduces it exactly, unless a
// page says Cut (a single block over 4000 tokens, clipped).
type Content struct {
	Shape ContentShape
	ID    string
	Title string

	Section    string // ContentSection: the name as asked
	Body       string
	BodyTokens int

	Total    int    // ContentPage: blocks in the body
	Returned int    // ContentPage: blocks in this page
	Next     string // ContentPage: cursor of the following page, "" on the last
	Cut      bool   // an oversize block or section was clipped to 4000 tokens
	Outline  []string
	Hint     string

	Sections []PickedSection // ContentSections
	Missing  []string
	Dropped  []string

	Truncated bool
}

// PickedSection is one section of a section list: the name asked, the
// header it matched (a prefix match may resolve another string), and the
// section's text including its header line.
type PickedSection struct {
	Section    string `json:"section"`
	Header     string `json:"header"`
	Body       string `json:"body"`
	BodyTokens int    `json:"body_tokens"`
}

func (c *Content) nodeIDs() []string { return []string{c.ID} }

// MarshalJSON emits the keys of the content's shape in the specification's
// order.
func (c Content) MarshalJSON() ([]byte, error) {
	o := newWireObject()
	var err error
	add := func(k string, v any) {
		if err == nil {
			err = o.add(k, v)
		}
	}
	add("id", c.ID)
	add("title", c.Title)
	switch c.Shape {
	case ContentBody:
		add("body", c.Body)
		add("body_tokens", c.BodyTokens)
		add("truncated", c.Truncated)
	case ContentSection:
		add("section", c.Section)
		add("body", c.Body)
		add("body_tokens", c.BodyTokens)
		add("truncated", c.Truncated)
		if c.Cut {
			add("cut", true)
		}
	case ContentPage:
		add("total", c.Total)
		add("body", c.Body)
		add("body_tokens", c.BodyTokens)
		add("returned", c.Returned)
		add("truncated", c.Truncated)
		if c.Cut {
			add("cut", true)
		}
		if c.Next != "" {
			add("next", c.Next)
		}
		if c.Outline != nil {
			add("outline", c.Outline)
		}
		if c.Hint != "" {
			add("hint", c.Hint)
		}
	case ContentSections:
		add("sections", listOrEmpty(c.Sections))
		add("missing", listOrEmpty(c.Missing))
		add("dropped", listOrEmpty(c.Dropped))
		add("truncated", c.Truncated)
		if c.Hint != "" {
			add("hint", c.Hint)
		}
	}
	if err != nil {
		return nil, err
	}
	return o.bytes(), nil
}

// Pick returns a node's body (C.4) within 4000 tokens: the whole body when
// it fits, else its first page with next, outline and a hint; one section;
// a page from a cursor; or a section list. Bodies of content: cached and
// content: reference nodes are read from their backing file; one that
// cannot be reached answers E_NOT_FOUND.
func (v *Vine) Pick(ctx context.Context, id string, opt PickOptions) (*Content, error) {
	start, err := opt.check()
	if err != nil {
		return nil, err
	}
	rec, err := v.resolver.resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	src, err := v.files.pickSource(rec)
	if err != nil {
		return nil, err
	}
	return src.pick(opt, start)
}

// check refuses combinations and cursors before any lookup and returns the
// first block a page starts at.
func (opt PickOptions) check() (start int, err error) {
	if (opt.Section != "" || opt.Sections != nil) && (opt.Paged || opt.After != "") {
		return 0, errSectionWithAfter()
	}
	if opt.Section != "" && opt.Sections != nil {
		return 0, envelope.New(envelope.Schema,
			"pick: give one section name or a list of names, not both",
			"a list of one name returns the list shape")
	}
	if opt.Sections != nil && (len(opt.Sections) == 0 || len(opt.Sections) > MaxPickSections) {
		return 0, envelope.Errorf(envelope.Schema,
			"pick: parameter 'section' got a list of %d names; expected 1 to %d", len(opt.Sections), MaxPickSections).
			WithHint("pass one name as a string, or a list of up to " + strconv.Itoa(MaxPickSections) + " names")
	}
	return parsePickCursor(opt.After)
}

// errSectionWithAfter refuses the two addressing schemes together (C.4.1 r5).
func errSectionWithAfter() error {
	return envelope.New(envelope.Schema,
		"pick: parameters 'section' and 'after' never combine: after pages through the whole body, section addresses parts of it",
		"drop after to read sections, or drop section to page with after")
}

// parsePickCursor reads a page cursor: "" starts at block 0, "b<N>" at N+1.
func parsePickCursor(after string) (int, error) {
	if after == "" {
		return 0, nil
	}
	digits, ok := strings.CutPrefix(after, "b")
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || n < 0 || digits != strconv.Itoa(n) {
		return 0, envelope.Errorf(envelope.Schema,
			"pick: parameter 'after' got %q; expected a cursor b<N> as returned in next, or \"\" for the first page", after).
			WithHint("pass the next value of the previous page unchanged")
	}
	return min(n, 1<<40) + 1, nil
}

// pickSource is a node's resolved body with what pick shows beside it.
type pickSource struct {
	id, title string
	body      string
	outline   []string // H2 and H3 headers of body, in order
}

// pickSource reads the body pick serves: the node's own body, or for
// content: cached and content: reference the backing file (G.7), whose
// outline is then recomputed from what was read.
func (f nodeFiles) pickSource(rec catalog.Record) (*pickSource, error) {
	if body, ok := f.inlineBody(rec); ok {
		return &pickSource{id: rec.ID, title: rec.Title, body: body, outline: listOrEmpty(rec.Outline)}, nil
	}
	n, err := f.node(rec)
	if err != nil {
		return nil, err
	}
	src := &pickSource{id: rec.ID, title: rec.Title, body: n.Body, outline: listOrEmpty(rec.Outline)}
	var body string
	switch n.Content() {
	case "cached":
		body, err = f.cachedBody(rec.ID)
	case "reference":
		body, err = f.referenceBody(rec.ID, n.Front.String("source_path"))
	default:
		return src, nil
	}
	if err != nil {
		return nil, err
	}
	src.body, src.outline = body, listOrEmpty(forest.ParseOutline(body).SectionNames())
	return src, nil
}

// inlineBody reads the body of a node whose frontmatter cannot name a
// content mode, without decoding the YAML (the larger part of a pick's
// cost). Any frontmatter that mentions "content", any file of another
// shape, and any read error take the full parse instead, which also
// reports what is wrong.
func (f nodeFiles) inlineBody(rec catalog.Record) (string, bool) {
	p, err := f.root.TrustedPath(rec.ID)
	if err != nil {
		return "", false
	}
	data, err := forest.ReadFile(p)
	if err != nil {
		return "", false
	}
	return splitInlineBody(normalizedText(data))
}

// splitInlineBody splits a node file's text exactly as forest.Parse does
// and returns the body, unless the frontmatter mentions "content".
func splitInlineBody(text string) (string, bool) {
	const delim = "---"
	if !strings.HasPrefix(text, delim) {
		return "", false
	}
	end := strings.Index(text[len(delim):], "\n"+delim)
	if end < 0 || strings.Contains(text[len(delim):len(delim)+end], "content") {
		return "", false
	}
	end += len(delim)
	nl := strings.IndexByte(text[end+1:], '\n')
	if nl < 0 {
		return "", true
	}
	return strings.TrimLeft(text[end+1+nl+1:], "\n"), true
}

// BackedBody is a node's body as pick reads it (G.7): the passport's own
// body for inline content, the derived body cache for content: cached, the
// source file under the recorded source_root for content: reference. An
// unreachable body is E_NOT_FOUND that never quotes a path. Hosts that
// export passports (the REST export route) read bodies through it.
func (v *Vine) BackedBody(n *forest.Node) (string, error) {
	return v.files.backedBody(n)
}

// backedBody is BackedBody over f.
func (f nodeFiles) backedBody(n *forest.Node) (string, error) {
	switch n.Content() {
	case "cached":
		return f.cachedBody(n.ID)
	case "reference":
		return f.referenceBody(n.ID, n.Front.String("source_path"))
	}
	return n.Body, nil
}

// cachedBody reads _derived/bodies/<id>.md.
func (f nodeFiles) cachedBody(id string) (string, error) {
	p := filepath.Join(f.root.Dir(), forest.DerivedDir, "bodies", filepath.FromSlash(id)+forest.NodeExt)
	data, err := forest.ReadFile(p)
	if err != nil {
		return "", envelope.New(envelope.NotFound,
			"body not reachable: "+id+" (content: cached)",
			"its cached body _derived/bodies/"+id+".md is missing; sync rebuilds it. "+
				"locate, look and scan still work on this node")
	}
	return strings.TrimLeft(normalizedText(data), "\n"), nil
}

// referenceBody reads a content: reference body live from the source file,
// which must lie under the gardener's source_root (G.7 r5). The refusal
// never quotes the path: source_path is ordinary frontmatter anyone may
// set, and echoing it would probe the host's files.
func (f nodeFiles) referenceBody(id, sourcePath string) (string, error) {
	unreachable := envelope.New(envelope.NotFound,
		"body not reachable: "+id+" (content: reference)",
		"its source file is missing or lies outside the recorded source root; sync refreshes it. "+
			"locate, look and scan still work on this node")
	root := f.sourceRoot()
	if root == "" || sourcePath == "" || remoteURI.MatchString(sourcePath) {
		return "", unreachable
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", unreachable
	}
	real, err := filepath.EvalSymlinks(filepath.Join(realRoot, filepath.FromSlash(sourcePath)))
	if err != nil {
		return "", unreachable
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || rel == "." || rel == ".." ||
		strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", unreachable
	}
	data, err := forest.ReadFile(real)
	if err != nil {
		return "", unreachable
	}
	return strings.TrimLeft(normalizedText(data), "\n"), nil
}

// sourceRoot is source_root from _meta/gardener.yaml, absolute; "" when
// unset. A relative root is taken relative to the forest.
func (f nodeFiles) sourceRoot() string {
	data, err := forest.ReadFile(filepath.Join(f.root.Dir(), forest.MetaDir, "gardener.yaml"))
	if err != nil {
		return ""
	}
	var cfg struct {
		SourceRoot string `yaml:"source_root"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil || strings.TrimSpace(cfg.SourceRoot) == "" {
		return ""
	}
	if filepath.IsAbs(cfg.SourceRoot) {
		return cfg.SourceRoot
	}
	return filepath.Join(f.root.Dir(), cfg.SourceRoot)
}

// normalizedText reads a file as node files are read: CRLF and lone CR
// normalized to LF.
func normalizedText(data []byte) string {
	if bytes.IndexByte(data, '\r') < 0 {
		return string(data)
	}
	s := strings.ReplaceAll(string(data), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// pick dispatches on the addressing scheme (C.4 §4.2).
func (s *pickSource) pick(opt PickOptions, start int) (*Content, error) {
	switch {
	case opt.Sections != nil:
		return s.sectionList(opt.Sections), nil
	case opt.Section != "":
		return s.section(opt.Section)
	case opt.Paged || opt.After != "":
		return s.page(start), nil
	}
	tokens := budget.EstimateTokens(s.body)
	if tokens <= BudgetPick {
		return &Content{Shape: ContentBody, ID: s.id, Title: s.title, Body: s.body, BodyTokens: tokens}, nil
	}
	c := s.page(0)
	c.Outline = s.outline
	if c.Next == "" {
		// One block, clipped: there is no next page to teach.
		c.Hint = fmt.Sprintf("The body is %d tokens in one block with no blank line to page at; it was clipped "+
			"to %d tokens (cut). Read single parts with section=<header> from outline.", tokens, BudgetPick)
		return c, nil
	}
	c.Hint = fmt.Sprintf("The body is %d tokens in %d blocks, more than one %d-token page; this is page one (%d blocks). "+
		"Continue with after=%q and keep passing each page's next until none is returned; "+
		"or read single parts with section=<header> from outline.",
		tokens, c.Total, BudgetPick, c.Returned, c.Next)
	return c, nil
}

// pageBlockEnds splits a body into blocks at every run of two or more
// newlines, each block keeping its trailing run, and returns the offset
// where each block ends: the blocks concatenate to the body exactly.
func pageBlockEnds(body string) []int {
	var ends []int
	for i := 0; i < len(body); {
		j := strings.Index(body[i:], "\n\n")
		if j < 0 {
			ends = append(ends, len(body))
			break
		}
		k := i + j + 2
		for k < len(body) && body[k] == '\n' {
			k++
		}
		ends = append(ends, k)
		i = k
	}
	return ends
}

// page returns the blocks from start on while their running token sum
// stays within 4000; the first block is always taken, clipped and flagged
// cut when it alone is over (C.4.1).
func (s *pickSource) page(start int) *Content {
	ends := pageBlockEnds(s.body)
	c := &Content{Shape: ContentPage, ID: s.id, Title: s.title, Total: len(ends)}
	if start >= len(ends) {
		return c
	}
	from := 0
	if start > 0 {
		from = ends[start-1]
	}
	sum, last := 0, start
	for i, at := start, from; i < len(ends); i++ {
		t := budget.EstimateTokens(s.body[at:ends[i]])
		if i > start && sum+t > BudgetPick {
			break
		}
		sum, last, at = sum+t, i, ends[i]
	}
	c.Body = s.body[from:ends[last]]
	if sum > BudgetPick {
		c.Body, c.Cut = budget.TruncateText(c.Body, BudgetPick), true
	}
	c.BodyTokens = budget.EstimateTokens(c.Body)
	c.Returned = last - start + 1
	if last+1 < len(ends) {
		c.Next = "b" + strconv.Itoa(last)
	}
	c.Truncated = c.Cut || c.Next != ""
	return c
}

// findSection returns the text of the section a name addresses (from its
// header line to the next header of the same or a higher level, trailing
// white space trimmed) and the header's text.
func (s *pickSource) findSection(name string) (text, header string, ok bool) {
	start, end, ok := forest.FindSection(s.body, name)
	if !ok {
		return "", "", false
	}
	text = strings.TrimRightFunc(s.body[start:end], unicode.IsSpace)
	line, _, _ := strings.Cut(text, "\n")
	return text, atxHeaderText(line), true
}

// section returns one section (C.4 §4.3). An oversize section is clipped
// to 4000 tokens and flagged truncated and cut (spec 02 §10 item 9).
func (s *pickSource) section(name string) (*Content, error) {
	text, _, ok := s.findSection(name)
	if !ok {
		return nil, envelope.Errorf(envelope.NotFound, "pick: section not found: %q in %s", name, s.id).
			WithHint(outlineHint(s.id, s.outline) + "; pick without section returns the body")
	}
	c := &Content{Shape: ContentSection, ID: s.id, Title: s.title, Section: name, Body: text}
	if budget.EstimateTokens(text) > BudgetPick {
		c.Body, c.Cut, c.Truncated = budget.TruncateText(text, BudgetPick), true, true
	}
	c.BodyTokens = budget.EstimateTokens(c.Body)
	return c, nil
}

// sectionList returns several sections under one 4000-token budget (C.4.1
// r4): found sections in request order while the running sum fits; from
// the first that does not, it and every later found one are dropped.
// Every name lands in exactly one of sections, missing and dropped.
func (s *pickSource) sectionList(names []string) *Content {
	c := &Content{Shape: ContentSections, ID: s.id, Title: s.title,
		Sections: []PickedSection{}, Missing: []string{}, Dropped: []string{}}
	sum := 0
	for _, name := range names {
		text, header, ok := s.findSection(name)
		switch {
		case !ok:
			c.Missing = append(c.Missing, name)
		case len(c.Dropped) > 0:
			c.Dropped = append(c.Dropped, name)
		default:
			t := budget.EstimateTokens(text)
			if sum+t > BudgetPick {
				c.Dropped = append(c.Dropped, name)
				continue
			}
			sum += t
			c.Sections = append(c.Sections, PickedSection{Section: name, Header: header, Body: text, BodyTokens: t})
		}
	}
	c.Truncated = len(c.Dropped) > 0
	if len(c.Missing) > 0 {
		c.Hint = "not found: " + strings.Join(c.Missing, ", ") + "; " + outlineHint(s.id, s.outline)
	}
	return c
}

// outlineHintMax bounds the headers a refusal lists: a 400-section body
// must not turn a hint into a second body.
const outlineHintMax = 30

// outlineHint names the sections a node has, for a caller who missed.
func outlineHint(id string, outline []string) string {
	if len(outline) == 0 {
		return id + " has no H2/H3 sections"
	}
	shown := outline[:min(len(outline), outlineHintMax)]
	h := "sections of " + id + ": " + strings.Join(shown, ", ")
	if more := len(outline) - len(shown); more > 0 {
		h += fmt.Sprintf(" … (+%d more; look returns the outline)", more)
	}
	return h
}

// pickSignature is pick's row in the signature table.
var pickSignature = Signature{
	Name: "pick",
	Doc: "Body of one node (or of up to 5: a list of ids), within 4000 tokens. A longer body comes back " +
		"page by page: pass after=<next> from each page until no next is returned; pages join back into the " +
		"exact body. section=<header> reads one section, a list of up to 10 headers reads several at once. " +
		"section and after never combine.",
	Budget: BudgetPick,
	Params: []Param{
		{Name: "id", Type: TStringOrList, Required: true,
			Doc: "node id (exact path without .md), or a list of 1 to 5 ids"},
		{Name: "section", Type: TStringOrList,
			Doc: "a header name (case-insensitive; prefix allowed), or a list of 1 to 10"},
		{Name: "after", Type: TString,
			Doc: "page cursor: the next value of the previous page, or \"\" for page one"},
	},
	ReadOnly:   true,
	Idempotent: true,
}

func init() { register(primitive{sig: pickSignature, run: runPick}) }

func runPick(ctx context.Context, v *Vine, a Args) (any, error) {
	var opt PickOptions
	if a.Has("section") && a.Has("after") {
		// Caught here as well as in check: on the wire section="" is a
		// section too (C.4.1 r5), which the typed options cannot express.
		return nil, errSectionWithAfter()
	}
	if a.IsList("section") {
		opt.Sections = a.Strings("section")
	} else {
		opt.Section = a.String("section")
	}
	if a.Has("after") {
		opt.Paged, opt.After = true, a.String("after")
	}
	if a.IsList("id") {
		return v.PickBatch(ctx, a.Strings("id"), opt)
	}
	return v.Pick(ctx, a.String("id"), opt)
}
