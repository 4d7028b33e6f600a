// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/gardener"
	"github.com/monkeyllm/vine/internal/testforest"
)

// slidePNG stands in for a slide; the fake server "reads" it.
var slidePNG = []byte("\x89PNG\r\n\x1a\nslide: Kelpwarden rota")

// slideText is what the fake multimodal server answers: a description
// and the transcription of the slide's legible text.
const slideText = "A slide with a table of names.\n\nText in the image:\n- Kelpwarden rota\n- Monday: Ana"

// visionServer is a fake OpenAI-compatible multimodal chat server. It
// checks that the image arrives as a data URL content part and answers
// slideText, streamed or as one JSON completion; with status set it
// fails instead. calls counts the requests.
func visionServer(t *testing.T, streamed bool, status int) (string, *atomic.Int32) {
	t.Helper()
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if status != 0 {
			http.Error(w, `{"error":{"message":"vision projector not loaded"}}`, status)
			return
		}
		var req struct {
			Model    string
			Messages []struct {
				Content []struct {
					Type     string
					ImageURL struct{ URL string } `json:"image_url"`
				}
			}
		}
		if !assert.NoError(t, json.NewDecoder(r.Body).Decode(&req)) || !assert.Len(t, req.Messages, 1) ||
			!assert.Len(t, req.Messages[0].Content, 2) {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		assert.Equal(t, "vl-test", req.Model)
		assert.Equal(t, "image_url", req.Messages[0].Content[1].Type)
		assert.True(t, strings.HasPrefix(req.Messages[0].Content[1].ImageURL.URL, "data:image/png;base64,"))
		choice := map[string]any{"index": 0, "finish_reason": "stop"}
		if !streamed {
			choice["message"] = map[string]any{"role": "assistant", "content": slideText}
			w.Header().Set("Content-Type", "application/json")
			json.NewEncoder(w).Encode(map[string]any{"model": "vl-test", "choices": []any{choice}})
			return
		}
		choice["delta"] = map[string]any{"content": slideText}
		frame, _ := json.Marshal(map[string]any{"model": "vl-test", "choices": []any{choice}})
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: " + string(frame) + "\n\ndata: [DONE]\n\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", &calls
}

// clearVisionEnv keeps the caller's environment out of a test.
func clearVisionEnv(t *testing.T) {
	t.Setenv(visionEndpointEnv, "")
	t.Setenv(visionModelEnv, "")
	t.Setenv(visionAPIKeyEnv, "")
}

// sniffCLI is the ids vine call sniff finds for term.
func sniffCLI(t *testing.T, forestDir, term string) []string {
	t.Helper()
	code, out, errOut := runCLI(t, "", "call", "sniff", "--forest", forestDir, `{"terms":["`+term+`"]}`)
	require.Equal(t, exitOK, code, errOut+out)
	var res struct{ Results []struct{ ID string } }
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	var ids []string
	for _, h := range res.Results {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestAdoptWithVisionModel: with --vision-endpoint and --vision-model, an
// image with text becomes a media node whose body sniff finds by a word
// of that text, from a streamed and from a whole JSON reply.
func TestAdoptWithVisionModel(t *testing.T) {
	clearVisionEnv(t)
	for name, streamed := range map[string]bool{"streamed": true, "whole": false} {
		t.Run(name, func(t *testing.T) {
			endpoint, calls := visionServer(t, streamed, 0)
			forestDir := newCLIForest(t)
			src := sourceTree(t, map[string]string{"slides/rota.png": string(slidePNG), "slides/notes.md": "# Notes\n\nNets."})

			code, out, errOut := runCLI(t, "", "adopt", src, "--forest", forestDir, "--json",
				"--vision-endpoint", endpoint, "--vision-model", "vl-test")
			require.Equal(t, exitOK, code, errOut+out)
			rep := decodeReport(t, out)
			assert.Empty(t, rep.Errors)
			assert.ElementsMatch(t, []string{"slides/rota", "slides/notes"}, rep.Planted)
			assert.Equal(t, int32(1), calls.Load(), "only the image is sent")

			body, err := os.ReadFile(filepath.Join(forestDir, "slides", "rota.md"))
			require.NoError(t, err)
			assert.Contains(t, string(body), "type: media")
			assert.Contains(t, string(body), "Text in the image:\n- Kelpwarden rota")
			assert.NotContains(t, string(body), gardener.MediaStubSentinel)
			assert.Equal(t, []string{"slides/rota"}, sniffCLI(t, forestDir, "kelpwarden"))
		})
	}
}

// TestAdoptVisionFallsThroughToTheStub: a failing server and an image
// over 6 MiB (never sent) both leave the stub, an errors line each, and
// the exit code of a batch with errors.
func TestAdoptVisionFallsThroughToTheStub(t *testing.T) {
	clearVisionEnv(t)
	endpoint, calls := visionServer(t, true, http.StatusInternalServerError)
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"rota.png": string(slidePNG)})
	require.NoError(t, os.WriteFile(filepath.Join(src, "big.png"), make([]byte, gardener.MaxDescribedImage+1), 0o644))

	code, out, _ := runCLI(t, "", "adopt", src, "--forest", forestDir, "--json",
		"--vision-endpoint", endpoint, "--vision-model", "vl-test")
	assert.Equal(t, exitFailure, code, "a fallback is reported, not hidden")
	rep := decodeReport(t, out)
	assert.ElementsMatch(t, []string{"big", "rota"}, rep.Planted, "both still become nodes")
	require.Len(t, rep.Errors, 2)
	assert.Contains(t, rep.Errors[0], "big.png: describer failed, falling back: the image is 6291457 bytes")
	assert.Contains(t, rep.Errors[1], "rota.png: describer failed, falling back: the vision model failed")
	assert.Equal(t, int32(1), calls.Load(), "the oversized image is never sent")
	for _, id := range []string{"big", "rota"} {
		body, err := os.ReadFile(filepath.Join(forestDir, id+".md"))
		require.NoError(t, err)
		assert.Contains(t, string(body), gardener.MediaStubSentinel, id)
	}
	assert.Empty(t, sniffCLI(t, forestDir, "kelpwarden"))
}

// TestSyncWithVisionFromEnv: a forest adopted without a vision model
// holds a stub; a sync with the model named by the environment replaces
// it.
func TestSyncWithVisionFromEnv(t *testing.T) {
	clearVisionEnv(t)
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"rota.png": string(slidePNG)})
	code, out, errOut := runCLI(t, "", "adopt", src, "--forest", forestDir, "--json")
	require.Equal(t, exitOK, code, errOut+out)
	assert.Empty(t, sniffCLI(t, forestDir, "kelpwarden"))

	endpoint, calls := visionServer(t, true, 0)
	t.Setenv(visionEndpointEnv, endpoint)
	t.Setenv(visionModelEnv, "vl-test")
	code, out, errOut = runCLI(t, "", "sync", "--forest", forestDir, "--json")
	require.Equal(t, exitOK, code, errOut+out)
	assert.Equal(t, []string{"rota"}, decodeReport(t, out).Updated)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, []string{"rota"}, sniffCLI(t, forestDir, "kelpwarden"))
}

// TestVisionFlagsRefused: half a binding is a usage error before the
// forest is opened.
func TestVisionFlagsRefused(t *testing.T) {
	clearVisionEnv(t)
	forestDir := newCLIForest(t)
	src := sourceTree(t, map[string]string{"rota.png": string(slidePNG)})
	digest := testforest.TreeDigest(t, forestDir)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"adopt", src, "--vision-endpoint", "http://127.0.0.1:1/v1"}, "vine adopt: --vision-endpoint needs --vision-model NAME (or MONKEYLLM_VISION_MODEL)"},
		{[]string{"adopt", src, "--vision-model", "vl"}, "vine adopt: --vision-model needs --vision-endpoint URL (or MONKEYLLM_VISION_ENDPOINT)"},
		{[]string{"sync", "--vision-endpoint", "ftp://x", "--vision-model", "vl"}, "vine sync: --vision-endpoint: llamacpp: endpoint must be an http(s) URL"},
	} {
		code, _, errOut := runCLI(t, "", append(tt.args, "--forest", forestDir)...)
		assert.Equal(t, exitUsage, code, tt.args)
		assert.Contains(t, errOut, tt.want)
	}
	assert.Equal(t, digest, testforest.TreeDigest(t, forestDir), "a refused binding writes nothing")
}

// TestUploadWithVisionModel: an uploaded image is described as an
// adopted one is (v0.78: the describer runs on uploads too).
func TestUploadWithVisionModel(t *testing.T) {
	clearVisionEnv(t)
	endpoint, calls := visionServer(t, false, 0)
	forestDir := newCLIForest(t)
	img := filepath.Join(t.TempDir(), "rota.png")
	require.NoError(t, os.WriteFile(img, slidePNG, 0o644))

	code, out, errOut := runCLI(t, "", "upload", img, "--forest", forestDir, "--json",
		"--vision-endpoint", endpoint, "--vision-model", "vl-test")
	require.Equal(t, exitOK, code, errOut+out)
	assert.Empty(t, decodeReport(t, out).Errors)
	assert.Equal(t, int32(1), calls.Load())
	assert.Len(t, sniffCLI(t, forestDir, "kelpwarden"), 1, "the transcribed text is in the body")
}
