// SPDX-License-Identifier: Apache-2.0

package mcp

import (
	"context"
	"encoding/json"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/adapters/internal/wire"
	"github.com/monkeyllm/vine/adapters/keys"
	"github.com/monkeyllm/vine/adapters/record"
)

// toolNote is what a tool call learns of itself for its audit row. A nil
// note (no Recorder) takes every note as a no-op.
type toolNote struct {
	c record.Call
}

// noteCall opens the audit note of one tool call on a forest.
func (s *server) noteCall(who *keys.Principal, tool string) *toolNote {
	if s.rec == nil {
		return nil
	}
	return &toolNote{c: record.Call{Principal: who.Name, Forest: record.NoForest, Primitive: tool, Args: record.Args{}}}
}

// named notes the forest (canonical once granted, as sent otherwise) and
// the argument digest.
func (n *toolNote) named(f *wire.Forests, who *keys.Principal, id string, args []byte) {
	if n == nil {
		return
	}
	n.c.Args = record.Digest(n.c.Primitive, args)
	if canonical, _, err := f.Grant(who, id); err == nil {
		n.c.Forest = canonical
	} else if id != "" {
		n.c.Forest = record.Clip(id)
	}
}

func (n *toolNote) timed(d time.Duration) {
	if n != nil {
		n.c.MS = record.Millis(d)
	}
}

func (n *toolNote) answered(out any) {
	if n != nil {
		n.c.CommitSHA = record.CommitOf(out)
	}
}

// recordTool hands the decided call to the Recorder: the result's text
// block is its size; an isError result is an error row with the
// envelope's code (read back from the block, so a refusal made anywhere
// on the way, the image's included, is named as sent); a panicking call (res nil) is the E_INTERNAL the
// guard answers.
func (s *server) recordTool(ctx context.Context, n *toolNote, res *sdk.CallToolResult) {
	if n == nil {
		return
	}
	c := n.c
	c.Time = time.Now()
	var text string
	if res != nil && len(res.Content) > 0 {
		if tc, ok := res.Content[0].(*sdk.TextContent); ok {
			text = tc.Text
		}
	}
	c.Size = int64(len(text))
	if res == nil || res.IsError {
		c.Result, c.ErrorCode, c.CommitSHA = record.Error, envelopeCode(text), ""
	}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("audit recorder panicked", "tool", c.Primitive, "panic", p)
		}
	}()
	s.rec.Record(context.WithoutCancel(ctx), c)
}

// stamped is ctx carrying who's commit trailer (station-principal, J.4)
// for the writes of this call, so history answers by; the local owner
// stamps nothing.
func stamped(ctx context.Context, who *keys.Principal) context.Context {
	if who == nil || who.IsLocal() || who.Name == "" {
		return ctx
	}
	return vine.WithPrincipal(ctx, who.Name)
}

// envelopeCode is the code of a refusal's envelope, E_INTERNAL when the
// text is not one.
func envelopeCode(text string) string {
	var env struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(text), &env) != nil || env.Error.Code == "" {
		return string(vine.EInternal)
	}
	return env.Error.Code
}
