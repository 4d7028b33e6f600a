// SPDX-License-Identifier: Apache-2.0

package main

import (
	"cmp"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v3"

	"github.com/monkeyllm/vine/adapters/llamacpp"
	"github.com/monkeyllm/vine/gardener"
)

// The environment of the vision binding (adopt, sync), read here and
// nowhere in the library: MONKEYLLM_VISION_ENDPOINT names an
// OpenAI-compatible multimodal chat server when --vision-endpoint is
// absent, MONKEYLLM_VISION_MODEL its model when --vision-model is,
// MONKEYLLM_VISION_API_KEY the bearer token sent to it.
const (
	visionEndpointEnv = "MONKEYLLM_VISION_ENDPOINT"
	visionModelEnv    = "MONKEYLLM_VISION_MODEL"
	visionAPIKeyEnv   = "MONKEYLLM_VISION_API_KEY"
)

// visionFlags bind a vision model to an ingest (G.5.1): images are then
// described, their legible text transcribed, instead of stubbed.
func visionFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "vision-endpoint", Usage: "describe images with an OpenAI-compatible multimodal chat server at `URL`, e.g. http://localhost:8080/v1 (default $" + visionEndpointEnv + "; none: images get the stub)"},
		&cli.StringFlag{Name: "vision-model", Usage: "the vision model `NAME` at --vision-endpoint (default $" + visionModelEnv + ")"},
	}
}

// visionOf reads visionFlags into the converters to inject: the media
// describer over the named server, or none when neither the flags nor
// the environment name an endpoint.
func visionOf(c *cli.Command) ([]gardener.Converter, error) {
	endpoint := cmp.Or(strings.TrimSpace(c.String("vision-endpoint")), strings.TrimSpace(os.Getenv(visionEndpointEnv)))
	name := cmp.Or(strings.TrimSpace(c.String("vision-model")), strings.TrimSpace(os.Getenv(visionModelEnv)))
	switch {
	case endpoint == "" && c.String("vision-model") != "":
		return nil, fmt.Errorf("--vision-model needs --vision-endpoint URL (or %s)", visionEndpointEnv)
	case endpoint == "":
		return nil, nil
	case name == "":
		return nil, fmt.Errorf("--vision-endpoint needs --vision-model NAME (or %s)", visionModelEnv)
	}
	var opts []llamacpp.Option
	if key := os.Getenv(visionAPIKeyEnv); key != "" {
		opts = append(opts, llamacpp.WithAPIKey(key))
	}
	client, err := llamacpp.New(endpoint, name, opts...)
	if err != nil {
		return nil, fmt.Errorf("--vision-endpoint: %w", err)
	}
	return []gardener.Converter{gardener.NewMediaDescriber(client, nil)}, nil
}
