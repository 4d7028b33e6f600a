// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// ConfigFile is where a forest keeps its Gardener config, relative to the
// forest root. It is not a node (non-.md files under _meta are not
// indexed) and it is never committed.
const ConfigFile = forest.MetaDir + "/gardener.yaml"

// Content policies (G.7): where a converted body lives.
const (
	ContentInline    = "inline"    // the node body holds it (default)
	ContentCached    = "cached"    // _derived/bodies/<id>.md, rebuilt by sync
	ContentReference = "reference" // the source file itself, read live
)

// Archive policies (G.7): whether originals are copied into _assets/.
const (
	ArchiveNever  = "never" // durable sources are referenced, not copied (default)
	ArchiveAlways = "always"
)

// Config is _meta/gardener.yaml (G.6). Keys it does not know are kept
// verbatim when the Gardener saves it.
type Config struct {
	// SourceRoot is the tree adopt mirrored; written by adopt only, before
	// its first step, and the default source of a bare sync.
	SourceRoot string
	// Dest is the branch new files go under; written by adopt when given.
	Dest string
	// Ignore are extra name globs the walk skips.
	Ignore []string
	// Converters are command hooks by extension (".pdf": 'pdf2md
	// "{input}" -o "{output}"'), the first claimants of a file.
	Converters map[string]string
	// Aliases maps a source folder name to the prefix of its declared
	// aliases (G.2.6): {back-end: BE} turns back-end/291-x.md into BE-291.
	Aliases map[string]string
	// DefaultTags are appended to every new draft's tags before hooks.
	DefaultTags []string
	// Directives are passed to a Curator (curation.directives).
	Directives string
	// Content is inline, cached or reference; "" means inline.
	Content string
	// Archive is never or always; "" means never.
	Archive string

	raw yaml.MapSlice // the file as read, for saving with unknown keys kept
}

// LoadConfig reads the config of the forest at dir. A missing file is
// the empty config; a malformed one is E_SCHEMA naming the key.
func LoadConfig(dir string) (*Config, error) {
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ConfigFile)))
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseConfig(data)
}

// ParseConfig reads config text. Unknown keys are kept for saving; a
// known key of the wrong shape is E_SCHEMA naming it.
func ParseConfig(data []byte) (*Config, error) {
	var raw yaml.MapSlice
	if strings.TrimSpace(string(data)) != "" {
		if err := yaml.UnmarshalWithOptions(data, &raw, yaml.UseOrderedMap()); err != nil {
			return nil, configErr("", "is not a YAML mapping: "+firstLine(err.Error()))
		}
	}
	c := &Config{raw: raw}
	for _, item := range raw {
		key, ok := item.Key.(string)
		if !ok {
			return nil, configErr(fmt.Sprint(item.Key), "is not a string key")
		}
		if err := c.set(key, item.Value); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Config) set(key string, v any) error {
	var err error
	switch key {
	case "source_root":
		c.SourceRoot, err = configString(key, v)
	case "dest":
		c.Dest, err = configString(key, v)
	case "ignore":
		c.Ignore, err = configStrings(key, v)
	case "converters":
		c.Converters, err = configMap(key, v)
	case "aliases":
		c.Aliases, err = configMap(key, v)
	case "curation":
		err = c.setCuration(v)
	case "content":
		c.Content, err = configEnum(key, v, ContentInline, ContentCached, ContentReference)
	case "archive":
		c.Archive, err = configEnum(key, v, ArchiveNever, ArchiveAlways)
	}
	return err
}

func (c *Config) setCuration(v any) error {
	if v == nil {
		return nil
	}
	m, ok := v.(yaml.MapSlice)
	if !ok {
		return configErr("curation", "expects a mapping {default_tags, directives}")
	}
	var err error
	for _, item := range m {
		switch key, _ := item.Key.(string); key {
		case "default_tags":
			c.DefaultTags, err = configStrings("curation.default_tags", item.Value)
		case "directives":
			c.Directives, err = configString("curation.directives", item.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ContentPolicy is the effective content policy.
func (c *Config) ContentPolicy() string {
	if c.Content == "" {
		return ContentInline
	}
	return c.Content
}

// ArchivePolicy is the effective archive policy.
func (c *Config) ArchivePolicy() string {
	if c.Archive == "" {
		return ArchiveNever
	}
	return c.Archive
}

// Marshal renders the config: the file's own keys in their order with the
// known ones updated, then known keys the file lacked.
func (c *Config) Marshal() (data []byte, err error) {
	defer func() {
		// The encoder panics on some mappings it decoded itself (a
		// non-string key); a config it cannot write back is an error.
		if p := recover(); p != nil {
			data, err = nil, fmt.Errorf("gardener: cannot write %s back: %v", ConfigFile, p)
		}
	}()
	out := slices.Clone(c.raw)
	put := func(key string, v any, present bool) {
		i := slices.IndexFunc(out, func(it yaml.MapItem) bool { return it.Key == key })
		switch {
		case i >= 0 && present:
			out[i].Value = v
		case i >= 0:
			out = slices.Delete(out, i, i+1)
		case present:
			out = append(out, yaml.MapItem{Key: key, Value: v})
		}
	}
	put("source_root", c.SourceRoot, c.SourceRoot != "")
	put("dest", c.Dest, c.Dest != "")
	return yaml.Marshal(out)
}

// save writes the config atomically beside the forest's other _meta
// files.
func (c *Config) save(dir string) error {
	data, err := c.Marshal()
	if err != nil {
		return err
	}
	p := filepath.Join(dir, filepath.FromSlash(ConfigFile))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func configString(key string, v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	}
	return "", configErr(key, fmt.Sprintf("expects a string, got %T", v))
}

func configStrings(key string, v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, configErr(key, "expects a list of strings")
	}
	out := make([]string, 0, len(list))
	for i, it := range list {
		s, ok := it.(string)
		if !ok {
			return nil, configErr(fmt.Sprintf("%s[%d]", key, i), fmt.Sprintf("expects a string, got %T", it))
		}
		out = append(out, s)
	}
	return out, nil
}

func configMap(key string, v any) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	m, ok := v.(yaml.MapSlice)
	if !ok {
		return nil, configErr(key, "expects a mapping of strings")
	}
	out := make(map[string]string, len(m))
	for _, it := range m {
		k, kok := it.Key.(string)
		s, vok := it.Value.(string)
		if !kok || !vok {
			return nil, configErr(key, fmt.Sprintf("expects string keys and values, got %v: %v", it.Key, it.Value))
		}
		out[k] = s
	}
	return out, nil
}

func configEnum(key string, v any, allowed ...string) (string, error) {
	s, err := configString(key, v)
	if err != nil {
		return "", err
	}
	if s != "" && !slices.Contains(allowed, s) {
		return "", configErr(key, fmt.Sprintf("expects one of %s, got %q", strings.Join(allowed, ", "), s))
	}
	return s, nil
}

func configErr(key, msg string) error {
	where := ConfigFile
	if key != "" {
		where += " key '" + key + "'"
	}
	return envelope.New(envelope.Schema, where+" "+msg,
		"fix the file by hand; it is not a node, so no primitive edits it")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
