// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/monkeyllm/vine/convert"
	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
)

// Converters are the extension's converters, one per claim in its
// manifest, ready for the Gardener (wrap each with
// gardener.ExtensionConverter(w.ID(), c) so discovery ranks it as
// "ext:<id>").
func (w *Worker) Converters() []convert.Converter {
	var out []convert.Converter
	for _, c := range w.man.Contributes.Converters {
		out = append(out, &converter{w: w, handler: c.Handler, exts: slices.Clone(c.Extensions)})
	}
	return out
}

type converter struct {
	w       *Worker
	handler string
	exts    []string
}

func (c *converter) Extensions() []string { return slices.Clone(c.exts) }

func (c *converter) String() string { return "ext:" + c.w.man.ID + "/" + c.handler }

// Convert hands the extension a copy of the file in a directory of its
// own, never the path inside a source tree or forest, and reads its
// answer strictly.
func (c *converter) Convert(ctx context.Context, path string) (*convert.Conversion, error) {
	dir, err := os.MkdirTemp("", "vine-ext-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	cp := filepath.Join(dir, filepath.Base(path))
	if err := copyFile(path, cp); err != nil {
		return nil, err
	}
	call := ext.CallOf(ctx)
	call.Files = []string{cp}
	raw, err := c.w.Call(ctx, call, ext.SeamConverters, c.handler, map[string]any{"path": cp})
	if err != nil {
		return nil, err
	}
	wire, err := ext.DecodeConversion(raw)
	if err != nil {
		return nil, c.w.failure(envelope.ExtWorker, fmt.Sprintf("converters handler %q answered %v", c.handler, err), "")
	}
	return fromWire(wire), nil
}

// fromWire is the engine's form of a conversion. Column order, which a
// JSON object does not keep in Go, is the columns' name order.
func fromWire(w *ext.Conversion) *convert.Conversion {
	out := &convert.Conversion{Kind: convert.Kind(w.Kind), Title: w.Title, Markdown: w.Markdown,
		Schema: w.Schema, Rows: w.Rows, Tables: w.Tables, Samples: w.Samples, Counts: w.Counts}
	if len(w.Schema) > 0 {
		out.Columns = map[string][]string{}
		for t, cols := range w.Schema {
			names := make([]string, 0, len(cols))
			for n := range cols {
				names = append(names, n)
			}
			slices.Sort(names)
			out.Columns[t] = names
		}
		if len(out.Tables) == 0 {
			for t := range w.Schema {
				out.Tables = append(out.Tables, t)
			}
			slices.Sort(out.Tables)
		}
	}
	return out
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
