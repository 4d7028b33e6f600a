// SPDX-License-Identifier: Apache-2.0

package vine

import (
	"context"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/monkeyllm/vine/envelope"
)

// primitive binds a signature to the method that serves it.
type primitive struct {
	sig Signature
	run func(ctx context.Context, v *Vine, a Args) (any, error)
}

// table is the one signature table of the engine (C.12): every wire
// surface (CLI, MCP, REST) validates through it. Primitives register here
// as they land.
var table []primitive

func register(p primitive) {
	if _, dup := LookupSignature(p.sig.Name); dup {
		panic("vine: primitive registered twice: " + p.sig.Name)
	}
	table = append(table, p)
}

// Register adds a composite built on the engine (such as answer's
// sweep) to the signature table, so every transport serves it with the
// same argument validation as the primitives. Call it from an init
// function; a name registered twice panics, as http.Handle does.
func Register(sig Signature, run func(ctx context.Context, v *Vine, a Args) (any, error)) {
	register(primitive{sig: sig, run: run})
}

// Signatures returns the signature table, sorted by name.
func Signatures() []Signature {
	out := make([]Signature, len(table))
	for i, p := range table {
		out[i] = p.sig
	}
	slices.SortFunc(out, func(a, b Signature) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupSignature returns the signature of a served primitive.
func LookupSignature(name string) (Signature, bool) {
	for _, p := range table {
		if p.sig.Name == name {
			return p.sig, true
		}
	}
	return Signature{}, false
}

// compositePackages names the packages that register the composites the
// specification defines, for the hint of a program that did not link one.
var compositePackages = map[string]string{
	"answer": "github.com/monkeyllm/vine/answer",
}

// unknownPrimitive refuses a name no primitive answers to, naming the
// served ones, and the package to link when it is a known composite.
func unknownPrimitive(name string) *envelope.Error {
	names := make([]string, 0, len(table))
	for _, s := range Signatures() {
		names = append(names, s.Name)
	}
	hint := "served primitives: " + strings.Join(names, ", ")
	if pkg, ok := compositePackages[name]; ok {
		hint = name + " is a composite in " + pkg + ": a program links it with import _ \"" + pkg + "\"; " + hint
	}
	return envelope.New(envelope.NotFound, "unknown primitive: "+name, hint)
}

// Call runs a primitive by name with raw JSON arguments, the way every
// transport does: arguments are validated against the signature table
// first, and any failure comes back as an *Error. A panic inside a
// primitive is recovered and answered E_INTERNAL naming the primitive.
func (v *Vine) Call(ctx context.Context, name string, args []byte) (result any, err error) {
	i := slices.IndexFunc(table, func(p primitive) bool { return p.sig.Name == name })
	if i < 0 {
		return nil, unknownPrimitive(name)
	}
	p := table[i]
	ctx = withCallShares(ctx) // this call's embed_ms and dense_ms (Part D)
	defer func() {
		if r := recover(); r != nil {
			v.log.Error("primitive panicked", "primitive", name, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			result, err = nil, envelope.New(envelope.Internal,
				fmt.Sprintf("%s failed: internal panic", name),
				"server-side defect, not the caller's mistake; the detail is in the log")
		}
	}()
	start := time.Now()
	a, err := decodeArgs(p.sig, args, v.jsonDepth)
	if err != nil {
		v.heat.observe(ctx, Event{Primitive: name, Duration: time.Since(start), Code: envelope.CodeOf(err)})
		return nil, err
	}
	res, err := p.run(ctx, v, a)
	ev := Event{Primitive: name, Duration: time.Since(start), Code: envelope.CodeOf(err)}
	if len(p.sig.Params) > 0 && p.sig.Params[0].Name == "id" && !a.IsList("id") {
		ev.NodeID = a.String("id")
	}
	if err == nil {
		ev.Returned = returnedIDs(res)
	}
	v.heat.observe(ctx, ev)
	if !(name == "plant" && a.Bool("dry_run")) { // dry-run plants are never traced
		traced := res
		if err != nil {
			traced = envelope.From(name, err)
		}
		v.heat.trace(ctx, ev, args, traced)
	}
	if err != nil {
		if c := envelope.CodeOf(err); c == "" || c == envelope.Internal {
			v.log.Error("primitive failed", "primitive", name, "err", envelope.Detail(err))
		}
		return nil, envelope.From(name, err)
	}
	return res, nil
}

// IDLister is implemented by results of composites registered from other
// packages, so the observer sees which nodes they returned.
type IDLister interface{ NodeIDs() []string }

func returnedIDs(res any) []string {
	switch r := res.(type) {
	case interface{ nodeIDs() []string }:
		return r.nodeIDs()
	case IDLister:
		return r.NodeIDs()
	}
	return nil
}
