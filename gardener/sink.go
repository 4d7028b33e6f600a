// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/forest"
	"github.com/monkeyllm/vine/internal/dataset"
	"github.com/monkeyllm/vine/internal/trust"
)

// sink is every write a run can make. A Gardener's runs write through
// liveSink; a Preview's through drySink, which does nothing, so a preview
// has no write path whatever the pipeline's branches do.
type sink interface {
	// plant plants one node with the trusted-ingest grant.
	plant(ctx context.Context, spec vine.NodeSpec) error
	// rewrite is the refresh write: one .md-only commit under subject.
	rewrite(ctx context.Context, id, subject string, edit func(*forest.Node) error) error
	// saveConfig writes _meta/gardener.yaml of the forest at dir.
	saveConfig(dir string, c *Config) error
	// writeFile replaces path with data, creating its directory.
	writeFile(path string, data []byte) error
	// install copies src to dst, which must not exist (never overwrite).
	install(src, dst string) error
	// createDataset builds a SQLite payload at path (which must not exist).
	createDataset(ctx context.Context, path string, tables []vine.TableSpec, rows map[string][][]any) error
	// rename moves a file over another.
	rename(from, to string) error
	// remove deletes a file; a missing one is not an error.
	remove(path string) error
}

type liveSink struct{ v *vine.Vine }

func (s liveSink) plant(ctx context.Context, spec vine.NodeSpec) error {
	_, err := s.v.Plant(ctx, spec, vine.PlantOptions{Adopted: trust.Ingest()})
	return err
}

func (s liveSink) rewrite(ctx context.Context, id, subject string, edit func(*forest.Node) error) error {
	_, err := s.v.Rewrite(ctx, trust.Ingest(), id, subject, edit)
	return err
}

func (s liveSink) saveConfig(dir string, c *Config) error { return c.save(dir) }

func (s liveSink) writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func (s liveSink) install(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if errors.Is(err, os.ErrExist) {
		return envelope.New(envelope.Schema, "payload already exists: "+filepath.Base(dst),
			"the Gardener never overwrites a file beside a passport; move it away and sync again")
	}
	if err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		out.Close()
		os.Remove(dst)
		return err
	}
	defer in.Close()
	_, cerr := io.Copy(out, in)
	if err := errors.Join(cerr, out.Close()); err != nil {
		os.Remove(dst)
		return err
	}
	return nil
}

func (s liveSink) createDataset(ctx context.Context, path string, tables []vine.TableSpec, rows map[string][][]any) error {
	return dataset.Create(ctx, path, tables, rows)
}

func (s liveSink) rename(from, to string) error { return os.Rename(from, to) }

func (s liveSink) remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// drySink is the Preview's write path: there is none.
type drySink struct{}

func (drySink) plant(context.Context, vine.NodeSpec) error { return nil }
func (drySink) rewrite(context.Context, string, string, func(*forest.Node) error) error {
	return nil
}
func (drySink) saveConfig(string, *Config) error { return nil }
func (drySink) writeFile(string, []byte) error   { return nil }
func (drySink) install(string, string) error     { return nil }
func (drySink) rename(string, string) error      { return nil }
func (drySink) remove(string) error              { return nil }
func (drySink) createDataset(context.Context, string, []vine.TableSpec, map[string][][]any) error {
	return nil
}
