// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
)

// StagingDir is where uploads wait, relative to the forest root: inside
// the derived layer, so staged bytes are never forest content.
const StagingDir = forest.DerivedDir + "/uploads"

// maxSourceURL bounds a declared source URL (J.8).
const maxSourceURL = 2048

// MaxUploadNameBytes bounds each segment of an uploaded file's name. A
// file system allows 255 bytes; the engine needs room beside the name
// for what it derives from it (the staging copy's ".tmp", the node's
// ".md"), so a longer name would fail midway instead of being refused.
const MaxUploadNameBytes = 200

// UploadFile is one file sent as bytes (J.8 upload).
type UploadFile struct {
	// Name is the staged path, relative, "/"-separated; it becomes the
	// passport's source_path and decides the node id.
	Name string
	// Data are the file's bytes.
	Data []byte
	// SourceURL, optional, is where the file came from (http or https):
	// it becomes the passport's origin and a provenance line under a
	// markdown body.
	SourceURL string
	// Passport, optional, is what the sender says about the file
	// (J.8.4): a new document takes it instead of asking the Curator.
	Passport *UploadPassport
}

// UploadSteps validates every file, stages them under the forest's
// _derived/uploads/, and prepares their sync (J.8.3): a file without a
// passport is planted under dest, one with a passport refreshed, and each
// staged file is removed once its document landed (Consumed); a file that
// failed stays as the evidence. Nothing is recorded in the config. Every
// refusal (E_SCHEMA naming the entry) comes before the first byte is
// staged.
func (g *Gardener) UploadSteps(ctx context.Context, files []UploadFile, dest string) (*Steps, error) {
	if err := g.c.writable("upload"); err != nil {
		return nil, err
	}
	s := liveSink{v: g.c.v}
	staging := filepath.Join(g.c.v.Dir(), filepath.FromSlash(StagingDir))
	return g.c.uploadSteps(ctx, s, staging, s.writeFile, files, dest)
}

// uploadSteps checks every entry, stages the files under staging with
// write, and prepares their reconciliation; a live run consumes what
// landed.
func (c core) uploadSteps(ctx context.Context, s sink, staging string, write func(string, []byte) error,
	files []UploadFile, dest string) (*Steps, error) {
	names, urls, err := checkUploads(files)
	if err != nil {
		return nil, err
	}
	passports, err := uploadPassports(files, names)
	if err != nil {
		return nil, err
	}
	r, err := c.begin(ctx, s, "upload", dest)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		if err := write(filepath.Join(staging, filepath.FromSlash(names[i])), f.Data); err != nil {
			return nil, fmt.Errorf("upload: stage %s: %w", names[i], err)
		}
	}
	r.consume, r.passports = !r.dry, passports
	return r.reconcileSteps(staging, names, urls)
}

// Upload is Gardener.Upload without any write to the forest (J.8.1, the
// stage of compose): the files are staged in a temporary directory
// outside it, removed once the drafts are collected.
func (p *Preview) Upload(ctx context.Context, files []UploadFile, dest string) (*IngestReport, error) {
	tmp, err := os.MkdirTemp("", "vine-preview-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	write := func(path string, data []byte) error {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	}
	s, err := p.c.uploadSteps(ctx, drySink{}, tmp, write, files, dest)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}

// Upload stages the files and drains their sync: UploadSteps drained.
func (g *Gardener) Upload(ctx context.Context, files []UploadFile, dest string) (*IngestReport, error) {
	s, err := g.UploadSteps(ctx, files, dest)
	if err != nil {
		return nil, err
	}
	return s.Drain(ctx)
}

// uploadPassports checks every entry's passport and maps the staged
// name to it.
func uploadPassports(files []UploadFile, names []string) (map[string]*UploadPassport, error) {
	out := map[string]*UploadPassport{}
	for i, f := range files {
		if f.Passport == nil {
			continue
		}
		if err := checkPassport(i, f.Passport); err != nil {
			return nil, err
		}
		out[names[i]] = f.Passport
	}
	return out, nil
}

// checkUploads validates every entry before anything is staged and
// returns the clean staged names and the provenance map.
func checkUploads(files []UploadFile) ([]string, map[string]string, error) {
	if len(files) == 0 {
		return nil, nil, envelope.New(envelope.Schema, "upload: parameter 'files' is empty",
			"send at least one {name, text | b64}")
	}
	names := make([]string, len(files))
	urls := map[string]string{}
	seen := map[string]int{}
	for i, f := range files {
		name, err := stagedName(i, f.Name)
		if err != nil {
			return nil, nil, err
		}
		if j, dup := seen[name]; dup {
			return nil, nil, entryErr(i, fmt.Sprintf("name %q repeats files[%d]", f.Name, j), "each file is sent once")
		}
		seen[name] = i
		if f.SourceURL != "" {
			if err := checkSourceURL(i, f.SourceURL); err != nil {
				return nil, nil, err
			}
			urls[name] = f.SourceURL
		}
		names[i] = name
	}
	return names, urls, nil
}

// stagedName checks one name: non-empty, relative, resolving under the
// staging root, and naming a file rather than a folder.
func stagedName(i int, name string) (string, error) {
	hint := "a name is a relative path such as report.pdf or q1/sales.csv"
	if strings.TrimSpace(name) == "" {
		return "", entryErr(i, "name is empty", hint)
	}
	if r := strings.IndexFunc(name, unicode.IsControl); r >= 0 {
		return "", entryErr(i, fmt.Sprintf("name %q contains the control character %U", name, []rune(name[r:])[0]),
			hint+"; a file name holds no NUL byte or other control character")
	}
	if strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || filepath.IsAbs(name) {
		return "", entryErr(i, fmt.Sprintf("name %q is absolute", name), hint)
	}
	clean := path.Clean(strings.ReplaceAll(name, `\`, "/"))
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.HasSuffix(name, "/") {
		return "", entryErr(i, fmt.Sprintf("name %q does not name a file under the staging folder", name), hint)
	}
	if reason := uploadNameTooLong(clean); reason != "" {
		return "", entryErr(i, fmt.Sprintf("name %s %s", clipName(clean), reason),
			fmt.Sprintf("each folder or file name is at most %d bytes, the whole name at most %d; shorten it",
				MaxUploadNameBytes, forest.MaxIDBytes))
	}
	return clean, nil
}

// uploadNameTooLong says why a clean staged name is too long, or "".
func uploadNameTooLong(clean string) string {
	if len(clean) > forest.MaxIDBytes {
		return forest.PathTooLong(clean)
	}
	for seg := range strings.SplitSeq(clean, "/") {
		if len(seg) > MaxUploadNameBytes {
			return fmt.Sprintf("has a segment of %d bytes, over the limit of %d", len(seg), MaxUploadNameBytes)
		}
	}
	return ""
}

// clipName quotes a name for a message about its length, cut short: the
// caller sent it and knows it.
func clipName(s string) string {
	const keep = 60
	if len(s) <= keep {
		return strconv.Quote(s)
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "…"
}

// checkSourceURL: http or https, at most 2048 characters, no control or
// space character.
func checkSourceURL(i int, s string) error {
	hint := "source_url is the http(s) address the file came from, percent-encoded"
	if len(s) > maxSourceURL {
		return entryErr(i, fmt.Sprintf("source_url is %d characters, at most %d", len(s), maxSourceURL), hint)
	}
	for _, r := range s {
		if r < 0x21 || r == 0x7f {
			return entryErr(i, fmt.Sprintf("source_url contains the control or space character %U", r), hint)
		}
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return entryErr(i, fmt.Sprintf("source_url %q is not an http or https URL", s), hint)
	}
	return nil
}

func entryErr(i int, msg, hint string) error {
	return envelope.New(envelope.Schema, fmt.Sprintf("upload: files[%d]: %s", i, msg), hint)
}
