// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/ranger"
	"github.com/monkeyllm/vine/snapshot"
)

// The maintenance surface of spec 07 §3 (J.13): what an operator with a
// browser and no shell needs. Every route names its forest, is gated by
// admin on it (C.12 r6: a missing forest is E_SCHEMA before any
// authorization), and the whole-forest ones refuse a key that sees part
// of the forest with the reason, never a filtered answer. None of them
// commits.

// gate is what a maintenance route demands of the caller's grant.
type gate int

const (
	gateAdmin      gate = iota // admin on the forest
	gateWhole                  // admin over the whole forest, no deny
	gateOwnerAdmin             // the deployment owner bit, past the mask
)

// maintForest reads the forest parameter and checks the gate. It opens
// nothing: the lock probe must work when the forest will not open.
func (s *Server) maintForest(ctx context.Context, op, forestID string, g gate) (id string, pol vine.Policy, err error) {
	if forestID == "" {
		return "", vine.Policy{}, envelope.New(envelope.Schema, "parameter 'forest' is required",
			"name it: ?forest=<id> on a GET, \"forest\" in the JSON body of a POST")
	}
	who := callerOf(ctx)
	id, pol, err = s.forests.Grant(who, forestID)
	if err != nil {
		return "", vine.Policy{}, err
	}
	switch {
	case g == gateOwnerAdmin && !who.IsOwner():
		return "", vine.Policy{}, envelope.New(envelope.Forbidden, op+" needs the deployment owner",
			"snapshot files carry the whole forest and its history; only the owner may take them off the host")
	case !pol.Has(vine.CapAdmin):
		return "", vine.Policy{}, needsCaps(op, pol.Caps, vine.CapAdmin)
	case g == gateWhole:
		if err := wholeForestAdmin(op, pol); err != nil {
			return "", vine.Policy{}, err
		}
	}
	return id, pol, nil
}

// wholeForestAdmin is the authority of a route whose work or answer
// spans the whole forest (reports, reindex, recurate): admin, with no
// root narrower than the forest and no deny. A partial key is refused
// with the reason; it never gets a filtered answer.
func wholeForestAdmin(op string, pol vine.Policy) error {
	if !pol.Has(vine.CapAdmin) {
		return needsCaps(op, pol.Caps, vine.CapAdmin)
	}
	if !pol.Unrestricted() {
		return envelope.New(envelope.Forbidden, op+" covers the whole forest; this key sees part of it",
			"a key with admin over the whole forest can call "+op)
	}
	return nil
}

// postArgs reads a maintenance POST's body, notes its audit digest and
// decodes it against sig; ok is false once a refusal is answered.
func (s *Server) postArgs(w http.ResponseWriter, r *http.Request, op string, sig vine.Signature, note *auditNote) (vine.Args, bool) {
	body, err := s.readBody(w, r, op)
	if err != nil {
		s.refuse(w, op, err)
		return vine.Args{}, false
	}
	note.setArgs(func() record.Args { return record.Digest(op, body) })
	a, err := vine.DecodeArgs(sig, body)
	if err != nil {
		s.refuse(w, op, err)
		return vine.Args{}, false
	}
	return a, true
}

// maintDir is maintForest with the forest's directory, for the routes
// that work on files without opening the forest.
func (s *Server) maintDir(ctx context.Context, op, forestID string, g gate) (id, dir string, err error) {
	if id, _, err = s.maintForest(ctx, op, forestID, g); err != nil {
		return "", "", err
	}
	dir, err = s.reg.Dir(id)
	return id, dir, err
}

// adminHealth serves GET /v1/admin/health?forest= (J.13): the Ranger's health
// report, relayed verbatim from a read-only instance, so opening a
// console never writes (no evaporation, no promotion).
func (s *Server) adminHealth(w http.ResponseWriter, r *http.Request) {
	const op = "health"
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, r.URL.Query().Get("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	var h *ranger.Health
	err = s.on(ctx, callerOf(ctx), id, true, func(v *vine.Vine) error {
		rg, err := ranger.New(v, ranger.WithoutGC())
		if err != nil {
			return err
		}
		h, err = rg.Health(ctx)
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, h)
}

// snapshotName is the forest id a snapshot file may be named after.
var snapshotForest = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// snapshotExts are the extensions the listing emits (J.13.1).
var snapshotExts = []string{snapshot.Ext, ".bundle", ".bundle.payloads.zip"}

// snapshotDir is where the host keeps forest id's snapshots, outside
// every forest; "" when the server was given no snapshot directory.
func (s *Server) snapshotDir(id string) (string, error) {
	if s.opt.SnapshotDir == "" {
		return "", envelope.New(envelope.Schema, "this server keeps no snapshots",
			"start it with a snapshot directory outside every forest (vine serve --snapshots DIR)")
	}
	return filepath.Join(s.opt.SnapshotDir, filepath.FromSlash(id)), nil
}

type snapshotEntry struct {
	Name    string `json:"name"`
	Bytes   int64  `json:"bytes"`
	Created string `json:"created"`
}

// snapshots serves GET /v1/admin/snapshots?forest=: the forest's
// snapshot files, newest first.
func (s *Server) snapshots(w http.ResponseWriter, r *http.Request) {
	const op = "snapshots"
	id, _, err := s.maintForest(r.Context(), op, r.URL.Query().Get("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	dir, err := s.snapshotDir(id)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	list, err := listSnapshots(dir)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, map[string]any{"snapshots": list})
}

// listSnapshots reads dir's regular snapshot files, newest first (then
// by name); a missing directory is an empty list.
func listSnapshots(dir string) ([]snapshotEntry, error) {
	out := []snapshotEntry{}
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !snapshotFile(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, snapshotEntry{Name: e.Name(), Bytes: fi.Size(),
			Created: fi.ModTime().UTC().Format(time.RFC3339)})
	}
	slices.SortFunc(out, func(a, b snapshotEntry) int {
		if c := strings.Compare(b.Created, a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.Name, a.Name)
	})
	return out, nil
}

// snapshotFile reports whether name is one segment, not hidden, with an
// extension the listing emits.
func snapshotFile(name string) bool {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return false
	}
	return slices.ContainsFunc(snapshotExts, func(ext string) bool { return strings.HasSuffix(name, ext) })
}

var takeSnapshotSignature = vine.Signature{
	Name: "snapshot",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest to pack"},
		{Name: "with_payloads", Type: vine.TBoolean, Default: true, Doc: "pack the payload files too"},
	},
}

// takeSnapshot serves POST /v1/admin/snapshots {forest, with_payloads}:
// one .forest file in the host's snapshot directory, never overwriting
// an earlier one. The snapshot holds the forest's writer lock while it
// reads, so it is one cut of bundle and payloads.
func (s *Server) takeSnapshot(w http.ResponseWriter, r *http.Request) {
	const op = "snapshot"
	note := s.noteCall(r, "", op)
	a, ok := s.postArgs(w, r, op, takeSnapshotSignature, note)
	if !ok {
		return
	}
	ctx := r.Context()
	note.setForest(record.Clip(a.String("forest")))
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	out, err := s.snapshotDir(id)
	if err == nil && !snapshotForest.MatchString(id) {
		err = envelope.New(envelope.Schema, "snapshots name their forest in the file name; "+strconv.Quote(id)+" cannot be one",
			"a snapshot is taken of a forest whose id is lowercase letters, digits, '-' and '_'")
	}
	var dir string
	if err == nil {
		dir, err = s.reg.Dir(id)
	}
	var made *snapshot.Created
	if err == nil {
		made, err = snapshot.Create(ctx, dir, snapshot.CreateOptions{OutDir: out, NoPayloads: !a.Bool("with_payloads")})
	}
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setSize(made.Bytes)
	s.writeJSON(w, op, http.StatusOK, map[string]any{"name": filepath.Base(made.File), "bytes": made.Bytes,
		"payloads": made.Payloads, "payloads_omitted": made.PayloadsOmitted})
}

// downloadSnapshot serves GET /v1/admin/snapshots/{forest}/{file}
// (J.13.1), to the owner only: file is a name from the listing, never a
// path, and anything else is the same "no such snapshot".
func (s *Server) downloadSnapshot(w http.ResponseWriter, r *http.Request) {
	const op = "snapshot-download"
	ctx := r.Context()
	forestID, name := r.PathValue("forest"), r.PathValue("file")
	note := s.noteCall(r, forestID, op)
	note.setArgs(func() record.Args { return record.DigestValues(op, map[string]any{"file": name}) })
	id, _, err := s.maintForest(ctx, op, forestID, gateOwnerAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	dir, err := s.snapshotDir(id)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	path, ok := snapshotPath(dir, id, name)
	if !ok {
		s.refuse(w, op, envelope.New(envelope.NotFound, "no such snapshot",
			"list them with GET /v1/admin/snapshots?forest="+id))
		return
	}
	f, err := os.Open(path)
	if err != nil {
		s.refuse(w, op, envelope.New(envelope.NotFound, "no such snapshot",
			"list them with GET /v1/admin/snapshots?forest="+id))
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", "application/octet-stream")
	h.Set("Content-Disposition", attachment(name))
	h.Set("Cache-Control", "private")
	fi, err := f.Stat()
	if err == nil {
		h.Set("Content-Length", strconv.FormatInt(fi.Size(), 10))
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, f)
	}
}

// snapshotPath checks every rule of J.13.1 and returns the file's path:
// one segment with a listed extension, a forest id of the file-name
// alphabet, the resolved parent that forest's snapshot directory, and a
// regular file.
func snapshotPath(dir, id, name string) (string, bool) {
	if !snapshotFile(name) || !snapshotForest.MatchString(id) {
		return "", false
	}
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	path, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil || filepath.Dir(path) != want {
		return "", false
	}
	fi, err := os.Lstat(path)
	return path, err == nil && fi.Mode().IsRegular()
}

// locks serves GET /v1/admin/locks?forest= (J.13.5): the writer lock's
// state, probed without opening the forest or taking a lane.
func (s *Server) locks(w http.ResponseWriter, r *http.Request) {
	const op = "locks"
	_, dir, err := s.maintDir(r.Context(), op, r.URL.Query().Get("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	probe, err := forest.ProbeLock(dir)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, lockAnswer{LockProbe: probe, Self: heldHere(probe)})
}

// lockAnswer is a probe with self set when this process holds the lock.
type lockAnswer struct {
	forest.LockProbe
	Self bool `json:"self,omitempty"`
}

// heldHere reports whether the card is this process's own.
func heldHere(p forest.LockProbe) bool {
	if p.Holder == nil || p.State == "free" {
		return false
	}
	host, _ := os.Hostname()
	return p.Holder.PID == os.Getpid() && p.Holder.Host == host
}

var unlockSignature = vine.Signature{
	Name:   "unlock",
	Params: []vine.Param{{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest whose orphaned lock to remove"}},
}

// unlock serves POST /v1/admin/unlock {forest} (J.13.5): an orphaned lock
// file is removed; a held one, this host's included, is E_LOCKED quoting
// its card. There is no override: breaking a live lock makes two writers.
func (s *Server) unlock(w http.ResponseWriter, r *http.Request) {
	const op = "unlock"
	note := s.noteCall(r, "", "admin.unlock")
	a, ok := s.postArgs(w, r, op, unlockSignature, note)
	if !ok {
		return
	}
	id, dir, err := s.maintDir(r.Context(), op, a.String("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	probe, err := forest.RemoveOrphanLock(dir)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setArgs(func() record.Args { return record.DigestValues("admin.unlock", map[string]any{"card": probe.Holder}) })
	s.writeJSON(w, op, http.StatusOK, probe)
}

var canopySignature = vine.Signature{
	Name: "canopy",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest whose dense layer to build"},
		{Name: "refresh", Type: vine.TBoolean, Doc: "embed only the stale nodes instead of a full build"},
		{Name: "enabled", Type: vine.TBoolean, Doc: "switch the forest's Gauntlet on or off instead of building (a host that keeps the switch)"},
	},
}

// canopyStatus serves GET /v1/admin/canopy?forest=: the dense layer's
// state (K.4) as every status surface reports it.
func (s *Server) canopyStatus(w http.ResponseWriter, r *http.Request) {
	const op = "canopy"
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, r.URL.Query().Get("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	st, err := s.canopyState(ctx, id)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, st)
}

// canopyState is the dense layer's status with the Gauntlet switch.
func (s *Server) canopyState(ctx context.Context, id string) (any, error) {
	var st any
	err := s.on(ctx, callerOf(ctx), id, true, func(v *vine.Vine) error {
		var err error
		st, err = v.CanopyStatus(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	return s.withGauntlet(ctx, id, st)
}

// withGauntlet adds the forest's Gauntlet switch to a canopy status as
// "enabled": the host's when it keeps one, else on.
func (s *Server) withGauntlet(ctx context.Context, forest string, st any) (any, error) {
	on := true
	if s.opt.Gauntlet != nil {
		var err error
		if on, err = s.opt.Gauntlet.GauntletEnabled(ctx, forest); err != nil {
			return nil, err
		}
	}
	return withFields(st, map[string]any{"enabled": on}), nil
}

// switchGauntlet serves POST /v1/admin/canopy {forest, enabled}.
func (s *Server) switchGauntlet(ctx context.Context, w http.ResponseWriter, id string, on bool) {
	const op = "canopy"
	if s.opt.Gauntlet == nil {
		s.refuse(w, op, envelope.New(envelope.Schema, "this server keeps no Gauntlet switch",
			"run the Station, or bind no embedder to run without the Gauntlet"))
		return
	}
	if err := s.opt.Gauntlet.SetGauntlet(ctx, id, on); err != nil {
		s.refuse(w, op, err)
		return
	}
	st, err := s.canopyState(ctx, id)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, st)
}

// canopyBuild serves POST /v1/admin/canopy {forest, refresh?} (J.13.4):
// a full build, or a refresh of the stale nodes, on the writer lane
// while the caller waits; the readers then reopen to see the new index.
// With enabled it sets the Gauntlet switch instead (09 §12).
func (s *Server) canopyBuild(w http.ResponseWriter, r *http.Request) {
	const op = "canopy"
	a, ok := s.postArgs(w, r, op, canopySignature, nil)
	if !ok {
		return
	}
	ctx := r.Context()
	who := callerOf(ctx)
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateAdmin)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if a.Has("enabled") {
		s.switchGauntlet(ctx, w, id, a.Bool("enabled"))
		return
	}
	var out any
	err = s.on(ctx, who, id, false, func(v *vine.Vine) error {
		if a.Bool("refresh") {
			res, err := v.CanopyRefresh(ctx)
			out = res
			return canopyRefusal(err)
		}
		if _, err := v.CanopyBuild(ctx); err != nil {
			return canopyRefusal(err)
		}
		st, err := v.CanopyStatus(ctx)
		out = vine.CanopyRefreshResult{Status: st}
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if err := s.lanes.reset(id); err != nil {
		s.log.Warn("closing read-only instances after a canopy build", "forest", id, "err", err)
	}
	s.writeJSON(w, op, http.StatusOK, out)
}

// canopyRefusal turns the layer's "no embedder" into the route's
// E_SCHEMA (J.13.4); other errors pass as they are.
func canopyRefusal(err error) error {
	if err != nil && strings.Contains(err.Error(), "no embedder is bound") {
		return envelope.New(envelope.Schema, "no embedding model is bound to this forest",
			"bind an embedder (vine serve --embed-endpoint, or the host's model settings) before building the canopy")
	}
	return err
}
