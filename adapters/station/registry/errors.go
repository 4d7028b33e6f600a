// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"strings"

	"github.com/monkeyllm/vine"
)

// The refusals of this package, in the spec's sentences (09 §3–§6).

func schemaErr(msg, hint string) *vine.Error {
	return &vine.Error{Code: vine.ESchema, Message: msg, Hint: hint}
}

func errPrincipalRequired() *vine.Error {
	return schemaErr("principal is required", "name the principal (a user name or a service id)")
}

func errForestRequired() *vine.Error {
	return schemaErr("parameter 'forest' is required", `send ?forest=<id> or "forest" in the body`)
}

func errCredentialsRequired() *vine.Error {
	return schemaErr("username and password are required", "")
}

func errPasswordShort() *vine.Error {
	return schemaErr("password must be at least 12 characters", "a passphrase of a few words is easiest to remember")
}

// ErrInvalidLogin is the one refusal of a password door: unknown user, no
// password and wrong password all answer it (HTTP 401 on the wire).
func ErrInvalidLogin() *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: "invalid username or password"}
}

func errBreakGlassPassword() *vine.Error {
	return &vine.Error{Code: vine.EForbidden, Message: "the environment account has no stored password",
		Hint: "Rotate MONKEYLLM_STATION_PASSWORD and restart."}
}

func errNoSuchToken() *vine.Error {
	return &vine.Error{Code: vine.ENotFound, Message: "no such token",
		Hint: "list the keys (GET /v1/admin/keys) for their ids"}
}

func errUnknownCaps(unknown []string) *vine.Error {
	return schemaErr("unknown capabilities: ["+strings.Join(unknown, ", ")+"]",
		"capabilities are read, write, query, tend, ingest, admin, answer")
}

func errExpiry(msg string) *vine.Error {
	return schemaErr("expires_in_days "+msg, "keys never live forever: 90 days by default, 365 at most")
}
