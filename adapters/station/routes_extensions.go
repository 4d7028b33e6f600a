// SPDX-License-Identifier: Apache-2.0

package station

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/rest"
	"github.com/monkeyllm/vine/answer"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/install"
	"github.com/monkeyllm/vine/ext/worker"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gardener"
)

// Extensions on the Station (spec 11 §6, §8). The mechanism is the
// engine's (ext/install, ext/worker); the Station adds authority: the
// deployment's governors install, update, remove and configure, since
// installed code reaches every forest; a forest's admin enables an
// installed extension on it, with one commit in _meta/extensions.yaml.
// Every /v1/admin/extensions route checks admin, never "has a grant".

// extensionRoutes are the extension routes, appended to routes().
func (s *Server) extensionRoutes() []rest.Route {
	return append([]rest.Route{
		{Method: "GET", Path: "/v1/admin/extensions", Op: "admin.extensions", Summary: "the installed extensions", Auth: true, Handler: s.admin(s.listExtensions)},
		{Method: "POST", Path: "/v1/admin/extensions", Op: "admin.extension", Summary: "plan, install, update or remove an extension", Auth: true, Handler: s.admin(s.changeExtension)},
		{Method: "GET", Path: "/v1/admin/extensions/enablement", Op: "admin.extensions.enablement", Summary: "what a forest enables and expects", Auth: true, Handler: s.admin(s.extEnablement)},
		{Method: "POST", Path: "/v1/admin/extensions/enablement", Op: "admin.extension.enable", Summary: "enable or disable an installed extension on a forest", Auth: true, Handler: s.admin(s.setExtEnablement)},
		{Method: "GET", Path: "/v1/admin/extensions/config", Op: "admin.extensions.config", Summary: "an extension's settings, secrets never shown", Auth: true, Handler: s.admin(s.extConfig)},
		{Method: "POST", Path: "/v1/admin/extensions/config", Op: "admin.extension.config", Summary: "change an extension's settings", Auth: true, Handler: s.admin(s.setExtConfig)},
		{Method: "GET", Path: "/v1/admin/extensions/jobs", Op: "admin.extensions.jobs", Summary: "the jobs a forest's extensions offer", Auth: true, Handler: s.admin(s.extJobs)},
		{Method: "POST", Path: "/v1/admin/extensions/jobs", Op: "admin.extension.job", Summary: "run an extension's job on a forest", Auth: true, Handler: s.admin(s.runExtJob)},
	}, s.quotaRoutes()...)
}

// extEntry is one extension as a listing shows it; the provenance
// fields are withheld from an admin who does not govern the deployment.
type extEntry struct {
	ID             string            `json:"id"`
	Version        string            `json:"version"`
	Description    string            `json:"description,omitempty"`
	Tier           string            `json:"tier"`
	Tracking       string            `json:"tracking,omitempty"`
	Loaded         bool              `json:"loaded"`  // its contributions are served now
	Running        bool              `json:"running"` // its worker process is up (it starts on first use)
	Formats        []string          `json:"formats"`
	RegistersRoles []ext.RoleSpec    `json:"registers_roles"`
	Contributes    map[string]int    `json:"contributes"`
	License        string            `json:"license"`
	InstalledAt    string            `json:"installed_at"`
	Source         string            `json:"source,omitempty"`
	Revision       string            `json:"revision,omitempty"`
	Identity       *install.Identity `json:"identity,omitempty"`
	Reason         string            `json:"reason,omitempty"`
	Permissions    *ext.Permissions  `json:"permissions,omitempty"`
	RequiresRoles  []string          `json:"requires_roles"`
	Tools          []extTool         `json:"tools"`
	// Config is the manifest's declared settings, the truth a panel
	// only decorates: a console draws each field from its type.
	Config map[string]ext.ConfigField `json:"config"`
	// Panel is the extension's validated ui/panel.json: the Studio is
	// this host's console surface, so a declared panel is served, as
	// data the console renders with its own components (spec 11 §8).
	Panel *install.Panel `json:"panel,omitempty"`
	// Unserved names contributions this host validated but does not
	// serve: inert and named, never an error (F.190).
	Unserved []unserved `json:"unserved"`
}

// extTool is a tool an extension offers over MCP.
type extTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type unserved struct {
	Surface string `json:"surface"`
	Note    string `json:"note"`
}

func (s *Server) governs(c adminCall) (bool, error) {
	return s.reg.GovernsDeployment(c.r.Context(), c.who.Name, c.who.Mask, s.forestIDs())
}

func errNotGoverning(what string) error {
	return &vine.Error{Code: vine.EForbidden, Message: what + " needs authority over the whole deployment",
		Hint: "installed code reaches every forest; ask the owner, or an administrator of every forest"}
}

func (s *Server) listExtensions(c adminCall) {
	const op = "admin.extensions"
	governs, err := s.governs(c)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	out := []extEntry{}
	if s.opt.Extensions != nil {
		list, err := s.opt.Extensions.List()
		if err != nil {
			s.api.Refuse(c.w, op, err)
			return
		}
		for _, r := range list {
			out = append(out, s.extEntryOf(r, governs))
		}
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"extensions": out, "may_install": governs && s.opt.Extensions != nil,
		"loader": map[bool]string{true: "active", false: "inert"}[s.opt.Extensions != nil]})
}

func (s *Server) extEntryOf(r install.Record, governs bool) extEntry {
	e := extEntry{ID: r.ID, Version: r.Version, Description: r.Description, Tier: r.Tier, Tracking: r.Tracking,
		Formats: []string{}, RegistersRoles: []ext.RoleSpec{}, Contributes: map[string]int{}, License: r.License, Unserved: []unserved{},
		RequiresRoles: []string{}, Tools: []extTool{}, Config: map[string]ext.ConfigField{},
		InstalledAt: r.InstalledAt.Format("2006-01-02T15:04:05Z")}
	if m, err := s.opt.Extensions.Manifest(r); err == nil {
		for _, cv := range m.Contributes.Converters {
			e.Formats = append(e.Formats, cv.Extensions...)
		}
		if m.Models != nil {
			e.RegistersRoles = append(e.RegistersRoles, m.Models.Registers...)
			e.RequiresRoles = append(e.RequiresRoles, m.Models.Requires...)
		}
		for seam, hs := range m.Handlers() {
			e.Contributes[string(seam)] = len(hs)
		}
		for _, tl := range m.Contributes.Tools {
			e.Tools = append(e.Tools, extTool{tl.Name, tl.Description})
		}
		for k, f := range m.Config {
			e.Config[k] = f
		}
		// Loaded is the spec's "active": the manifest read, so every seam
		// it contributes is served from now on (F.216). Workers start on
		// first use, which Running reports.
		e.Loaded, e.Running = true, s.exts.Started(s.opt.Extensions.Tree(r))
		if m.Contributes.Panel != "" {
			e.Contributes[string(ext.SeamPanel)] = 1
			// An unservable panel is inert and named, never an error.
			if p, err := install.ReadPanel(s.opt.Extensions.Tree(r), m); err != nil {
				e.Unserved = append(e.Unserved, unserved{"panel", "unservable: " + err.Error()})
			} else {
				e.Panel = p
			}
		}
	}
	if governs {
		e.Source, e.Revision, e.Identity, e.Reason, e.Permissions = r.Source, r.Revision, r.Identity, r.Reason, r.Permissions
	}
	return e
}

// extBody reads the extension POST: an upload's base64 is checked
// against the ceiling by its length before it is decoded or written.
func (s *Server) extBody(c adminCall) (map[string]json.RawMessage, error) {
	max := int64(s.uploadMaxMB()) << 20
	limit := max*4/3 + 64<<10 // the base64 of the ceiling, and the other fields
	data, err := io.ReadAll(io.LimitReader(c.r.Body, limit+1))
	if int64(len(data)) > limit {
		return nil, envelope.New(envelope.ExtInstall, fmt.Sprintf("the request is over the %d MB upload ceiling", s.uploadMaxMB()),
			"MONKEYLLM_STATION_EXT_UPLOAD_MAX_MB raises it; vendored dependencies come through a local file").With("reason", "too_large")
	}
	var m map[string]json.RawMessage
	if err != nil || json.Unmarshal(data, &m) != nil || m == nil {
		return nil, &vine.Error{Code: vine.ESchema, Message: "invalid JSON body",
			Hint: fmt.Sprintf("send a JSON object; an upload is at most %d MB", s.uploadMaxMB())}
	}
	return m, nil
}

func (s *Server) uploadMaxMB() int {
	if s.opt.ExtUploadMaxMB > 0 {
		return s.opt.ExtUploadMaxMB
	}
	return 25
}

// changeExtension serves POST /v1/admin/extensions {action: plan |
// install | update | remove, source | upload: {name, b64}, id?,
// acknowledge?, enable_on?}.
func (s *Server) changeExtension(c adminCall) {
	const op = "admin.extension"
	m, err := s.extBody(c)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	action := text(m, "action")
	args := map[string]any{"action": action, "source": text(m, "source"), "id": text(m, "id")}
	status, out, err := s.doExtension(c, action, m)
	via := "" // the extension installed is in the path of the act; a plan installs nothing
	if res, ok := out.(map[string]any); ok && (action == "install" || action == "update") {
		via, _ = res["id"].(string)
	}
	s.noteVia(c, "", "extension."+action, via, args, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, status, out)
}

func (s *Server) doExtension(c adminCall, action string, m map[string]json.RawMessage) (int, any, error) {
	if !slices.Contains([]string{"plan", "install", "update", "remove"}, action) {
		return 0, nil, &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("action %q is not plan, install, update or remove", action)}
	}
	if ok, err := s.governs(c); err != nil || !ok {
		if err == nil {
			err = errNotGoverning("installing, updating or removing an extension")
		}
		return 0, nil, err
	}
	home := s.opt.Extensions
	if home == nil {
		return 0, nil, envelope.New(envelope.ExtInstall, "this Station has no extension install home", "start it with MONKEYLLM_EXT_HOME").With("reason", "requirements")
	}
	ctx := c.r.Context()
	if action == "remove" {
		id := text(m, "id")
		if err := home.Remove(id, s.now()); err != nil {
			return 0, nil, err
		}
		s.retireWorkers()
		return http.StatusOK, map[string]any{"removed": id, "losing": []string{}, "restart_required": false}, nil
	}
	opt := install.Options{Acknowledge: isTrue(m["acknowledge"]), Trust: s.opt.ExtTrust,
		Kit: install.KitOptions{HostVersion: firstNonEmpty(s.opt.Version, wire.Version()), Worker: s.opt.ExtWorker}}
	var res *install.Result
	var err error
	if _, named := m["source"]; action == "update" && !named && m["upload"] == nil {
		// An update by id re-resolves the recorded source (a moved
		// tag's new sha); the previous install runs until it succeeds.
		if res, err = home.Update(ctx, text(m, "id"), opt); err != nil {
			return 0, nil, err
		}
	} else {
		source, cleanup, err := s.extSource(m, &opt)
		if err != nil {
			return 0, nil, err
		}
		defer cleanup()
		if action == "plan" {
			p, err := home.Plan(ctx, source, opt)
			if err != nil {
				return 0, nil, err
			}
			return http.StatusOK, p, nil
		}
		if res, err = home.Install(ctx, source, opt); err != nil {
			return 0, nil, err
		}
	}
	s.retireWorkers()
	out := map[string]any{"installed": true, "id": res.ID, "version": res.Version, "tier": res.Tier,
		"tracking": res.Tracking, "revision": res.Revision, "license": res.License,
		"config_recovered": res.ConfigRecovered, "activated": true, "restart_required": false, "kit": res.Kit}
	// The outcome says what it accepts and offers, and what it needs.
	entry := s.extEntryOf(res.Record, true)
	out["formats"], out["registers_roles"], out["requires_roles"], out["tools"] = entry.Formats, entry.RegistersRoles, entry.RequiresRoles, entry.Tools
	if res.Identity != nil {
		out["identity"] = res.Identity
	}
	if res.Updated {
		out["updated"], out["changed"], out["previous_revision"] = true, res.Changed, res.PreviousRevision
	}
	if f := text(m, "enable_on"); f != "" {
		if _, err := s.enableOn(c, f, res.ID, true); err != nil {
			out["enable_error"] = vine.AsError("enable", err)
		} else {
			out["enabled_on"] = f
		}
	}
	return http.StatusCreated, out, nil
}

// extSource is the source an install reads: the named one, or an
// upload written to a scratch file (never a host path the caller names
// for an upload).
func (s *Server) extSource(m map[string]json.RawMessage, opt *install.Options) (string, func(), error) {
	none := func() {}
	raw, uploaded := m["upload"]
	if !uploaded {
		src := text(m, "source")
		if src == "" {
			return "", none, &vine.Error{Code: vine.ESchema, Message: "name a source, or send an upload {name, b64}"}
		}
		return src, none, nil
	}
	var up struct {
		Name string `json:"name"`
		B64  string `json:"b64"`
	}
	if err := json.Unmarshal(raw, &up); err != nil || up.B64 == "" {
		return "", none, &vine.Error{Code: vine.ESchema, Message: "upload must be {name, b64}"}
	}
	max := int64(s.uploadMaxMB()) << 20
	if size := int64(base64.StdEncoding.DecodedLen(len(up.B64))); size > max {
		return "", none, envelope.New(envelope.ExtInstall, fmt.Sprintf("the upload is %d bytes, over the %d MB ceiling", size, s.uploadMaxMB()),
			"MONKEYLLM_STATION_EXT_UPLOAD_MAX_MB raises it; vendored dependencies come through a local file").With("reason", "too_large")
	}
	data, err := base64.StdEncoding.DecodeString(up.B64)
	if err != nil {
		return "", none, &vine.Error{Code: vine.ESchema, Message: "upload.b64 is not base64"}
	}
	f, err := os.CreateTemp(s.opt.Extensions.Dir(), ".upload-*.zip")
	if err != nil {
		return "", none, err
	}
	_, werr := f.Write(data)
	if err := f.Close(); werr != nil || err != nil {
		os.Remove(f.Name())
		return "", none, fmt.Errorf("station: writing the upload: %v", werr)
	}
	opt.Upload, opt.UploadName = true, filepath.Base(up.Name)
	return f.Name(), func() { os.Remove(f.Name()) }, nil
}

// retireWorkers stops the workers of trees no longer installed and
// reattaches every forest, so an update or removal takes effect live:
// an exited process is an unloaded extension.
func (s *Server) retireWorkers() {
	if list, err := s.opt.Extensions.List(); err == nil {
		keep := map[string]bool{}
		for _, r := range list {
			keep[s.opt.Extensions.Tree(r)] = true
		}
		s.exts.Retire(keep)
	}
	s.reattachAll(context.Background())
}

// forestEnablement reads forest's _meta/extensions.yaml.
func (s *Server) forestEnablement(forestID string) (*forest.Enablement, error) {
	return forest.ReadEnablement(filepath.Join(s.opt.Root, filepath.FromSlash(forestID)))
}

// forestAdmin refuses a caller without admin on forest, or an unknown
// forest (as E_NOT_FOUND, exactly as absent).
func (s *Server) forestAdmin(c adminCall, forestID string) error {
	if !slices.Contains(s.forestIDs(), forestID) {
		return &vine.Error{Code: vine.ENotFound, Message: fmt.Sprintf("forest %q not found", forestID), Hint: "GET /v1/forests lists the forests this key may use"}
	}
	ok, err := s.reg.IsAdmin(c.r.Context(), c.who.Name, forestID, c.who.Mask)
	if err == nil && !ok {
		err = &vine.Error{Code: vine.EForbidden, Message: "requires the 'admin' capability on forest " + forestID}
	}
	return err
}

func (s *Server) extEnablement(c adminCall) {
	const op = "admin.extensions.enablement"
	f := c.r.URL.Query().Get("forest")
	if err := s.forestAdmin(c, f); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	en, err := s.forestEnablement(f)
	if err != nil {
		s.api.Refuse(c.w, op, &vine.Error{Code: vine.ESchema, Message: err.Error()})
		return
	}
	if s.opt.Extensions != nil {
		if err := s.opt.Extensions.CheckEnablement(en); err != nil {
			s.api.Refuse(c.w, op, err)
			return
		}
	}
	installed := s.installedIDs()
	absent := []string{}
	for _, id := range en.IDs() {
		if !slices.Contains(installed, id) {
			absent = append(absent, id)
		}
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"enabled": nonNil(en.Enabled()), "expected": nonNil(en.IDs()), "expected_but_absent": absent})
}

// firstNonEmpty is the first of v that is not "".
func firstNonEmpty(v ...string) string {
	for _, s := range v {
		if s != "" {
			return s
		}
	}
	return ""
}

func (s *Server) installedIDs() []string {
	if s.opt.Extensions == nil {
		return nil
	}
	ids, _ := s.opt.Extensions.IDs()
	return ids
}

func (s *Server) setExtEnablement(c adminCall) {
	const op = "admin.extension.enable"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	f, id := text(m, "forest"), text(m, "ext")
	enabled := true
	if raw, ok := m["enabled"]; ok && string(raw) != "null" {
		enabled = isTrue(raw)
	}
	sha, err := s.enableOn(c, f, id, enabled)
	s.note(c, f, op, map[string]any{"ext": id, "enabled": enabled}, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"enabled_now": enabled, "commit": sha, "restart_required": false})
}

// enableOn records id's enablement on forest for the caller, an admin of
// it: an id this Station has not installed is E_NOT_FOUND.
func (s *Server) enableOn(c adminCall, forestID, id string, enabled bool) (string, error) {
	if err := s.forestAdmin(c, forestID); err != nil {
		return "", err
	}
	if enabled && !slices.Contains(s.installedIDs(), id) {
		return "", &vine.Error{Code: vine.ENotFound, Message: fmt.Sprintf("extension %q is not installed on this Station", id),
			Hint: "GET /v1/admin/extensions lists what is installed"}
	}
	if !s.opt.Writable {
		return "", &vine.Error{Code: vine.EReadOnly, Message: "this Station serves its forests read-only"}
	}
	var sha string
	ctx := vine.WithPrincipal(c.r.Context(), c.who.Name)
	err := s.api.OnWriter(ctx, forestID, func(v *vine.Vine) error {
		var err error
		sha, err = v.EnableExtension(ctx, id, enabled)
		return err
	})
	if err == nil {
		s.reattach(context.Background(), forestID)
	}
	return sha, err
}

func (s *Server) extConfig(c adminCall) {
	const op = "admin.extensions.config"
	values, err := s.extSettings(c, c.r.URL.Query().Get("ext"), nil)
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"values": values})
}

func (s *Server) setExtConfig(c adminCall) {
	const op = "admin.extension.config"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	id := text(m, "ext")
	var values map[string]any
	if raw, ok := m["values"]; !ok || json.Unmarshal(raw, &values) != nil {
		s.api.Refuse(c.w, op, &vine.Error{Code: vine.ESchema, Message: "values must be an object of settings"})
		return
	}
	if values == nil {
		values = map[string]any{}
	}
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out, err := s.extSettings(c, id, values)
	s.note(c, "", op, map[string]any{"ext": id, "keys": strings.Join(keys, ",")}, outcome(err))
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"values": out})
}

// extSettings sets values (when any) and returns the settings as a
// person may see them; both need authority over the deployment.
func (s *Server) extSettings(c adminCall, id string, values map[string]any) (map[string]install.Setting, error) {
	if ok, err := s.governs(c); err != nil || !ok {
		if err == nil {
			err = errNotGoverning("an extension's settings")
		}
		return nil, err
	}
	if s.opt.Extensions == nil {
		return nil, &vine.Error{Code: vine.ENotFound, Message: fmt.Sprintf("extension %q is not installed on this Station", id)}
	}
	if len(values) > 0 {
		if err := s.opt.Extensions.SetConfig(id, values); err != nil {
			return nil, err
		}
		if workers, _ := s.opt.Extensions.Load(s.exts, []string{id}); len(workers) == 1 {
			workers[0].Reconfigure() // a Save reaches the next call
		}
	}
	return s.opt.Extensions.Settings(id)
}

// loadFor returns the workers of the extensions forest enables.
func (s *Server) loadFor(forestID string) []*worker.Worker {
	if s.opt.Extensions == nil {
		return nil
	}
	en, err := s.forestEnablement(forestID)
	if err != nil || len(en.Enabled()) == 0 {
		return nil
	}
	if err := s.opt.Extensions.CheckEnablement(en); err != nil {
		s.log.Warn("station: a forest's extension file is refused", "forest", forestID, "err", err)
		return nil
	}
	workers, failed := s.opt.Extensions.Load(s.exts, en.Enabled())
	for _, f := range failed {
		s.log.Warn("station: extension not loaded", "forest", forestID, "ext", f.ID, "err", f.Err)
	}
	return workers
}

// extGardener are the converters and curation hooks of the extensions
// forest enables, for one ingest batch (gardenerFor), in install order.
// ctx is the request that starts the batch: its caller is who each
// conversion serves, so a converter's callbacks (models, vine.call)
// answer with that person's scope and are audited in their name.
func (s *Server) extGardener(ctx context.Context, forestID string) ([]gardener.Converter, []gardener.NamedHook) {
	var convs []gardener.Converter
	var hooks []gardener.NamedHook
	call := ext.Call{Forest: forestID}
	if who := rest.CallerOf(ctx); who != nil {
		call.Principal, call.Auth = who.Name, newCaller(who)
	}
	for _, w := range s.loadFor(forestID) {
		for _, conv := range w.Converters() {
			convs = append(convs, gardener.ExtensionConverter(w.ID(), servingConverter{conv, call}))
		}
		for _, h := range w.CurateHooks() {
			hook := h.Hook
			h.Hook = func(ctx context.Context, d *gardener.Draft) error { return hook(ext.WithCall(ctx, call), d) }
			hooks = append(hooks, h)
		}
	}
	return convs, hooks
}

// extPrompter is the first prompt contribution among the extensions a
// forest enables (answer.Options.Prompter), nil for none.
func (s *Server) extPrompter(_ context.Context, v *vine.Vine) answer.Prompter {
	for _, w := range s.loadFor(filepath.Base(v.Dir())) {
		if p := w.Prompter(); p != nil {
			return p
		}
	}
	return nil
}

// attachRanker gives a forest's instance the first ranking contribution
// among the extensions it enables, or none.
func (s *Server) attachRanker(v *vine.Vine) {
	v.SetRanker(nil)
	for _, w := range s.loadFor(filepath.Base(v.Dir())) {
		if r := w.Ranker(); r != nil {
			v.SetRanker(r)
			return
		}
	}
}

// extJobs serves GET /v1/admin/extensions/jobs?forest=: the jobs the
// extensions a forest enables offer, pulled by its admin (never
// scheduled: there is no second Ranger).
func (s *Server) extJobs(c adminCall) {
	const op = "admin.extensions.jobs"
	f := c.r.URL.Query().Get("forest")
	if err := s.forestAdmin(c, f); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	type job struct {
		Name        string `json:"name"`
		Ext         string `json:"ext"`
		Description string `json:"description,omitempty"`
	}
	out := []job{}
	for _, w := range s.loadFor(f) {
		for _, h := range w.Manifest().Contributes.Jobs {
			out = append(out, job{h.Name, w.ID(), h.Description})
		}
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"jobs": out})
}

// runExtJob serves POST /v1/admin/extensions/jobs {forest, job, ext?}:
// ext is needed only when two enabled extensions offer one name (11
// §12.9, decided). The caller waits for the job's answer.
func (s *Server) runExtJob(c adminCall) {
	const op = "admin.extension.job"
	m, err := c.body()
	if err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	f, name, want := text(m, "forest"), text(m, "job"), text(m, "ext")
	if err := s.forestAdmin(c, f); err != nil {
		s.api.Refuse(c.w, op, err)
		return
	}
	var matches []*worker.Worker
	var handler string
	for _, w := range s.loadFor(f) {
		for _, h := range w.Manifest().Contributes.Jobs {
			if h.Name == name && (want == "" || want == w.ID()) {
				matches, handler = append(matches, w), h.HandlerName()
			}
		}
	}
	switch {
	case len(matches) == 0:
		s.api.Refuse(c.w, op, &vine.Error{Code: vine.ENotFound, Message: fmt.Sprintf("no extension enabled on %s offers job %q", f, name),
			Hint: "GET /v1/admin/extensions/jobs?forest=" + f + " lists them"})
		return
	case len(matches) > 1:
		s.api.Refuse(c.w, op, &vine.Error{Code: vine.ESchema, Message: fmt.Sprintf("two extensions offer job %q", name), Hint: "name the one with ext"})
		return
	}
	w := matches[0]
	caller := newCaller(c.who)
	call := ext.Call{Forest: f, Principal: c.who.Name, Auth: caller}
	out, err := w.Call(ext.WithCall(c.r.Context(), call), call, ext.SeamJobs, handler, map[string]any{"forest": f})
	s.noteVia(c, f, "ext."+w.ID()+"."+name, w.ID(), nil, outcome(err))
	if err != nil {
		s.refuseExtCall(c.w, op, caller, err)
		return
	}
	s.api.WriteJSON(c.w, op, http.StatusOK, map[string]any{"ext": w.ID(), "job": name, "result": out})
}

// servingConverter runs an extension's converter for one caller: the
// batch runs after the request that started it returned, so the call it
// serves travels with the converter rather than in the context.
type servingConverter struct {
	gardener.Converter
	call ext.Call
}

func (c servingConverter) Convert(ctx context.Context, path string) (*gardener.Conversion, error) {
	return c.Converter.Convert(ext.WithCall(ctx, c.call), path)
}
