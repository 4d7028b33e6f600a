// SPDX-License-Identifier: Apache-2.0

package answer

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
)

type fakePrompter struct {
	text string
	err  error
	seen []string
}

func (f *fakePrompter) Name() string { return "ext:house-style" }
func (f *fakePrompter) Prompt(_ context.Context, mode, question, system string) (string, error) {
	f.seen = append(f.seen, mode)
	return f.text, f.err
}

// TestPromptSeam is F.198's second half: a prompt contribution is
// appended to the system message, never substituted; the answer names
// it; a failing one leaves the message as it was and names nothing; an
// active one keys the answer store apart.
func TestPromptSeam(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		p        *fakePrompter
		appended bool
	}{
		{"appended", &fakePrompter{text: "Answer in the house style: short sentences."}, true},
		{"fails: unmodified", &fakePrompter{err: errors.New("boom")}, false},
		{"nothing to add", &fakePrompter{text: "  "}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, _ := open(t)
			plain := says(alertA)
			_, err := newAnswerer(t, plain, nil).Sweep(ctx, v, alertQ, Params{NoCache: true})
			require.NoError(t, err)
			base := plain.call(1)[0].Content

			m := says(alertA)
			a := newAnswerer(t, m, &Options{Prompter: func(context.Context, *vine.Vine) Prompter { return tc.p }})
			res, err := a.Sweep(ctx, v, alertQ, Params{NoCache: true})
			require.NoError(t, err)
			system := m.call(1)[0].Content
			assert.True(t, strings.HasPrefix(system, base), "the rules stay: the contribution is appended, never substituted")
			assert.Equal(t, []string{"sweep"}, tc.p.seen)
			if tc.appended {
				assert.True(t, strings.HasSuffix(system, "\n\n"+tc.p.text))
				assert.Equal(t, []string{"ext:house-style"}, res.Extensions)
			} else {
				assert.Equal(t, base, system)
				assert.Empty(t, res.Extensions)
			}
		})
	}

	q1, err := validate("a question", Params{})
	require.NoError(t, err)
	q2 := *q1
	q2.prompter = &fakePrompter{}
	a := newAnswerer(t, says(""), nil)
	assert.NotEqual(t, a.sweepKey(q1, nil, 3, Unrestricted), a.sweepKey(&q2, nil, 3, Unrestricted),
		"an active prompt contribution keys the store apart")
}

func TestPromptSeamOnAWalk(t *testing.T) {
	ctx := context.Background()
	v, _ := open(t)
	p := &fakePrompter{text: "Prefer the newest source."}
	m := turns(`{"answer": "` + alertA + `"}`)
	a := newAnswerer(t, m, &Options{Prompter: func(context.Context, *vine.Vine) Prompter { return p }})
	res, err := a.Walk(ctx, v, alertQ, Params{Hops: 2, NoCache: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"walk"}, p.seen)
	assert.True(t, strings.HasSuffix(m.call(1)[0].Content, "\n\nPrefer the newest source."))
	assert.Equal(t, []string{"ext:house-style"}, res.Extensions)
}
