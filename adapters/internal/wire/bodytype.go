// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"mime"
	"net/http"
	"strings"

	"github.com/monkeyllm/vine"
)

// BodyTypeStatus is the status of a request refused by CheckBodyType
// (415 Unsupported Media Type); its code is E_SCHEMA.
const BodyTypeStatus = http.StatusUnsupportedMediaType

// StateChanging reports whether a request of this method may change
// state, and so must prove it is not a cross-site form post.
func StateChanging(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// CheckBodyType refuses a state-changing request whose body is not
// declared application/json (parameters allowed; a charset, if named,
// must be UTF-8). This is what stops cross-site request forgery even when
// the Origin check is off ("*"): a web page can send text/plain,
// application/x-www-form-urlencoded or multipart/form-data anywhere
// without asking, but not application/json, which makes the browser ask
// the server first (a CORS preflight no route answers).
//
// The exception is a request with no Content-Type and an empty body: it
// passes without an Origin, so `curl -X POST …/cancel` and an
// empty-argument call keep working, and it passes from a browser when
// its method is not POST. Browsers send Origin on every cross-site POST
// (and on same-origin ones), so an empty POST from a page must declare
// JSON; but a page can send PUT, PATCH or DELETE to another site only
// after a CORS preflight, which no route answers for a site the server
// does not allow, so an empty DELETE from the console needs no type.
func CheckBodyType(r *http.Request) *vine.Error {
	if !StateChanging(r.Method) {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		if r.ContentLength == 0 && (r.Header.Get("Origin") == "" || r.Method != http.MethodPost) {
			return nil
		}
		return bodyTypeRefusal("no Content-Type was sent")
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "application/json" {
		return bodyTypeRefusal("the body's Content-Type is " + quote(ct))
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") {
		return bodyTypeRefusal("the body's Content-Type is " + quote(ct) + ", and JSON is UTF-8")
	}
	return nil
}

func bodyTypeRefusal(what string) *vine.Error {
	return &vine.Error{Code: vine.ESchema,
		Message: what + "; expected application/json",
		Hint:    "send the arguments as a JSON object with Content-Type: application/json (an empty body may omit both)"}
}
