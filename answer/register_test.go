// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
)

// TestRegisterAddsAnswerOnlyWhenAModelIsBound is the package's only
// Register: the signature table is process-wide.
func TestRegisterAddsAnswerOnlyWhenAModelIsBound(t *testing.T) {
	ctx := context.Background()
	_, listed := vine.LookupSignature("answer")
	require.False(t, listed, "without a model, no surface lists answer")

	m := turns(sniffThresholds, pickThresholds, answerThresh)
	a, err := Register(m, &Options{Binding: Binding{Provider: "test", Model: "scripted"}, Now: func() time.Time { return today }})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	sig, listed := vine.LookupSignature("answer")
	require.True(t, listed)
	assert.Contains(t, sig.Doc, "view(forest, id)", "the tool names how a media: reference resolves")

	_, err = Register(m, nil)
	var e *vine.Error
	require.True(t, errors.As(err, &e), "a second binding is refused, not a panic")
	assert.Equal(t, vine.ESchema, e.Code)

	v, dir := open(t)
	var hops []int
	watched := WithObservers(ctx, Observers{OnHop: func(h Hop) { hops = append(hops, h.N) }})
	out, err := v.Call(watched, "answer", []byte(`{"question":"`+alertQ+`","hops":3,"detail":"sources"}`))
	require.NoError(t, err)
	res := out.(*Response)
	assert.Equal(t, []string{alertID}, res.Evidence)
	assert.Len(t, res.Hops, 0, "detail sources drops the hops")
	assert.Equal(t, []int{1, 2}, hops, "a transport's observers see every hop")
	assert.Equal(t, 3, m.calls())

	sweep, err := v.Call(ctx, "answer", []byte(`{"query":"`+alertQ+`","terms":["2.5"],"cache":false}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"2.5"}, sweep.(*Response).Harvest.Terms, "the wire's terms reach the sweep")
	assert.Equal(t, 4, m.calls())

	for _, c := range []struct{ name, args, msg string }{
		{"hops as text", `{"question":"q","hops":"yes"}`, "'hops' expects boolean|integer"},
		{"reply_tokens as number", `{"question":"q","reply_tokens":1.5}`, "'reply_tokens' expects integer"},
		{"min_score as text", `{"question":"q","min_score":"high"}`, "'min_score' expects number"},
		{"no question", `{}`, "'question' is empty"},
		{"question and query differ", `{"question":"a","query":"b"}`, "differ"},
		{"terms with hops", `{"question":"q","hops":true,"terms":["x"]}`, "'terms' cannot be combined"},
		{"detail", `{"question":"q","detail":"all"}`, "expected one of full, sources, answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := m.calls()
			testforest.Unchanged(t, dir, func() {
				_, err := v.Call(ctx, "answer", []byte(c.args))
				var e *vine.Error
				require.True(t, errors.As(err, &e), "%v", err)
				assert.Equal(t, vine.ESchema, e.Code)
				assert.Contains(t, e.Message, c.msg)
			})
			assert.Equal(t, calls, m.calls())
		})
	}

	// MCP's listing and serving of answer is tested in adapters/mcp
	// (TestAnswerWalkSendsProgress): the adapter imports this package.

	reader, err := v.Scoped(vine.Policy{Allow: []string{""}, Caps: []vine.Capability{vine.CapRead}})
	require.NoError(t, err)
	_, err = reader.Call(ctx, "answer", []byte(`{"question":"`+alertQ+`"}`))
	require.True(t, errors.As(err, &e))
	assert.Equal(t, vine.EForbidden, e.Code, "answer needs its own capability")
}
