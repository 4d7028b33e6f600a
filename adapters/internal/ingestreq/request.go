// SPDX-License-Identifier: Apache-2.0

// Package ingestreq is the one way a transport validates and answers an
// ingest call (spec 06 §17–18, J.8–J.9): the wire signature, the
// decoding of its arguments, upload entries and their passports (J.8.4),
// the policy and ingest-root checks, the Gardener steps an accepted call
// runs, the job record every surface answers, and compose (one authored
// document: stage, review, accept). REST and MCP both validate through
// it, so a refusal reads the same on either surface; how each runs the
// steps (REST's job store and writer lanes, MCP's call with progress
// notifications) stays its own.
package ingestreq

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/gardener"
)

// Name is the host action ingest is served as beside the primitives.
const Name = "ingest"

// Ingest modes (J.8).
const (
	ModeUpload = "upload"
	ModeAdopt  = "adopt"
	ModeSync   = "sync"
	// ModeCompose plants one authored document (J.8): answered in place,
	// never a job, and served on REST only (the MCP tool has no compose
	// arguments).
	ModeCompose = "compose"
	// ModeRecurate is the job of a scent recurate (J.13.6.1), started by
	// POST /v1/admin/recurate, never by an ingest request.
	ModeRecurate = "recurate"
)

// Signature is the wire contract of ingest, validated like a primitive's
// (C.12). waitDefault is the surface's default for wait: REST answers at
// once, MCP waits (polling wastes an agent's context). compose adds the
// compose mode and its arguments.
func Signature(waitDefault, compose bool) vine.Signature {
	modes := []string{ModeUpload, ModeAdopt, ModeSync}
	if compose {
		modes = append(modes, ModeCompose)
	}
	sig := vine.Signature{
		Name: Name,
		Doc: "Send documents into the forest, one node per file under dest: files [{name, text}] for UTF-8 text, " +
			"[{name, b64}] for any bytes (PDF, images, spreadsheets). adopt and sync read host paths and need admin. " +
			"Answers {job}: its state, done/total and, once finished, the report (planted, updated, errors).",
		Params: []vine.Param{
			{Name: "mode", Type: vine.TString, Default: ModeUpload, Enum: modes,
				Doc: "upload sends files; adopt mirrors a host directory; sync refreshes from the recorded source"},
			{Name: "files", Type: vine.TObjectList, Doc: "upload: [{name, text | b64, source_url?, passport?}]; passport {title?, summary?, tags?, aliases?, links?, notes?} replaces the model's curation of a new document"},
			{Name: "path", Type: vine.TString, Doc: "adopt: the host directory; sync: a source-relative file or folder"},
			{Name: "dest", Type: vine.TString, Doc: "the branch new documents go under (x, x/ or x/_index); default the root"},
			{Name: "wait", Type: vine.TBoolean, Default: waitDefault, Doc: waitDoc(waitDefault)},
		},
	}
	if compose {
		sig.Doc += " compose plants one authored document {title, text}, answered in place: stage previews its draft, draft accepts a reviewed one."
		sig.Params = append(sig.Params,
			vine.Param{Name: "title", Type: vine.TString, Doc: "compose: the document's title; its file name is the title's slug"},
			vine.Param{Name: "text", Type: vine.TString, Doc: "compose: the document, markdown; a first '# ' heading is kept, else the title becomes it"},
			vine.Param{Name: "stage", Type: vine.TBoolean, Doc: "compose: preview the draft, writing nothing"},
			vine.Param{Name: "draft", Type: vine.TObject, Doc: "compose: the reviewed draft {title, summary, tags, links} to plant as approved"})
	}
	return sig
}

func waitDoc(waitDefault bool) string {
	if waitDefault {
		return "answer when the batch has finished (default); false answers at once with the running job"
	}
	return "answer when the batch has finished (200) instead of at once (202)"
}

// Request is a validated ingest call.
type Request struct {
	Mode, Path, Dest string
	// HasDest tells an absent dest from an empty one: a key limited to
	// part of the forest must name it.
	HasDest bool
	Wait    bool
	// Files are the upload's entries, every one already checked; for
	// compose, the one composed document.
	Files []gardener.UploadFile
	// Stage and Draft are compose's review: preview, or accept Draft.
	Stage bool
	Draft *Approved
}

// Decode validates body against sig (one of Signature's) and the rules
// between parameters: upload needs files and takes no path, adopt needs
// a path, files combine with upload only.
func Decode(sig vine.Signature, body []byte) (Request, error) {
	a, err := vine.DecodeArgs(sig, body)
	if err != nil {
		return Request{}, err
	}
	req := Request{Mode: a.String("mode"), Path: a.String("path"), Dest: a.String("dest"),
		HasDest: a.Has("dest"), Wait: a.Bool("wait")}
	if err := composeOnly(a, req.Mode); err != nil {
		return req, err
	}
	switch req.Mode {
	case ModeCompose:
		err = decodeCompose(a, &req)
	case ModeUpload:
		if !a.Has("files") {
			return req, envelope.New(envelope.Schema, "ingest: mode upload needs parameter 'files'",
				`send files: [{"name": "notes.md", "text": "..."}], or {"name": "scan.pdf", "b64": "..."} for bytes`)
		}
		if a.Has("path") {
			return req, envelope.New(envelope.Schema, "ingest: parameter 'path' does not combine with mode upload",
				"upload sends bytes in files; adopt and sync read a host path")
		}
		req.Files, err = decodeFiles(a.RawItems("files"))
	case ModeAdopt:
		if !a.Has("path") {
			return req, envelope.New(envelope.Schema, "ingest: mode adopt needs parameter 'path'",
				"name the host directory to adopt")
		}
		fallthrough
	case ModeSync:
		if a.Has("files") {
			return req, envelope.New(envelope.Schema, "ingest: parameter 'files' combines with mode upload only", "")
		}
	}
	return req, err
}

// decodeFiles reads upload entries, every one checked before anything is
// staged: an object with name and exactly one of text (UTF-8) and b64
// (strict standard base64), and optional source_url.
func decodeFiles(items []json.RawMessage) ([]gardener.UploadFile, error) {
	out := make([]gardener.UploadFile, 0, len(items))
	for i, raw := range items {
		f, err := decodeFile(i, raw)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func decodeFile(i int, raw json.RawMessage) (gardener.UploadFile, error) {
	var f gardener.UploadFile
	var e map[string]json.RawMessage
	if err := json.Unmarshal(raw, &e); err != nil {
		return f, FileErr(i, "is not an object", "")
	}
	if k := unknownKey(e, []string{"name", "text", "b64", "source_url", "passport"}); k != "" {
		return f, FileErr(i, fmt.Sprintf("has unknown key '%s'", k), "an entry holds name, text or b64, source_url and passport")
	}
	if raw, ok := e["passport"]; ok && !isNull(raw) {
		var err error
		if f.Passport, err = decodePassport(i, raw); err != nil {
			return f, err
		}
	}
	var text, b64 *string
	for k, dst := range map[string]any{"name": &f.Name, "source_url": &f.SourceURL, "text": &text, "b64": &b64} {
		if v, ok := e[k]; ok && string(v) != "null" {
			if json.Unmarshal(v, dst) != nil {
				return f, FileErr(i, fmt.Sprintf("'%s' expects string", k), "")
			}
		}
	}
	switch {
	case (text == nil) == (b64 == nil):
		return f, FileErr(i, "needs exactly one of 'text' and 'b64'", "text for UTF-8 text, b64 for any bytes")
	case text != nil:
		if !utf8.ValidString(*text) {
			return f, FileErr(i, "'text' is not valid UTF-8", "send bytes as b64")
		}
		f.Data = []byte(*text)
	default:
		data, err := base64.StdEncoding.Strict().DecodeString(*b64)
		if err != nil {
			return f, FileErr(i, "'b64' is not standard base64", "encode the bytes with padding, alphabet A-Z a-z 0-9 + /")
		}
		f.Data = data
	}
	return f, nil
}

// FileErr is the E_SCHEMA refusal of upload entry i.
func FileErr(i int, what, hint string) error {
	return envelope.New(envelope.Schema, fmt.Sprintf("ingest: files[%d] %s", i, what), hint)
}
