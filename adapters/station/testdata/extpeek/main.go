// SPDX-License-Identifier: Apache-2.0

// Command extpeek is the Station tests' extension: its route picks the
// node the body names through the host, as the caller.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"log"
	"sync"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/sdk"
)

//go:embed manifest.json
var manifestJSON []byte

type peek struct{}

func (peek) Manifest() ext.Manifest {
	m, err := ext.ParseManifest(manifestJSON)
	if err != nil {
		panic(err)
	}
	return *m
}

// seen are the events heard, as "<forest> <event>" lines.
var (
	mu   sync.Mutex
	seen []string
)

func (peek) Register(api *ext.API) error {
	err := errors.Join(
		api.Events("record", func(ctx context.Context, e ext.Event) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, e.Forest+" "+e.Event)
			return nil
		}),
		api.Tool("x_peek_echo", func(ctx context.Context, args json.RawMessage) (any, error) {
			return map[string]any{"forest": ext.CallOf(ctx).Forest, "args": args}, nil
		}),
		api.Job("census", func(ctx context.Context, forest string) (any, error) {
			out, err := api.Vine(ctx, "coverage", map[string]any{})
			if err != nil {
				return nil, err
			}
			return map[string]any{"forest": forest, "coverage": out}, nil
		}),
		api.Route("ask", func(ctx context.Context, _ string, body json.RawMessage) (any, error) {
			req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": string(body)}}})
			out, err := api.Complete(ctx, "peek_chat", req)
			var r *ext.Refusal
			if errors.As(err, &r) {
				return map[string]any{"refused": r.Code, "message": r.Message}, nil
			}
			if err != nil {
				return nil, err
			}
			return map[string]any{"reply": out}, nil
		}),
		api.Route("spend", func(ctx context.Context, _ string, body json.RawMessage) (any, error) {
			// Unlike ask, a refusal fails the act: the caller reads why.
			req, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": string(body)}}})
			return api.Complete(ctx, "peek_chat", req)
		}),
		api.Route("seen", func(context.Context, string, json.RawMessage) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			return map[string]any{"seen": append([]string{}, seen...)}, nil
		}),
	)
	if err != nil {
		return err
	}
	return api.Route("lookup", func(ctx context.Context, forest string, body json.RawMessage) (any, error) {
		var b struct{ ID string }
		if err := json.Unmarshal(body, &b); err != nil {
			return nil, err
		}
		out, err := api.Vine(ctx, "pick", map[string]string{"id": b.ID})
		var r *ext.Refusal
		if errors.As(err, &r) {
			return map[string]any{"forest": forest, "refused": r.Code, "envelope": r.Envelope}, nil
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"forest": forest, "picked": out}, nil
	})
}

func main() { log.Fatal(sdk.Serve(peek{})) }
