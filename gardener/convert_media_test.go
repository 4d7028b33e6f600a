// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/model"
)

// slideBytes stands in for a PNG slide; the fake model "reads" it.
var slideBytes = []byte("\x89PNG\r\n\x1a\nslide: Kelpwarden rota")

// slideDescription is what the fake vision model answers: a description
// and the transcription of the slide's legible text.
const slideDescription = "A slide with a table of names and dates.\n\nText in the image:\n- Kelpwarden rota\n- Monday: Ana"

// visionModel is a fake vision model that counts its calls and answers
// with reply (or fails with err).
type visionModel struct {
	calls atomic.Int32
	got   model.Image
	reply *model.Reply
	err   error
}

func (m *visionModel) Describe(ctx context.Context, prompt string, img model.Image, maxTokens int) (*model.Reply, error) {
	m.calls.Add(1)
	m.got = img
	if m.err != nil {
		return nil, m.err
	}
	return m.reply, nil
}

func describing(text string) *visionModel {
	return &visionModel{reply: &model.Reply{Content: text, FinishReason: "stop"}}
}

func TestMediaDescriberConvert(t *testing.T) {
	var prompt string
	var tokens int
	m := model.DescriberFunc(func(ctx context.Context, p string, img model.Image, maxTokens int) (*model.Reply, error) {
		prompt, tokens = p, maxTokens
		assert.Equal(t, "image/jpeg", img.MIME)
		assert.Equal(t, slideBytes, img.Data)
		return &model.Reply{Content: "<think>a table</think>\n" + slideDescription + "\n", FinishReason: "stop"}, nil
	})
	p := writeSource(t, t.TempDir(), "crew_rota-2026.JPG", slideBytes)
	conv, err := convertFile(t, NewMediaDescriber(m, nil), p)
	require.NoError(t, err)
	assert.Equal(t, &Conversion{Kind: KindMarkdown, Title: "crew rota 2026",
		Markdown: "# crew rota 2026\n\n" + slideDescription + "\n"}, conv)
	assert.Equal(t, DescribePrompt, prompt)
	assert.Contains(t, prompt, "transcribe every legible word", "the prompt asks for the text, not only a description")
	assert.Equal(t, DefaultDescribeTokens, tokens)

	_, err = convertFile(t, NewMediaDescriber(m, &DescriberOptions{MaxTokens: 200}), p)
	require.NoError(t, err)
	assert.Equal(t, 200, tokens)
}

func TestMediaDescriberFailures(t *testing.T) {
	dir := t.TempDir()
	slide := writeSource(t, dir, "slide.png", slideBytes)
	tests := []struct {
		name string
		m    model.Describer
		path string
		want string
	}{
		{"model error", &visionModel{err: errors.New("connection refused")}, slide, "the vision model failed: connection refused"},
		{"empty reply", describing("  \n"), slide, "reply was empty"},
		{"only reasoning", describing("<think>hmm</think>"), slide, "reply was empty"},
		{"no reply", &visionModel{}, slide, "returned no reply"},
		{"truncated", &visionModel{reply: &model.Reply{Content: "A slide wi", FinishReason: "length", Truncated: true}},
			slide, "cut at its token limit"},
		{"empty image", describing("x"), writeSource(t, dir, "empty.png", nil), "the image is empty"},
		{"not an image", describing("x"), writeSource(t, dir, "song.mp3", []byte("ID3")), ".mp3 is not an image format"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convertFile(t, NewMediaDescriber(tt.m, nil), tt.path)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestMediaDescriberSizeLimit: an image over 6 MiB is never sent; one of
// exactly 6 MiB is.
func TestMediaDescriberSizeLimit(t *testing.T) {
	dir := t.TempDir()
	m := describing("A large photograph.")
	d := NewMediaDescriber(m, nil)

	_, err := convertFile(t, d, writeSource(t, dir, "big.png", make([]byte, MaxDescribedImage+1)))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "6291457 bytes, over the describer's limit of 6291456 bytes")
	assert.Zero(t, m.calls.Load(), "an oversized image is refused before the model is asked")

	_, err = convertFile(t, d, writeSource(t, dir, "edge.png", make([]byte, MaxDescribedImage)))
	require.NoError(t, err)
	assert.Equal(t, int32(1), m.calls.Load())
}

// TestMediaDescriberTimeout: a model that does not answer in time is a
// failure; the caller's own context is not cancelled by it.
func TestMediaDescriberTimeout(t *testing.T) {
	m := model.DescriberFunc(func(ctx context.Context, _ string, _ model.Image, _ int) (*model.Reply, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	p := writeSource(t, t.TempDir(), "slow.png", slideBytes)
	ctx := context.Background()
	_, err := NewMediaDescriber(m, &DescriberOptions{Timeout: time.Millisecond}).Convert(ctx, p)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no description within 1ms")
	assert.NoError(t, ctx.Err())
}

func TestNewMediaDescriberClampsTheTimeout(t *testing.T) {
	assert.Equal(t, MaxDescribeTimeout, NewMediaDescriber(nil, nil).timeout)
	assert.Equal(t, MaxDescribeTimeout, NewMediaDescriber(nil, &DescriberOptions{Timeout: time.Hour}).timeout)
	assert.Equal(t, 5*time.Second, NewMediaDescriber(nil, &DescriberOptions{Timeout: 5 * time.Second}).timeout)
	assert.Equal(t, DefaultDescribeTokens, NewMediaDescriber(nil, &DescriberOptions{MaxTokens: -1}).maxTokens)
}

func TestSupportedFormatsWithADescriber(t *testing.T) {
	got := SupportedFormats(nil, []Converter{NewMediaDescriber(describing("x"), nil)})
	for _, ext := range []string{".png", ".jpg", ".jpeg", ".gif", ".webp"} {
		assert.Equal(t, OriginDescriber, got[ext], ext)
	}
	for _, ext := range []string{".mp3", ".wav", ".m4a", ".ogg", ".flac"} {
		assert.Equal(t, OriginBuiltin, got[ext], "audio keeps the stub: %s", ext)
	}
	hooked := SupportedFormats(map[string]string{".png": "png2md {input}"}, []Converter{NewMediaDescriber(describing("x"), nil)})
	assert.Equal(t, OriginHook, hooked[".png"], "an operator's hook wins over the describer")
	assert.Equal(t, OriginDescriber, hooked[".jpg"])
}

// sniffIDs is the ids sniff finds for term.
func sniffIDs(t *testing.T, v *vine.Vine, term string) []string {
	t.Helper()
	res, err := v.Sniff(context.Background(), []string{term}, vine.SniffOptions{})
	require.NoError(t, err)
	var ids []string
	for _, h := range res.Results {
		ids = append(ids, h.ID)
	}
	return ids
}

// TestAdoptDescribesImages: with a describer bound, an image with text
// becomes a media node whose body sniff finds by a word of that text;
// audio keeps the stub, and nothing fell back.
func TestAdoptDescribesImages(t *testing.T) {
	v := newForest(t)
	src := writeTree(t, map[string]string{"media/song.mp3": "ID3"})
	writeFile(t, src, "media/rota.png", slideBytes)
	m := describing(slideDescription)

	rep, err := New(v, &Options{Converters: []Converter{NewMediaDescriber(m, nil)}}).Adopt(context.Background(), src, "")
	require.NoError(t, err)
	assert.Empty(t, rep.Errors)
	assert.ElementsMatch(t, []string{"media/rota", "media/song"}, rep.Planted)
	assert.Equal(t, int32(1), m.calls.Load(), "audio is not sent to the vision model")
	assert.Equal(t, "image/png", m.got.MIME)

	rota := node(t, v, "media/rota")
	assert.Equal(t, "media", rota.Type())
	assert.Equal(t, "# rota\n\n"+slideDescription+"\n", rota.Body)
	assert.Equal(t, []string{"media/rota"}, sniffIDs(t, v, "kelpwarden"))
	assert.Contains(t, node(t, v, "media/song").Body, MediaStubSentinel)
	validate(t, v)
}

// TestAdoptFallsThroughToTheStub: an oversized image and a failing model
// each leave the stub body and an errors line naming the describer.
func TestAdoptFallsThroughToTheStub(t *testing.T) {
	for name, tc := range map[string]struct {
		m    *visionModel
		size int
		want string
	}{
		"oversized":      {describing(slideDescription), MaxDescribedImage + 1, "over the describer's limit"},
		"failing server": {&visionModel{err: errors.New("502 Bad Gateway")}, len(slideBytes), "the vision model failed: 502 Bad Gateway"},
	} {
		t.Run(name, func(t *testing.T) {
			v := newForest(t)
			src := t.TempDir()
			data := slideBytes
			if tc.size > len(data) {
				data = make([]byte, tc.size)
			}
			writeFile(t, src, "rota.png", data)
			rep, err := New(v, &Options{Converters: []Converter{NewMediaDescriber(tc.m, nil)}}).Adopt(context.Background(), src, "")
			require.NoError(t, err)
			assert.Equal(t, []string{"rota"}, rep.Planted, "a fallback still plants")
			require.Len(t, rep.Errors, 1)
			assert.True(t, strings.HasPrefix(rep.Errors[0], "rota.png: describer failed, falling back: "), rep.Errors[0])
			assert.Contains(t, rep.Errors[0], tc.want)
			assert.Contains(t, node(t, v, "rota").Body, MediaStubSentinel)
			assert.Empty(t, sniffIDs(t, v, "kelpwarden"))
		})
	}
}

// TestFormatsNamesTheDescriber: the spec's list form, in extension order,
// says via whom each extension is claimed once a vision model is bound.
func TestFormatsNamesTheDescriber(t *testing.T) {
	list := Formats(map[string]string{".png": "png2md {input}"}, []Converter{NewMediaDescriber(describing("x"), nil)})
	via := map[string]string{}
	for i, f := range list {
		if i > 0 {
			assert.Less(t, list[i-1].Extension, f.Extension, "extension order")
		}
		via[f.Extension] = f.Via
	}
	assert.Equal(t, SupportedFormats(map[string]string{".png": "png2md {input}"},
		[]Converter{NewMediaDescriber(describing("x"), nil)}), via, "the same answer as SupportedFormats")
	assert.Equal(t, "hook", via[".png"])
	assert.Equal(t, "describer", via[".webp"])
	assert.Equal(t, "builtin", via[".flac"])
}
