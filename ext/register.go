// SPDX-License-Identifier: Apache-2.0

package ext

import (
	"maps"
	"slices"
	"sync"
)

// Extension is what an extension author writes: a manifest and a
// Register that claims its handlers. The same value runs compiled into
// a host ([Register]) or as its own executable (sdk.Serve).
type Extension interface {
	Manifest() Manifest
	Register(api *API) error
}

var compiled struct {
	sync.RWMutex
	byID map[string]Extension
}

// Register makes e available to every host in this process, the way
// database/sql.Register makes a driver available: call it from an init
// function. Compiled-in extensions are still enabled per forest. It
// panics if e is nil, its manifest is invalid or its id is registered
// already: programming errors, found at start-up.
func Register(e Extension) {
	if e == nil {
		panic("ext: Register of a nil extension")
	}
	m := e.Manifest()
	if err := m.Validate(); err != nil {
		panic(err.Error())
	}
	compiled.Lock()
	defer compiled.Unlock()
	if _, dup := compiled.byID[m.ID]; dup {
		panic("ext: Register called twice for " + m.ID)
	}
	if compiled.byID == nil {
		compiled.byID = map[string]Extension{}
	}
	compiled.byID[m.ID] = e
}

// Registered lists the compiled-in extensions, by id.
func Registered() []Extension {
	compiled.RLock()
	defer compiled.RUnlock()
	out := make([]Extension, 0, len(compiled.byID))
	for _, id := range slices.Sorted(maps.Keys(compiled.byID)) {
		out = append(out, compiled.byID[id])
	}
	return out
}
