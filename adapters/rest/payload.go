// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/envelope"
)

// payload serves GET /v1/forests/{forest}/payload/{node...} (J.14): the
// raw bytes of a node's local payload. Out of scope, absent, moved out of
// scope, without a payload, or with its file missing: one byte-identical
// not-found, so the route is no oracle. The file is resolved on a reader
// and streamed after the reader is released.
func (s *Server) payload(w http.ResponseWriter, r *http.Request) {
	const op = "payload"
	ctx := r.Context()
	note := s.noteCall(r, r.PathValue("forest"), op)
	note.setArgs(func() record.Args { return record.DigestValues(op, map[string]any{"id": r.PathValue("node")}) })
	who := callerOf(ctx)
	id, pol, err := s.forests.Grant(who, r.PathValue("forest"))
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	note.setForest(id)
	var pf *vine.PayloadFile
	err = s.scoped(ctx, who, id, pol, func(v *vine.Vine, sc *vine.Scoped) error {
		if !sc.Can(vine.CapRead) {
			return needs(op, sc, vine.CapRead)
		}
		// The engine applies the payload rule and the policy to the
		// resolved file (vine.OpenPayload); this route only streams it.
		pf, err = v.OpenPayload(sc.Context(ctx), r.PathValue("node"))
		return err
	})
	if err != nil {
		s.refuse(w, op, err)
		return
	}
	defer pf.Close()
	h := w.Header()
	h.Set("Content-Type", pf.MediaType)
	h.Set("Cache-Control", "private")
	h.Set("X-Content-Type-Options", "nosniff")
	// Bytes a forest holds may be HTML or SVG: never let them run as a
	// page of this origin.
	h.Set("Content-Security-Policy", "sandbox")
	if pf.Hash != "" && !strings.ContainsAny(pf.Hash, "\"\r\n") {
		h.Set("ETag", `"`+pf.Hash+`"`)
	}
	http.ServeContent(w, r, "", pf.ModTime, pf.File)
}

// absentNode is the engine's own refusal of an absent node under this
// raw id: asked through a policy that sees nothing, the engine answers
// every id exactly as it answers one that does not exist.
func absentNode(ctx context.Context, v *vine.Vine, raw string) error {
	blind, err := v.Scoped(vine.Policy{})
	if err != nil {
		return err
	}
	_, err = v.Record(blind.Context(ctx), raw)
	return err
}

// needs refuses a route the caller's policy lacks the capability for,
// in the engine's words for a primitive.
func needs(op string, sc *vine.Scoped, c vine.Capability) error {
	return needsCaps(op, sc.Caps(), c)
}

func needsCaps(op string, have []vine.Capability, c vine.Capability) error {
	hint := "this key holds no capability"
	if len(have) > 0 {
		names := make([]string, len(have))
		for i, h := range have {
			names[i] = string(h)
		}
		hint = "this key holds: " + strings.Join(names, ", ")
	}
	return envelope.New(envelope.Forbidden, fmt.Sprintf("%s needs the %s capability", op, c), hint)
}
