// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"io"
	"os"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/payload"
)

// The engine's packages read no environment: the command reads the
// variables that configure them and passes the values on (see the package
// doc for the list).

// configureFromEnv hands the process-wide engine settings to their
// packages, once per command, so a variable changed between commands of
// one process (the tests) is read anew.
func configureFromEnv() {
	vine.SetHarvestMaxK(os.Getenv(vine.HarvestMaxKEnv))
}

// payloadFetcher is the fetcher of remote payloads for a forest the
// command opens: file:// unconfined, s3:// at the store
// MONKEYLLM_S3_ENDPOINT names (AWS without it), signed for AWS_REGION or
// AWS_DEFAULT_REGION.
func payloadFetcher() payload.Registry {
	reg := payload.DefaultRegistry()
	reg["s3"] = s3Fetcher()
	return reg
}

// s3Fetcher reads the S3 settings. A malformed endpoint fails the fetches
// that need it, not the command: a forest without s3:// payloads never
// notices.
func s3Fetcher() payload.Fetcher {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	f, err := payload.NewS3Fetcher(payload.S3Config{Endpoint: os.Getenv(payload.EnvS3Endpoint), Region: region})
	if err != nil {
		return failedFetcher{err}
	}
	return f
}

// failedFetcher answers every fetch with the error that kept its store
// from being configured.
type failedFetcher struct{ err error }

func (f failedFetcher) Fetch(context.Context, string, io.Writer) error { return f.err }
