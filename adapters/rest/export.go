// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/catalog"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// zipTime stamps every zip member, so the same branch exports to the
// same bytes.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// download is a finished export: its bytes and how to name them.
type download struct {
	body        []byte
	contentType string
	filename    string
}

// export serves GET /v1/forests/{forest}/export/{node...} (J.14.1): a
// node as markdown, unbudgeted (a download, not a model's context);
// ?recursive=true on a branch, a zip of it and its visible descendants.
// Gates and refusals are the payload route's; moved ids follow C.15.
func (s *Server) export(w http.ResponseWriter, r *http.Request) {
	const op = "export"
	ctx := r.Context()
	note := s.noteCall(r, r.PathValue("forest"), op)
	note.setArgs(func() record.Args { return exportArgs(r) })
	recursive, err := recursiveParam(r.URL.Query())
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	var d download
	err = s.scoped(ctx, who, id, pol, func(v *vine.Vine, sc *vine.Scoped) error {
		if !sc.Can(vine.CapRead) {
			return needs(op, sc, vine.CapRead)
		}
		x := exporter{ctx: sc.Context(ctx), v: v, sc: sc}
		if recursive {
			d, err = x.branch(r.PathValue("node"), id)
		} else {
			d, err = x.single(r.PathValue("node"))
		}
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", d.contentType)
	h.Set("Content-Disposition", attachment(d.filename))
	h.Set("Cache-Control", "private")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	w.Write(d.body)
}

// exportArgs is export's argument digest: the node, and recursive as
// sent when it was.
func exportArgs(r *http.Request) record.Args {
	a := map[string]any{"id": r.PathValue("node")}
	if q := r.URL.Query(); q.Has("recursive") {
		a["recursive"] = q.Get("recursive")
	}
	return record.DigestValues("export", a)
}

// attachment is the Content-Disposition of a download: the name quoted
// (J.14.1), or encoded per RFC 2231 when it is not plain ASCII.
func attachment(name string) string {
	plain := !strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r > 0x7e || r == '"' || r == '\\' })
	if plain {
		return `attachment; filename="` + name + `"`
	}
	return mime.FormatMediaType("attachment", map[string]string{"filename": name})
}

// recursiveParam reads the one query parameter export accepts. Any other
// is refused by name: a pasted URL whose parameter is silently dropped
// downloads something other than what its sender meant.
func recursiveParam(q url.Values) (bool, error) {
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if k != "recursive" {
			return false, envelope.New(envelope.Schema,
				fmt.Sprintf("export: unknown query parameter '%s'", k), "This route accepts: recursive.")
		}
	}
	vals := q["recursive"]
	switch {
	case len(vals) == 0:
		return false, nil
	case len(vals) > 1:
		return false, envelope.New(envelope.Schema, "export: query parameter 'recursive' is given more than once",
			"give it once: recursive=true or recursive=false")
	}
	switch strings.ToLower(vals[0]) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, envelope.New(envelope.Schema,
		fmt.Sprintf("export: query parameter 'recursive' got %q, expected one of true, 1, false, 0", vals[0]), "")
}

// exporter renders nodes of one forest seen through a policy.
type exporter struct {
	ctx context.Context // carries the policy
	v   *vine.Vine
	sc  *vine.Scoped
}

// single is one node's markdown: the file verbatim, or for a node whose
// body lives elsewhere the passport with that body.
func (x exporter) single(node string) (download, error) {
	rec, err := x.v.Record(x.ctx, node)
	if err != nil {
		return download{}, err
	}
	body, err := x.markdown(rec)
	if err != nil {
		return download{}, err
	}
	return download{body: body, contentType: "text/markdown; charset=utf-8", filename: path.Base(rec.ID) + forest.NodeExt}, nil
}

// branch is a zip of the branch and its descendants the policy lets the
// caller see, sorted by id after the branch itself, each member
// byte-identical to its single export. Hidden nodes are absent without a
// trace: a manifest of omissions would measure what is hidden.
func (x exporter) branch(node, forestID string) (download, error) {
	rec, err := x.v.Record(x.ctx, node)
	if err != nil {
		return download{}, err
	}
	if !forest.IsIndex(rec.ID) {
		return download{}, envelope.New(envelope.Schema, "recursive=true needs a branch: "+rec.ID+" is not one",
			"export a branch (an id ending in _index) recursively, or drop recursive to export this node")
	}
	ids, err := x.descendants(rec.ID)
	if err != nil {
		return download{}, err
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if err := x.addMember(zw, rec); err != nil {
		return download{}, err
	}
	for _, id := range ids {
		member, err := x.v.Record(x.ctx, id)
		if vine.CodeOf(err) == vine.ENotFound { // unparseable or gone since the walk
			continue
		}
		if err != nil {
			return download{}, err
		}
		if err := x.addMember(zw, member); err != nil {
			return download{}, err
		}
	}
	if err := zw.Close(); err != nil {
		return download{}, err
	}
	name := path.Base(forest.BranchDir(rec.ID))
	if rec.ID == forest.RootIndexID {
		name = path.Base(forestID)
	}
	return download{body: buf.Bytes(), contentType: "application/zip", filename: name + ".zip"}, nil
}

func (x exporter) addMember(zw *zip.Writer, rec catalog.Record) error {
	body, err := x.markdown(rec)
	if vine.CodeOf(err) == vine.ENotFound {
		return nil // a member whose body cannot be reached is left out, as one unreadable
	}
	if err != nil {
		return err
	}
	f, err := zw.CreateHeader(&zip.FileHeader{Name: rec.ID + forest.NodeExt, Method: zip.Deflate, Modified: zipTime})
	if err != nil {
		return err
	}
	_, err = f.Write(body)
	return err
}

// descendants are the visible node ids under a branch, by exact prefix
// (never a pattern, whose "_" would match any character), sorted.
func (x exporter) descendants(branch string) ([]string, error) {
	root, err := forest.NewRoot(x.v.Dir())
	if err != nil {
		return nil, err
	}
	prefix := forest.BranchDir(branch) + "/"
	if branch == forest.RootIndexID {
		prefix = ""
	}
	var ids []string
	_, err = root.Walk(func(id, _ string) error {
		if id != branch && strings.HasPrefix(id, prefix) && x.sc.InScope(id) {
			ids = append(ids, id)
		}
		return x.ctx.Err()
	})
	slices.Sort(ids)
	return ids, err
}

// markdown is a node's export: the file's own bytes for inline content
// (no newline translation), else the passport with the body it points at.
func (x exporter) markdown(rec catalog.Record) ([]byte, error) {
	root, err := forest.NewRoot(x.v.Dir())
	if err != nil {
		return nil, err
	}
	file, err := root.Path(rec.ID)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, absentNode(x.ctx, x.v, rec.ID)
	}
	// The catalog does not keep the content mode; the passport says it.
	front, _, err := forest.Split(rec.ID, data)
	if err != nil || !strings.Contains(front, "content") {
		return data, nil
	}
	n, err := forest.Parse(rec.ID, data)
	if err != nil {
		return nil, err
	}
	if mode := n.Content(); mode != "cached" && mode != "reference" {
		return data, nil
	}
	body, err := x.v.BackedBody(n)
	if err != nil {
		return nil, err
	}
	n.Body = body
	return n.Bytes(), nil
}
