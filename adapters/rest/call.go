// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/answer"
)

// restOnly are names of the signature table REST does not serve: view
// answers an image, which is MCP's to carry (REST's bytes route is
// payload), and close_session belongs to a local agent's session.
var restOnly = []string{"view", "close_session"}

// servedNames are the names POST /v1/forests/{forest}/{name} serves:
// the signature table but restOnly, and the host action ingest.
func servedNames() []string {
	out := []string{ingestName}
	for _, sig := range vine.Signatures() {
		if !slices.Contains(restOnly, sig.Name) {
			out = append(out, sig.Name)
		}
	}
	slices.Sort(out)
	return out
}

// call serves POST /v1/forests/{forest}/{name}: the forest granted (else
// it answers as unknown), the name served, then the primitive through
// the caller's policy (capability, then arguments, then every id gated),
// reads on a reader and writes on the writer.
func (s *Server) call(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	if x := exchangeOf(r.Context()); x != nil && slices.Contains(s.served, name) {
		x.op = name // a name not served stays "call": no label per made-up name
	}
	note := s.noteCall(r, r.PathValue("forest"), name)
	who := callerOf(r.Context())
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, name, err)
		return
	}
	note.setForest(id)
	if !slices.Contains(s.served, name) {
		s.refuse(w, name, &vine.Error{Code: vine.ENotFound, Message: "unknown primitive: " + name,
			Hint: "served: " + strings.Join(s.served, ", ")})
		return
	}
	body, err := s.readBody(w, r, name)
	if err != nil {
		s.refuse(w, name, err)
		return
	}
	if name == ingestName && isMultipartIngest(r) {
		if body, err = multipartArgs(r, body); err != nil {
			s.refuse(w, name, err)
			return
		}
	}
	note.setArgs(func() record.Args { return record.Digest(name, body) })
	if name == ingestName {
		s.ingest(w, r, who, id, pol, body)
		return
	}
	sig, _ := vine.LookupSignature(name)
	ctx := stamped(r.Context(), who)
	if run := answerRun(body); name == answer.Signature.Name && run != "" {
		var end func()
		ctx, end = s.runs.start(ctx, wire.Secret(r.Header), id, run)
		defer end()
	}
	var out any
	err = s.on(ctx, who, id, sig.ReadOnly, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		out, err = sc.Call(ctx, name, body)
		return err
	})
	if err != nil {
		s.refuse(w, name, err)
		return
	}
	note.setCommit(out)
	s.writeJSON(w, name, http.StatusOK, out)
}

// on runs fn on a reader (read) or the writer of forest id, and answers
// a failure to open the forest as that forest's refusal: not found is
// the one unknown-forest answer, E_LOCKED stays itself.
func (s *Server) on(ctx context.Context, who *keys.Principal, id string, read bool, fn func(*vine.Vine) error) error {
	var err error
	if read {
		err = s.lanes.withReader(ctx, id, fn)
	} else {
		err = s.lanes.withWriter(ctx, id, fn)
	}
	if oe := (openError{}); errors.As(err, &oe) {
		return s.forests.Opened(who, id, oe.err)
	}
	return err
}

// scoped runs fn on a reader of forest id seen through pol.
func (s *Server) scoped(ctx context.Context, who *keys.Principal, id string, pol vine.Policy, fn func(*vine.Vine, *vine.Scoped) error) error {
	return s.on(ctx, who, id, true, func(v *vine.Vine) error {
		sc, err := v.Scoped(pol)
		if err != nil {
			return err
		}
		return fn(v, sc)
	})
}
