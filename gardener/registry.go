// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// ErrUnsupported reports that no converter claims a file's extension.
// The pipeline lists such files under unsupported; it is never a crash
// and never a silent skip.
var ErrUnsupported = errors.New("gardener: no converter claims this format")

// Origins of a claimant, as SupportedFormats reports them. Extension
// converters report "ext:<id>" and registered ones "plugin:<name>".
const (
	OriginHook      = "hook"      // a command in _meta/gardener.yaml converters
	OriginDescriber = "describer" // a converter the host injected
	OriginBuiltin   = "builtin"   // shipped with this package
)

var registry struct {
	sync.RWMutex
	byName map[string]Converter
}

// RegisterConverter makes c available to every Gardener in the process
// under the origin "plugin:<name>". Hosts call it before ingesting,
// typically from an init function; there is no runtime plugin loading.
// Registered converters are tried after command hooks and injected
// converters and before the built-ins, in name order.
//
// It is safe for concurrent use. Like database/sql.Register, it panics
// if c is nil, name is empty, or name is already registered: these are
// programming errors, found at start-up.
func RegisterConverter(name string, c Converter) {
	if name == "" {
		panic("gardener: RegisterConverter with an empty name")
	}
	if c == nil {
		panic("gardener: RegisterConverter converter is nil for " + name)
	}
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.byName[name]; dup {
		panic("gardener: RegisterConverter called twice for " + name)
	}
	if registry.byName == nil {
		registry.byName = map[string]Converter{}
	}
	registry.byName[name] = c
}

// registered returns the registered converters in name order.
func registered() []claimant {
	registry.RLock()
	defer registry.RUnlock()
	names := slices.Sorted(maps.Keys(registry.byName))
	out := make([]claimant, len(names))
	for i, n := range names {
		out[i] = claimant{conv: registry.byName[n], origin: "plugin:" + n, name: "plugin:" + n}
	}
	return out
}

// ExtensionConverter marks c as the converter of the installed extension
// id (Part L): among the converters a host injects, extension converters
// are tried before the others and SupportedFormats reports them as
// "ext:<id>".
func ExtensionConverter(id string, c Converter) Converter {
	return extensionConverter{Converter: c, id: id}
}

type extensionConverter struct {
	Converter
	id string
}

// builtins are the converters of this package in discovery order, each
// bounded by lim; the media stub is last, the floor every richer media
// converter stands on.
func builtins(lim Limits) []claimant {
	list := []struct {
		name string
		conv Converter
	}{
		{"markdown", markdownConverter{lim: lim}},
		{"csv", csvConverter{lim: lim}},
		{"json", jsonConverter{lim: lim}},
		{"xlsx", xlsxConverter{lim: lim}},
		{"sqlite", sqliteConverter{}},
		{"docx", docxConverter{lim: lim}},
		{"media stub", mediaStub{}},
	}
	out := make([]claimant, len(list))
	for i, b := range list {
		out[i] = claimant{conv: b.conv, origin: OriginBuiltin, name: b.name}
	}
	return out
}

// claimant is a converter in discovery order, with where it came from
// and how fallback lines name it.
type claimant struct {
	conv   Converter
	origin string
	name   string
}

// discovery lists every converter in the G.2 order: command hooks,
// extension converters, other injected converters, registered
// converters, built-ins (bounded by lim).
func discovery(hooks map[string]string, extras []Converter, lim Limits) []claimant {
	var out []claimant
	// Sorted so two spellings of one extension resolve the same way every run.
	for _, ext := range slices.Sorted(maps.Keys(hooks)) {
		h := hookConverter{ext: normalizeExt(ext), template: hooks[ext]}
		out = append(out, claimant{conv: h, origin: OriginHook, name: h.String()})
	}
	var injected []claimant
	for _, c := range extras {
		switch c := c.(type) {
		case nil:
		case extensionConverter:
			out = append(out, claimant{conv: c, origin: "ext:" + c.id, name: "ext:" + c.id})
		default:
			injected = append(injected, claimant{conv: c, origin: OriginDescriber, name: converterName(c)})
		}
	}
	out = append(out, injected...)
	out = append(out, registered()...)
	return append(out, builtins(lim)...)
}

// claimants returns, in discovery order, the converters that claim ext
// given the forest's command hooks (extension → template, from config),
// the converters the host injects, and the limits of the built-ins.
func claimants(hooks map[string]string, extras []Converter, ext string, lim Limits) []claimant {
	return claiming(discovery(hooks, extras, lim), ext)
}

// listClaimants is claimants over an explicit converter list, which
// bypasses discovery (tests, embedded pipelines).
func listClaimants(list []Converter, ext string) []claimant {
	all := make([]claimant, 0, len(list))
	for _, c := range list {
		if c != nil {
			all = append(all, claimant{conv: c, origin: "explicit", name: converterName(c)})
		}
	}
	return claiming(all, ext)
}

func claiming(all []claimant, ext string) []claimant {
	ext = normalizeExt(ext)
	var out []claimant
	for _, c := range all {
		if slices.Contains(extensionsOf(c.conv), ext) {
			out = append(out, c)
		}
	}
	return out
}

// extensionsOf is c's normalised extensions; a converter whose
// Extensions panics claims nothing rather than stopping discovery.
func extensionsOf(c Converter) (exts []string) {
	defer func() {
		if recover() != nil {
			exts = nil
		}
	}()
	for _, e := range c.Extensions() {
		if e = normalizeExt(e); e != "" {
			exts = append(exts, e)
		}
	}
	return exts
}

// normalizeExt lowercases an extension and gives it its leading dot, so
// a config that says "PDF" or "pdf" means ".pdf".
func normalizeExt(ext string) string {
	ext = strings.ToLower(strings.TrimSpace(ext))
	if ext == "" || ext == "." {
		return ""
	}
	if !strings.HasPrefix(ext, ".") {
		ext = "." + ext
	}
	return ext
}

// converterName is how fallback lines name an injected converter: its
// String method if it has one, else its type name.
func converterName(c Converter) string {
	if s, ok := c.(fmt.Stringer); ok {
		return safeString(s)
	}
	t := reflect.TypeOf(c)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

func safeString(s fmt.Stringer) (name string) {
	defer func() {
		if recover() != nil {
			name = fmt.Sprintf("%T", s)
		}
	}()
	return s.String()
}

// SupportedFormats answers "what can this forest ingest": for every
// extension some converter claims, the origin of the one tried first —
// "hook" over "ext:<id>" over "describer" over "plugin:<name>" over
// "builtin". Surfaces render their format lists from it (or from
// Formats, the same answer as a list), never from a constant list.
func SupportedFormats(hooks map[string]string, extras []Converter) map[string]string {
	formats := map[string]string{}
	for _, c := range discovery(hooks, extras, Limits{}) {
		for _, ext := range extensionsOf(c.conv) {
			if _, taken := formats[ext]; !taken {
				formats[ext] = c.origin
			}
		}
	}
	return formats
}

// Format is one extension a forest can ingest and who claims it, as the
// spec's supported_formats lists it ({extension, via}).
type Format struct {
	Extension string `json:"extension"` // lowercase, with the dot
	Via       string `json:"via"`       // the origin of the claimant tried first
}

// Formats is SupportedFormats as the list surfaces send
// (formats: [{extension, via}]), in extension order so two answers over
// the same converters are the same bytes.
func Formats(hooks map[string]string, extras []Converter) []Format {
	by := SupportedFormats(hooks, extras)
	out := make([]Format, 0, len(by))
	for _, ext := range slices.Sorted(maps.Keys(by)) {
		out = append(out, Format{Extension: ext, Via: by[ext]})
	}
	return out
}

// convertWith runs the claimants in order until one succeeds (fallthrough,
// G.2). Each failure but the last adds a line
// "<rel>: <converter> failed, falling back: <msg>" to fallbacks; only
// the last claimant's failure is returned as err. A panic is a failure.
// converter names the claimant that produced conv (or failed last). With
// no claimant, err wraps ErrUnsupported. Cancellation stops at once and
// is returned as is: it is nobody's failure to fall back from.
func convertWith(ctx context.Context, cl []claimant, path, rel string) (conv *Conversion, converter string, fallbacks []string, err error) {
	if len(cl) == 0 {
		return nil, "", nil, fmt.Errorf("%w: %s", ErrUnsupported, rel)
	}
	last := len(cl) - 1
	for _, c := range cl[:last] {
		conv, err := attempt(ctx, c, path)
		if err == nil || ctx.Err() != nil {
			return conv, c.name, fallbacks, err
		}
		fallbacks = append(fallbacks, fmt.Sprintf("%s: %s failed, falling back: %v", rel, c.name, err))
	}
	conv, err = attempt(ctx, cl[last], path)
	return conv, cl[last].name, fallbacks, err
}

// attempt runs one claimant unless the caller already gave up; a failure
// seen after cancellation is reported as the cancellation.
func attempt(ctx context.Context, c claimant, path string) (*Conversion, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	conv, err := runConverter(ctx, c.conv, path)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return conv, err
}

// runConverter calls c and turns a panic, a nil conversion or an unknown
// kind into an error, so a broken plugin costs one claimant, never the
// batch.
func runConverter(ctx context.Context, c Converter, path string) (conv *Conversion, err error) {
	defer func() {
		if r := recover(); r != nil {
			conv, err = nil, fmt.Errorf("converter panicked: %v", r)
		}
	}()
	conv, err = c.Convert(ctx, path)
	switch {
	case err != nil:
		return nil, err
	case conv == nil:
		return nil, errors.New("converter returned no conversion")
	}
	switch conv.Kind {
	case KindMarkdown, KindDataset, KindPayload:
		return conv, nil
	}
	return nil, fmt.Errorf("converter returned unknown kind %q, expected markdown, dataset or payload", conv.Kind)
}
