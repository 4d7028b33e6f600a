// SPDX-License-Identifier: Apache-2.0

package llamacpp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"path/filepath"
)

// MaxAudioBytes bounds the audio one Transcribe call sends: the 25 MB
// OpenAI-compatible servers accept.
const MaxAudioBytes = 25 << 20

// TranscribeOptions are the optional fields of a transcription request.
type TranscribeOptions struct {
	Language string `json:"language,omitempty"` // ISO-639-1 code; empty lets the model detect it
	Prompt   string `json:"prompt,omitempty"`   // text that guides spelling and style
}

// Transcription is what a speech-to-text model heard.
type Transcription struct {
	Text string `json:"text"`
}

// Transcribe sends audio, a file named name (its extension tells the
// server the format), to the OpenAI-compatible /audio/transcriptions
// route as multipart form data, and returns the text. Audio over
// MaxAudioBytes is refused before anything is sent. Retries, the idle
// limit and the response byte limit are the client's, as for Complete.
func (c *Client) Transcribe(ctx context.Context, name string, audio io.Reader, opt TranscribeOptions) (*Transcription, error) {
	data, err := io.ReadAll(io.LimitReader(audio, MaxAudioBytes+1))
	if err != nil {
		return nil, fmt.Errorf("llamacpp transcribe: read audio: %w", err)
	}
	if len(data) > MaxAudioBytes {
		return nil, fmt.Errorf("llamacpp transcribe: audio over %d bytes", MaxAudioBytes)
	}
	body, contentType, err := transcriptionForm(c.model, filepath.Base(name), data, opt)
	if err != nil {
		return nil, fmt.Errorf("llamacpp transcribe: encode request: %w", err)
	}
	x, err := c.postBody(ctx, "transcribe", "/audio/transcriptions", body, contentType, "application/json")
	if err != nil {
		return nil, err
	}
	defer x.close()
	raw, err := io.ReadAll(x)
	if err != nil {
		return nil, x.readErr(err)
	}
	var out Transcription
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, x.fail(ErrMalformed, "transcription is not {text}: "+err.Error(), nil)
	}
	return &out, nil
}

// transcriptionForm is the multipart body of a transcription request.
func transcriptionForm(model, name string, data []byte, opt TranscribeOptions) ([]byte, string, error) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fields := [][2]string{{"model", model}, {"response_format", "json"}, {"language", opt.Language}, {"prompt", opt.Prompt}}
	for _, f := range fields {
		if f[1] == "" {
			continue
		}
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return nil, "", err
	}
	if _, err := fw.Write(data); err != nil {
		return nil, "", err
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), mw.FormDataContentType(), nil
}
