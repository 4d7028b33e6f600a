// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
)

// doc is a JSON object of the OpenAPI document.
type doc = map[string]any

// openapiDoc is GET /v1/openapi.json: OpenAPI 3.1 derived from the route
// table and, for the primitive route, one path per served name with the
// request schema the signature table gives (the same derivation MCP's
// input schemas use). The engine's validator stays the authority.
func (s *Server) openapiDoc() doc {
	paths := doc{}
	for _, rt := range s.table() {
		if rt.op == "call" {
			for _, name := range s.served {
				paths[strings.Replace(rt.path, "{name}", name, 1)] = doc{"post": primitiveOp(name)}
			}
			continue
		}
		p, _ := paths[openapiPath(rt.path)].(doc)
		if p == nil {
			p = doc{}
		}
		p[strings.ToLower(rt.method)] = routeOp(rt)
		paths[openapiPath(rt.path)] = p
	}
	return doc{
		"openapi": "3.1.0",
		"info": doc{"title": "vine REST", "version": s.opt.Version,
			"description": "The /v1 surface of a vine station: one POST per primitive, listings, bytes, ingest jobs.",
			"license":     doc{"name": "Apache-2.0", "identifier": "Apache-2.0"}},
		"jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
		"security":          []any{doc{"bearer": []any{}}, doc{"apiKey": []any{}}},
		"paths":             paths,
		"components": doc{
			"securitySchemes": doc{
				"bearer": doc{"type": "http", "scheme": "bearer"},
				"apiKey": doc{"type": "apiKey", "in": "header", "name": "X-API-Key"},
			},
			"schemas": doc{"Error": errorSchema},
			"responses": doc{"Refusal": doc{"description": "a refusal: the envelope with its code's status",
				"content": jsonContent(doc{"$ref": "#/components/schemas/Error"})}},
		},
	}
}

// openapiPath turns a ServeMux wildcard {node...} into a template
// parameter; the value may still span slashes, as the route says.
func openapiPath(p string) string { return strings.ReplaceAll(p, "...}", "}") }

var errorSchema = doc{"type": "object", "required": []any{"error"}, "additionalProperties": false,
	"properties": doc{"error": doc{"type": "object", "required": []any{"code", "message"},
		"properties": doc{"code": doc{"type": "string", "pattern": "^E_[A-Z_]+$"},
			"message": doc{"type": "string"}, "hint": doc{"type": "string"}}}}}

func jsonContent(schema doc) doc { return doc{"application/json": doc{"schema": schema}} }

var refusal = doc{"$ref": "#/components/responses/Refusal"}

// primitiveOp is POST /v1/forests/{forest}/{name} for one served name.
func primitiveOp(name string) doc {
	sig, ok := vine.LookupSignature(name)
	if name == ingestName {
		sig, ok = ingestSignature, true
	}
	op := doc{"operationId": name, "summary": wire.Title(name), "tags": []any{"primitives"},
		"parameters": []any{pathParam("forest", "a forest id from GET /v1/forests")},
		"responses":  doc{"200": doc{"description": "the result", "content": jsonContent(doc{"type": "object"})}, "default": refusal}}
	if ok {
		op["description"] = wire.Description(sig)
		schema, _ := json.Marshal(wire.InputSchema(sig, wire.ForestNone))
		op["requestBody"] = doc{"required": false, "content": doc{"application/json": doc{"schema": json.RawMessage(schema)}}}
	}
	if name == ingestName {
		op["requestBody"].(doc)["content"].(doc)["multipart/form-data"] = doc{"schema": doc{"type": "object",
			"description": "an upload as a form, sent with a key header (Authorization or X-API-Key): one part per file, filename set",
			"properties": doc{"file": doc{"type": "array", "items": doc{"type": "string", "contentMediaType": "application/octet-stream"}},
				"mode": doc{"type": "string"}, "dest": doc{"type": "string"}, "path": doc{"type": "string"}, "wait": doc{"type": "boolean"}}}}
		op["responses"].(doc)["202"] = doc{"description": "the job, started; Location is its address",
			"headers": doc{"Location": doc{"schema": doc{"type": "string"}}},
			"content": jsonContent(doc{"type": "object"})}
	}
	return op
}

// routeOp is one route of the table other than the primitives.
func routeOp(rt route) doc {
	op := doc{"operationId": rt.op, "summary": rt.summary,
		"responses": doc{"200": doc{"description": rt.summary, "content": routeContent(rt.op)}, "default": refusal}}
	var params []any
	for _, seg := range strings.Split(rt.path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "}"), "...")
			params = append(params, pathParam(name, paramDocs[name]))
		}
	}
	if rt.op == "export" {
		params = append(params, doc{"name": "recursive", "in": "query", "schema": doc{"type": "boolean"},
			"description": "zip the branch instead of one node's markdown"})
	}
	if rt.op == "jobs" {
		params = append(params, doc{"name": "after", "in": "query", "schema": doc{"type": "string"},
			"description": "the next of the previous page: list the jobs older than it"})
	}
	if params != nil {
		op["parameters"] = params
	}
	if !rt.auth {
		op["security"] = []any{}
	}
	if rt.op == "link-vote" {
		op["requestBody"] = doc{"required": true, "content": jsonContent(linkVoteSchema)}
	}
	if sig, ok := adminBodies[rt.op]; ok {
		schema, _ := json.Marshal(wire.InputSchema(sig, wire.ForestNone))
		op["requestBody"] = doc{"required": true, "content": doc{"application/json": doc{"schema": json.RawMessage(schema)}}}
	}
	return op
}

// adminBodies are the admin routes whose JSON body is a signature.
var adminBodies = map[string]vine.Signature{"reindex": reindexSignature, "recurate": recurateSignature,
	"set-heat-mode": heatModeSignature}

var paramDocs = map[string]string{
	"forest": "a forest id from GET /v1/forests",
	"node":   "a node id; it may contain slashes",
	"job":    "a job id from the ingest answer or GET …/jobs",
}

func pathParam(name, about string) doc {
	return doc{"name": name, "in": "path", "required": true, "schema": doc{"type": "string"}, "description": about}
}

// routeContent is what a 200 of the route is: JSON, but the bytes
// routes and the metrics text.
func routeContent(op string) doc {
	switch op {
	case "payload":
		return doc{"application/octet-stream": doc{}}
	case "export":
		return doc{"text/markdown": doc{}, "application/zip": doc{}}
	case "metrics":
		return doc{"text/plain": doc{}}
	}
	return jsonContent(doc{"type": "object"})
}

// openapi serves the document, without a key: it is the contract, the
// same for every caller.
func (s *Server) openapi(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, "openapi", http.StatusOK, s.openapiDoc())
}
