// SPDX-License-Identifier: Apache-2.0

package wire

import (
	"runtime/debug"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/keys"
)

// ForestsTool is the name of the tool listing the served forests.
const ForestsTool = "forests"

// ForestsDescription is the forests tool's description.
const ForestsDescription = "List the forests this server serves, with what you may do in each (caps), " +
	"where reading starts (roots) and whether a writer elsewhere holds it (locked). " +
	"Pass one id as forest to every other tool; station is the server's version. Answers a short list, no token budget."

// ForestsSchema is the forests tool's input schema: no arguments.
func ForestsSchema() *jsonschema.Schema {
	return &jsonschema.Schema{
		Type:                 "object",
		Properties:           map[string]*jsonschema.Schema{},
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
}

// LocalCaps are the capabilities of the local, unauthenticated caller:
// every one, on the whole forest (spec 08 §7.1: owner/local).
var LocalCaps = []string{"read", "write", "query", "tend", "ingest", "admin", "answer"}

// ForestInfo is one entry of the forests listing.
type ForestInfo struct {
	ID     string   `json:"id"`
	Caps   []string `json:"caps"`
	Roots  []string `json:"roots"`
	Locked bool     `json:"locked,omitempty"`
	Hybrid bool     `json:"hybrid"`
}

// ForestList is the forests tool's answer.
type ForestList struct {
	Forests []ForestInfo `json:"forests"`
	Station string       `json:"station"`
}

// ListForests lists what reg serves for the local caller without opening
// any forest (locks are probed, never taken). Hybrid is false: no forest
// of this engine binds an embedder yet. ListForestsFor lists for a
// principal.
func ListForests(reg *vine.Registry, station string) ForestList {
	return ListForestsFor(NewForests(reg, ""), station, keys.LocalOwner())
}

// Version is the installed build's version, the serverInfo.version of MCP
// and the station of the forests listing: the module version of
// github.com/monkeyllm/vine in this binary; a build from a working tree
// says "devel+" and the VCS revision it was built at (".dirty" when the
// tree had changes), or "(devel)" when the build recorded none.
func Version() string {
	const module = "github.com/monkeyllm/vine"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := ""
	if info.Main.Path == module {
		v = info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == module {
			v = d.Version
		}
	}
	if v != "" && v != "(devel)" {
		return v
	}
	return develVersion(info.Settings)
}

// develVersion names a working-tree build by its VCS revision.
func develVersion(settings []debug.BuildSetting) string {
	rev, dirty := "", false
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "(devel)"
	}
	v := "devel+" + rev[:min(len(rev), 12)]
	if dirty {
		v += ".dirty"
	}
	return v
}
