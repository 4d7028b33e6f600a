// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/gitops"
	"github.com/monkeyllm/vine/internal/journal"
)

// Extensions reads the forest's _meta/extensions.yaml: the extensions
// it expects and which of them it enables (spec 11 §6). A forest without
// the file expects none. The file declares expectation, it never
// installs anything.
func (v *Vine) Extensions() (*forest.Enablement, error) {
	e, err := forest.ReadEnablement(v.root.Dir())
	var unreadable *fs.PathError
	if err != nil && !errors.As(err, &unreadable) { // the file reads but says nothing valid
		return nil, envelope.New(envelope.Schema, err.Error(), "fix or remove "+forest.ExtensionsFile)
	}
	return e, err
}

// extensionsPath is where the forest keeps its enablement file.
func (v *Vine) extensionsPath() string {
	return filepath.Join(v.root.Dir(), filepath.FromSlash(forest.ExtensionsFile))
}

// EnableExtension records id in _meta/extensions.yaml as enabled (or,
// with enabled false, expected but disabled), with one commit
// "extensions: enable <id>" or "extensions: disable <id>". It returns
// the commit's sha, or "" when the file already said so. Whether id is
// installed is the host's business: the engine records the forest's
// wish.
func (v *Vine) EnableExtension(ctx context.Context, id string, enabled bool) (string, error) {
	verb := map[bool]string{true: "enable", false: "disable"}[enabled]
	return v.editExtensions(ctx, id, verb, func(e *forest.Enablement) bool {
		entry, had := e.Extensions[id]
		if had && entry.On() == enabled {
			return false
		}
		entry.Enabled = &enabled
		e.Extensions[id] = entry
		return true
	})
}

// ForgetExtension removes id from _meta/extensions.yaml, so the forest
// no longer expects it ("extensions: forget <id>"); "" when it was not
// listed.
func (v *Vine) ForgetExtension(ctx context.Context, id string) (string, error) {
	return v.editExtensions(ctx, id, "forget", func(e *forest.Enablement) bool {
		if _, had := e.Extensions[id]; !had {
			return false
		}
		delete(e.Extensions, id)
		return true
	})
}

func (v *Vine) editExtensions(ctx context.Context, id, verb string, edit func(*forest.Enablement) bool) (string, error) {
	op := "extensions " + verb
	if !forest.ValidExtensionID(id) {
		return "", envelope.New(envelope.Schema, fmt.Sprintf("%s: %q is not an extension id", op, id),
			"ids are lowercase letters, digits and '-', 2 to 40 characters, starting with a letter").With("param", "id")
	}
	t, release, err := v.beginWrite(op)
	if err != nil {
		return "", err
	}
	defer release()
	e, err := v.Extensions()
	if err != nil {
		return "", err
	}
	if !edit(e) {
		return "", nil
	}
	path := v.extensionsPath()
	u := undo{path: path}
	if prev, err := os.ReadFile(path); err == nil {
		u.prev = prev
	}
	if top := firstMissing(filepath.Dir(path)); top != "" {
		return "", fmt.Errorf("vine: %s: the forest has no _meta folder", op)
	}
	if err := t.noteFile(journal.Put, path); err != nil {
		return "", err
	}
	t.done = append(t.done, u)
	if err := writeAtomic(path, e.Bytes()); err != nil {
		return "", errors.Join(err, t.rollback())
	}
	sha, err := v.repo.CommitMeta(ctx, gitops.Message{Subject: "extensions: " + verb + " " + id},
		filepath.Base(forest.ExtensionsFile), false, gitops.Options{When: v.now()})
	if err != nil {
		return "", errors.Join(err, t.rollback())
	}
	t.committed = true
	return sha, nil
}
