// SPDX-License-Identifier: Apache-2.0

package gitops

import (
	"errors"

	"github.com/monkeyllm/vine/envelope"
)

// Sentinels for errors.Is. Every refusal of this package is also an
// *envelope.Error (find it with errors.As or envelope.CodeOf), so a caller
// can branch on the kind while the wire still gets a teaching message.
var (
	// ErrNothingToCommit: no .md path survived the guard, or the staged
	// tree equals HEAD's. Nothing was written.
	ErrNothingToCommit = errors.New("gitops: nothing to commit")
	// ErrNotTopLevel: the directory is not the top level of its own
	// repository, so committing there could reach an outer repository.
	ErrNotTopLevel = errors.New("gitops: not the top level of its own git repository")
	// ErrLocked: a git lock file (index.lock or a ref's .lock) is held,
	// normally by a git process working on the same repository.
	ErrLocked = errors.New("gitops: repository locked by another git process")
)

// refusal is an envelope that also matches one of the sentinels above.
type refusal struct {
	env  *envelope.Error
	kind error
}

func (e *refusal) Error() string   { return e.env.Error() }
func (e *refusal) Unwrap() []error { return []error{e.env, e.kind} }

func refuse(kind error, code envelope.Code, msg, hint string) error {
	return &refusal{env: envelope.New(code, msg, hint), kind: kind}
}

// invalid is a refusal of a malformed argument (E_SCHEMA, no sentinel).
func invalid(msg, hint string) error {
	return envelope.New(envelope.Schema, msg, hint)
}
