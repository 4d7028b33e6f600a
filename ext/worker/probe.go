// SPDX-License-Identifier: Apache-2.0

package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/envelope"
	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/internal/rpc"
)

// Declared is one handler as an extension's handshake declares it.
type Declared struct {
	Seam   ext.Seam
	Name   string
	Params []Param
}

// Param is a parameter a declared handler reads.
type Param struct {
	Name     string
	Optional bool
}

// Probe starts the extension in tree in a throwaway process, reads its
// handshake and stops it: what the kit checks before anything is
// registered. It runs the extension's code.
func Probe(ctx context.Context, tree string, man *ext.Manifest, opt Options) ([]Declared, error) {
	w := New(tree, man, opt)
	p, raw, err := w.handshake(ctx)
	if err != nil {
		return nil, err
	}
	defer p.stop()
	var res rpc.InitializeResult
	if err := json.Unmarshal(raw, &res); err != nil || res.Protocol != rpc.Protocol {
		return nil, w.failure(envelope.ExtLoad, fmt.Sprintf("the handshake is not %s", rpc.Protocol), "")
	}
	var out []Declared
	for seam, list := range res.Handlers {
		for _, h := range list {
			d := Declared{Seam: ext.Seam(seam), Name: h.Name}
			for _, p := range h.Params {
				d.Params = append(d.Params, Param{p.Name, p.Optional})
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// Fits checks a declared handler against its seam's contract: every
// parameter it reads must be one the seam passes, unless it has a
// default. The error names the seam, the parameter and what is passed.
func Fits(d Declared) error {
	c, ok := ext.ContractOf(d.Seam)
	if !ok || c.Declarative {
		return fmt.Errorf("%q is not a seam handlers can claim", d.Seam)
	}
	h := rpc.HandlerDecl{Name: d.Name}
	for _, p := range d.Params {
		h.Params = append(h.Params, rpc.ParamDecl{Name: p.Name, Optional: p.Optional})
	}
	return fits(c, h)
}

// handshake starts a process and runs initialize, returning the raw
// answer; the caller owns the process.
func (w *Worker) handshake(ctx context.Context) (*process, json.RawMessage, error) {
	cmd := command(w)
	p, err := startProcess(cmd, w.opt.MaxMessage, w.handle)
	if err != nil {
		return nil, nil, w.failure(envelope.ExtLoad, "cannot start "+filepath.Base(w.entry)+": "+err.Error(), "")
	}
	var cfg map[string]any
	if w.opt.Config != nil {
		cfg = w.opt.Config()
	}
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	raw, err := p.conn.Call(hctx, rpc.MethodInitialize, rpc.InitializeParams{
		Protocol: rpc.Protocol, HostVersion: w.opt.HostVersion, ID: w.man.ID, Config: cfg})
	if err != nil {
		p.kill()
		select { // its last words are copied until it is reaped
		case <-p.done:
		case <-time.After(2 * time.Second):
		}
		return nil, nil, w.failure(envelope.ExtLoad, "handshake failed: "+p.reason(err).Error(), p.stderr.tail(400))
	}
	return p, raw, nil
}
