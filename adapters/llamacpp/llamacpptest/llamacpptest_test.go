// SPDX-License-Identifier: Apache-2.0

package llamacpptest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
	"github.com/monkeyllm/vine/model"
)

func TestScriptFollowsTheTurns(t *testing.T) {
	srv := llamacpptest.NewServer(llamacpptest.Script("first", "second"))
	t.Cleanup(srv.Close)
	c, err := llamacpp.New(srv.URL+"/v1", "fake-model")
	require.NoError(t, err)
	ctx := context.Background()
	msgs := []model.Message{{Role: "user", Content: "go"}}
	for _, want := range []string{"first", "second", "second"} {
		got, err := c.Chat(ctx, msgs, 64)
		require.NoError(t, err)
		assert.Equal(t, want, got, "the script is indexed by assistant turns, and its last reply repeats")
		msgs = append(msgs, model.Message{Role: "assistant", Content: got}, model.Message{Role: "user", Content: "more"})
	}
	reqs := srv.Requests()
	require.Len(t, reqs, 3)
	assert.Equal(t, []int{0, 1, 2}, []int{reqs[0].Turn(), reqs[1].Turn(), reqs[2].Turn()})
	assert.Equal(t, "fake-model", reqs[0].Model)
}

func TestEmbeddingsAreDeterministic(t *testing.T) {
	srv := llamacpptest.NewServer(llamacpptest.Reply(""))
	t.Cleanup(srv.Close)
	c, err := llamacpp.New(srv.URL+"/v1", "fake-model")
	require.NoError(t, err)
	vs, err := c.Embed(context.Background(), []string{"tide", "swell", "tide"})
	require.NoError(t, err)
	require.Len(t, vs, 3)
	assert.Equal(t, vs[0], vs[2], "equal texts, equal vectors")
	assert.NotEqual(t, vs[0], vs[1])
	assert.Len(t, vs[0], 8, "the server's Dims")
}
