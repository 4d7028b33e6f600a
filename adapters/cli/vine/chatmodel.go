// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/adapters/llamacpp"
)

// The chat model a curating command binds when its flags name none: the
// env provider of J.10.1 (MONKEYLLM_LLM_ENDPOINT, MONKEYLLM_LLM_API_KEY),
// with MONKEYLLM_LLM_MODEL naming the served model.
const (
	llmEndpointEnv = "MONKEYLLM_LLM_ENDPOINT"
	llmModelEnv    = "MONKEYLLM_LLM_MODEL"
	llmAPIKeyEnv   = "MONKEYLLM_LLM_API_KEY"
)

// chatBinding names one OpenAI-compatible chat server (llama.cpp or any
// other) and the model asked there. serve, station serve and the
// curating commands all make their client here.
type chatBinding struct {
	endpoint, model, apiKey string
}

// bound reports whether an endpoint is named.
func (b chatBinding) bound() bool { return b.endpoint != "" }

// client makes the llama.cpp client of the binding.
func (b chatBinding) client() (*llamacpp.Client, error) {
	var opts []llamacpp.Option
	if b.apiKey != "" {
		opts = append(opts, llamacpp.WithAPIKey(b.apiKey))
	}
	return llamacpp.New(b.endpoint, b.model, opts...)
}

// modelFlags are --model-endpoint and --model for a command that curates;
// the environment fills in what they leave out (chatBindingOf).
func modelFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "model-endpoint", Usage: "curate with an OpenAI-compatible chat server (llama.cpp or any) at `URL` (default: $" + llmEndpointEnv + ")"},
		&cli.StringFlag{Name: "model", Usage: "the model `NAME` at --model-endpoint (default: $" + llmModelEnv + ")"},
	}
}

// chatBindingOf reads modelFlags, the environment filling what they
// leave out. No endpoint anywhere is no binding; an endpoint without a
// model name is an error, since the server is asked for one by name.
func chatBindingOf(c *cli.Command) (chatBinding, error) {
	b := chatBinding{
		endpoint: cmp.Or(strings.TrimSpace(c.String("model-endpoint")), strings.TrimSpace(os.Getenv(llmEndpointEnv))),
		model:    cmp.Or(strings.TrimSpace(c.String("model")), strings.TrimSpace(os.Getenv(llmModelEnv))),
		apiKey:   os.Getenv(llmAPIKeyEnv),
	}
	switch {
	case !b.bound() && c.String("model") != "":
		return b, fmt.Errorf("--model needs --model-endpoint URL (or %s)", llmEndpointEnv)
	case b.bound() && b.model == "":
		return b, fmt.Errorf("--model-endpoint needs --model NAME (or %s)", llmModelEnv)
	}
	return b, nil
}
