// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/model"
)

var slide = model.Image{MIME: "image/png", Data: []byte("\x89PNG\r\n\x1a\nslide")}

// TestDescribeSendsTheImageAsADataURL checks the request an
// OpenAI-compatible multimodal server reads: one user message of a text
// part and an image_url part holding the data URL.
func TestDescribeSendsTheImageAsADataURL(t *testing.T) {
	var body map[string]any
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, json.NewDecoder(r.Body).Decode(&body))
		reply("stop", "A slide: ", "Tide tables.")(w, r)
	}))
	r, err := c.Describe(context.Background(), "What does it show?", slide, 600)
	require.NoError(t, err)
	assert.Equal(t, "A slide: Tide tables.", r.Content)
	assert.False(t, r.Truncated)

	assert.Equal(t, float64(600), body["max_tokens"])
	assert.Equal(t, "test-model", body["model"])
	assert.Equal(t, []any{map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "text", "text": "What does it show?"},
		map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0KGgpzbGlkZQ=="}},
	}}}, body["messages"])
}

// TestDescribeReadsAWholeJSONReply: a server that ignores stream answers
// one chat completion, read as a whole reply; a cut one is flagged.
func TestDescribeReadsAWholeJSONReply(t *testing.T) {
	for reason, truncated := range map[string]bool{"stop": false, "length": true} {
		c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"model": "vl", "choices": []any{map[string]any{"index": 0,
				"message": map[string]any{"role": "assistant", "content": "A chart of catches."}, "finish_reason": reason}}})
		}))
		r, err := c.Describe(context.Background(), "Describe.", slide, 0)
		require.NoError(t, err, reason)
		assert.Equal(t, "A chart of catches.", r.Content, reason)
		assert.Equal(t, truncated, r.Truncated, reason)
	}
}

func TestDescribeRefusesNoImage(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("nothing is sent without an image")
	}))
	_, err := c.Describe(context.Background(), "Describe.", model.Image{MIME: "text/plain", Data: []byte("x")}, 0)
	assert.ErrorContains(t, err, "image/* MIME type")
	_, err = c.Describe(context.Background(), "Describe.", model.Image{MIME: "image/png"}, 0)
	assert.ErrorContains(t, err, "0 bytes")
}

func TestDescribeReportsAServerError(t *testing.T) {
	c := newClient(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"image input is not supported"}`, http.StatusBadRequest)
	}), WithRetries(0, 0))
	_, err := c.Describe(context.Background(), "Describe.", slide, 0)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not supported")
}
