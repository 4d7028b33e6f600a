// SPDX-License-Identifier: Apache-2.0

package llamacpp_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/adapters/llamacpp/llamacpptest"
)

func TestTranscribe(t *testing.T) {
	srv := llamacpptest.NewServer(llamacpptest.Reply("unused"))
	defer srv.Close()
	c, err := llamacpp.New(srv.URL+"/v1", "whisper-small")
	require.NoError(t, err)
	ctx := context.Background()

	cases := []struct {
		name, file string
		audio      []byte
		want, err  string
	}{
		{name: "heard", file: "dir/memo.wav", audio: []byte("RIFF tide memo\nrest"), want: "whisper-small heard memo.wav (19 bytes): RIFF tide memo"},
		{name: "empty audio", file: "x.mp3", audio: nil, want: "whisper-small heard x.mp3 (0 bytes): "},
		{name: "over the limit", file: "big.wav", audio: make([]byte, llamacpp.MaxAudioBytes+1), err: "audio over"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.Transcribe(ctx, tc.file, bytes.NewReader(tc.audio), llamacpp.TranscribeOptions{Language: "en"})
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got.Text)
		})
	}
}

func TestTranscribeWithoutTheRouteIsAnHTTPError(t *testing.T) {
	srv := llamacpptest.NewServer(llamacpptest.Reply("unused"))
	defer srv.Close()
	c, err := llamacpp.New(srv.URL+"/v1/chat", "m") // no transcription route there
	require.NoError(t, err)
	_, err = c.Transcribe(context.Background(), "a.wav", strings.NewReader("x"), llamacpp.TranscribeOptions{})
	var he *llamacpp.HTTPError
	require.ErrorAs(t, err, &he)
	assert.Equal(t, 404, he.StatusCode)
}
