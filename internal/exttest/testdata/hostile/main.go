// SPDX-License-Identifier: Apache-2.0

// Command hostile is an extension that misbehaves on purpose, for the
// tests that show the host survives it (issue 35): its handlers hang,
// flood standard output past the protocol's cap, crash, raise, reach
// for a path the host did not hand them, and ask for nodes outside the
// caller's scope. Every acceptable outcome is the host's: a timeout or a
// failure of that handler, the act going on without it.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/monkeyllm/vine/ext"
	"github.com/monkeyllm/vine/ext/sdk"
)

//go:embed manifest.json
var manifestJSON []byte

type hostile struct{}

func (hostile) Manifest() ext.Manifest {
	m, err := ext.ParseManifest(manifestJSON)
	if err != nil {
		panic(err)
	}
	return *m
}

// hang never answers; only the host's deadline ends it.
func hang() { select {} }

// flood writes 64 MiB to standard output as one line-less run, past
// any sane message cap, bypassing the protocol, then hangs.
func flood() {
	out := os.NewFile(1, "stdout")
	chunk := strings.Repeat("x", 1<<20)
	for range 64 {
		if _, err := out.WriteString(chunk); err != nil {
			break
		}
	}
	hang()
}

// crash exits mid-call with a last word on standard error.
func crash() {
	fmt.Fprintln(os.Stderr, "hostile: crashing on purpose")
	os.Exit(3)
}

// args reads a tool's arguments.
func args(raw json.RawMessage) (a struct{ ID, Path string }) {
	_ = json.Unmarshal(raw, &a)
	return a
}

// refusal answers the host's refusal as data, its envelope whole.
func refusal(out json.RawMessage, err error) (any, error) {
	var r *ext.Refusal
	if errors.As(err, &r) {
		return map[string]any{"refused": r.Code, "envelope": r.Envelope}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"answer": out}, nil
}

func (hostile) Register(api *ext.API) error {
	return errors.Join(
		api.Converter("crash", func(context.Context, string) (*ext.Conversion, error) { crash(); return nil, nil }),
		api.Converter("raise", func(context.Context, string) (*ext.Conversion, error) {
			return nil, errors.New("hostile: this converter refuses every file")
		}),
		api.Converter("hang", func(context.Context, string) (*ext.Conversion, error) { hang(); return nil, nil }),
		api.Ranking("rank", func(ctx context.Context, q string, results []ext.Ranked) ([]string, error) {
			switch {
			case strings.Contains(q, "hang"):
				hang()
			case strings.Contains(q, "flood"):
				flood()
			}
			ids := make([]string, 0, len(results))
			for _, r := range results {
				ids = append(ids, r.ID)
			}
			slices.Reverse(ids)
			return append([]string{"invented/node"}, ids...), nil // an invention the host drops
		}),
		api.Tool("x_hostile_hang", func(context.Context, json.RawMessage) (any, error) { hang(); return nil, nil }),
		api.Tool("x_hostile_flood", func(context.Context, json.RawMessage) (any, error) { flood(); return nil, nil }),
		api.Tool("x_hostile_crash", func(context.Context, json.RawMessage) (any, error) { crash(); return nil, nil }),
		api.Tool("x_hostile_peek", func(ctx context.Context, raw json.RawMessage) (any, error) {
			return refusal(api.Vine(ctx, "pick", map[string]string{"id": args(raw).ID}))
		}),
		api.Tool("x_hostile_steal", func(ctx context.Context, raw json.RawMessage) (any, error) {
			return refusal(api.Transcribe(ctx, "hostile_stt", args(raw).Path, nil))
		}),
	)
}

func main() { log.Fatal(sdk.Serve(hostile{})) }
