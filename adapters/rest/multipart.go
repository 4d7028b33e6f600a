// SPDX-License-Identifier: Apache-2.0

package rest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/monkeyllm/vine/envelope"
)

// multipartFields are the form fields an ingest upload may carry beside
// its files: ingest's parameters but files.
var multipartFields = []string{"mode", "dest", "path", "wait"}

// isMultipartIngest reports an ingest upload sent as multipart/form-data
// with a key header. The JSON body-type rule exists because a page may
// post a form anywhere without asking; it may not add Authorization or
// X-API-Key without a preflight, which the guard answers only for listed
// origins, so a form that carries one is no forgery. An open server
// ignores the header's value, but still asks for it.
func isMultipartIngest(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	seg := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if len(seg) != 4 || seg[0] != "v1" || seg[1] != "forests" || seg[3] != ingestName {
		return false
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data" &&
		(r.Header.Get("Authorization") != "" || r.Header.Get("X-API-Key") != "")
}

// multipartArgs turns a multipart upload into the JSON arguments ingest
// validates: each file part one files entry (its filename the name, its
// bytes as b64), each field the parameter of its name. The one
// validation path stays decodeIngest's.
func multipartArgs(r *http.Request, body []byte) ([]byte, error) {
	_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	args := map[string]any{}
	files := []map[string]string{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, envelope.New(envelope.Schema, "ingest: the multipart body does not parse: "+err.Error(),
				"send multipart/form-data with one part per file (filename set) and the fields mode, dest, path, wait")
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		if p.FileName() != "" {
			files = append(files, map[string]string{"name": p.FileName(), "b64": base64.StdEncoding.EncodeToString(data)})
			continue
		}
		if err := formField(args, p.FormName(), string(data)); err != nil {
			return nil, err
		}
	}
	if len(files) > 0 {
		args["files"] = files
	}
	return json.Marshal(args)
}

// formField sets one form field as its parameter: wait as a boolean when
// it reads as one (else as the string, for ingest to refuse in its own
// words), the others as strings.
func formField(args map[string]any, name, value string) error {
	if !slices.Contains(multipartFields, name) {
		return envelope.New(envelope.Schema, "ingest: unknown form field "+strconv.Quote(name),
			"fields: "+strings.Join(multipartFields, ", ")+"; files are parts with a filename")
	}
	args[name] = value
	if b, err := strconv.ParseBool(value); name == "wait" && err == nil {
		args[name] = b
	}
	return nil
}
