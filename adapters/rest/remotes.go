// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
)

// localRemote reports whether url names a repository on this host: a
// file:// URL or a bare path. Through one, a forest admin could read or
// overwrite any repository the host can reach (another forest's history).
func localRemote(url string) bool {
	u := strings.TrimSpace(url)
	if strings.HasPrefix(strings.ToLower(u), "file:") {
		return true
	}
	return !strings.Contains(u, "://") && !strings.Contains(u, "@")
}

// checkDestination applies Options.RemoteDestination to a network
// remote a caller other than the owner names.
func (s *Server) checkDestination(ctx context.Context, url string) error {
	if s.opt.RemoteDestination == nil || localRemote(url) || callerOf(ctx).IsOwner() {
		return nil
	}
	return s.opt.RemoteDestination(ctx, url)
}

// checkRemote is checkDestination of the URL the forest records for
// remote ("" is origin), checked again at each use: a name can resolve
// elsewhere since it was set.
func (s *Server) checkRemote(ctx context.Context, v *vine.Vine, remote string) error {
	if s.opt.RemoteDestination == nil || callerOf(ctx).IsOwner() {
		return nil
	}
	if remote == "" {
		remote = "origin"
	}
	remotes, err := v.Remotes()
	if err != nil {
		return err
	}
	for _, r := range remotes {
		if r.Name == remote {
			return s.checkDestination(ctx, r.URL)
		}
	}
	return nil // unknown remote: Push and Pull answer that themselves
}

// The git remotes of a forest (issue 33), governed like the other
// whole-forest admin routes: admin with no narrower root. Credentials
// arrive per request and are neither stored nor audited.

var setRemoteSignature = vine.Signature{
	Name: "remotes",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest whose remote to set"},
		{Name: "name", Type: vine.TString, Doc: "the remote's name (default origin)"},
		{Name: "url", Type: vine.TString, Required: true, Doc: "file://, http(s):// or ssh:// URL, without a password"},
	},
}

var pushSignature = vine.Signature{
	Name: "push",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest to push"},
		{Name: "remote", Type: vine.TString, Doc: "the remote's name (default origin)"},
		{Name: "token", Type: vine.TString, Doc: "HTTP(S) token for this call; never stored"},
	},
}

var pullSignature = vine.Signature{
	Name: "pull",
	Params: []vine.Param{
		{Name: "forest", Type: vine.TString, Required: true, Doc: "the forest to pull into"},
		{Name: "remote", Type: vine.TString, Doc: "the remote's name (default origin)"},
		{Name: "token", Type: vine.TString, Doc: "HTTP(S) token for this call; never stored"},
		{Name: "prefer", Type: vine.TString, Enum: []string{"ours", "theirs"}, Doc: "settle nodes both sides changed (default: refuse, listing them)"},
	},
}

// remotes serves GET /v1/admin/remotes?forest=: the forest's remotes.
func (s *Server) remotes(w http.ResponseWriter, r *http.Request) {
	const op = "remotes"
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, r.URL.Query().Get("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	var out []vine.Remote
	err = s.on(ctx, callerOf(ctx), id, true, func(v *vine.Vine) error {
		out, err = v.Remotes()
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, map[string]any{"forest": id, "remotes": out})
}

// setRemote serves POST /v1/admin/remotes {forest, name?, url}.
func (s *Server) setRemote(w http.ResponseWriter, r *http.Request) {
	const op = "remotes"
	note := s.noteCall(r, "", "admin.remotes")
	a, ok := s.postArgs(w, r, op, setRemoteSignature, note)
	if !ok {
		return
	}
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	if localRemote(a.String("url")) && !callerOf(ctx).IsOwner() {
		s.refuse(w, op, envelope.New(envelope.Forbidden, "a file:// remote reaches this host's disk, so only the deployment owner may set one",
			"use an http(s):// or ssh:// remote, or ask the owner"))
		return
	}
	if err := s.checkDestination(ctx, a.String("url")); err != nil {
		s.refuse(w, op, err)
		return
	}
	name := a.String("name")
	if name == "" {
		name = "origin"
	}
	err = s.on(ctx, callerOf(ctx), id, false, func(v *vine.Vine) error { return v.SetRemote(ctx, name, a.String("url")) })
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, map[string]any{"forest": id, "name": name, "url": a.String("url")})
}

// push serves POST /v1/admin/push {forest, remote?, token?}.
func (s *Server) push(w http.ResponseWriter, r *http.Request) {
	const op = "push"
	note := s.noteCall(r, "", "admin.push")
	a, ok := s.postArgs(w, r, op, pushSignature, note)
	if !ok {
		return
	}
	note.setArgs(func() record.Args {
		return record.DigestValues("admin.push", map[string]any{"remote": a.String("remote")})
	})
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	var out *vine.PushResult
	err = s.on(ctx, callerOf(ctx), id, false, func(v *vine.Vine) error {
		if err := s.checkRemote(ctx, v, a.String("remote")); err != nil {
			return err
		}
		out, err = v.Push(ctx, vine.RemoteOptions{Remote: a.String("remote"), Token: a.String("token")})
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	s.writeJSON(w, op, http.StatusOK, out)
}

// pull serves POST /v1/admin/pull {forest, remote?, token?, prefer?}: a
// fast-forward or merge; nodes both sides changed answer E_CONFLICT (409)
// listing them, the forest untouched.
func (s *Server) pull(w http.ResponseWriter, r *http.Request) {
	const op = "pull"
	note := s.noteCall(r, "", "admin.pull")
	a, ok := s.postArgs(w, r, op, pullSignature, note)
	if !ok {
		return
	}
	note.setArgs(func() record.Args {
		return record.DigestValues("admin.pull", map[string]any{"remote": a.String("remote"), "prefer": a.String("prefer")})
	})
	ctx := r.Context()
	id, _, err := s.maintForest(ctx, op, a.String("forest"), gateWhole)
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	var out *vine.PullResult
	err = s.on(ctx, callerOf(ctx), id, false, func(v *vine.Vine) error {
		if err := s.checkRemote(ctx, v, a.String("remote")); err != nil {
			return err
		}
		out, err = v.Pull(ctx, vine.PullOptions{RemoteOptions: vine.RemoteOptions{Remote: a.String("remote"), Token: a.String("token")},
			Prefer: a.String("prefer")})
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	if err := s.lanes.reset(id); err != nil {
		s.log.Warn("closing read-only instances after pull", "forest", id, "err", err)
	}
	s.writeJSON(w, op, http.StatusOK, out)
}
