// SPDX-License-Identifier: Apache-2.0

package snapshot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/monkeyllm/vine/envelope"
)

// S3Target serves s3://bucket/key URIs on AWS S3 or an S3-compatible
// store (MinIO, R2, ...). Everything it needs comes from its fields: it
// reads no environment and consults no credential chain, so the command
// decides what a snapshot is signed with (adapters/cli/vine reads
// MONKEYLLM_S3_ENDPOINT and the AWS_* variables into it).
type S3Target struct {
	// Endpoint is a URL ("https://host", "http://host:port") or a bare
	// host[:port], which means HTTPS; empty means AWS S3. A custom
	// endpoint is addressed path-style, which MinIO needs and R2 accepts.
	Endpoint string
	// Region is the signing region; empty lets the client find it.
	Region string
	// AccessKey, SecretKey and SessionToken sign the upload; with no
	// AccessKey the request goes unsigned.
	AccessKey, SecretKey, SessionToken string
	// Transport, when set, carries the requests (tests, proxies).
	Transport http.RoundTripper
}

// Put uploads r as the object uri names; the key is everything after the
// bucket's slash, taken literally. The store makes the object appear
// whole or not at all.
func (t S3Target) Put(ctx context.Context, uri string, r io.Reader, size int64) error {
	bucket, key, err := splitS3(uri)
	if err != nil {
		return err
	}
	client, err := t.client()
	if err != nil {
		return err
	}
	_, err = client.PutObject(ctx, bucket, key, ctxReader{ctx, r}, size,
		minio.PutObjectOptions{ContentType: "application/zip"})
	if err != nil {
		return fmt.Errorf("s3 put %s/%s: %w", bucket, key, err)
	}
	return nil
}

// check refuses a malformed URI or endpoint before anything is written.
func (t S3Target) check(uri string) error {
	if _, _, err := splitS3(uri); err != nil {
		return err
	}
	_, _, err := s3Endpoint(t.Endpoint)
	return err
}

func (t S3Target) client() (*minio.Client, error) {
	host, secure, err := s3Endpoint(t.Endpoint)
	if err != nil {
		return nil, err
	}
	creds := credentials.NewStatic("", "", "", credentials.SignatureAnonymous)
	if t.AccessKey != "" {
		creds = credentials.NewStaticV4(t.AccessKey, t.SecretKey, t.SessionToken)
	}
	opts := &minio.Options{Secure: secure, Region: t.Region, Transport: t.Transport, Creds: creds}
	if t.Endpoint != "" {
		opts.BucketLookup = minio.BucketLookupPath
	}
	c, err := minio.New(host, opts)
	if err != nil {
		return nil, fmt.Errorf("snapshot: s3 client for %s: %w", host, err)
	}
	return c, nil
}

// splitS3 reads s3://bucket/key.
func splitS3(uri string) (bucket, key string, err error) {
	rest, _ := strings.CutPrefix(uri, "s3://")
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" || key == "" || strings.HasSuffix(key, "/") {
		return "", "", envelope.New(envelope.Schema, "snapshot: parameter "+toParam+" is not s3://bucket/key: "+uri,
			"name a bucket, and optionally a prefix ending in /: s3://backups/forests/")
	}
	return bucket, key, nil
}

// s3Endpoint splits an endpoint setting into host[:port] and whether it
// uses TLS, as the payload fetcher reads the same setting.
func s3Endpoint(endpoint string) (host string, secure bool, err error) {
	if endpoint == "" {
		return "s3.amazonaws.com", true, nil
	}
	if !strings.Contains(endpoint, "://") {
		return endpoint, true, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || strings.Trim(u.Path, "/") != "" {
		return "", false, envelope.New(envelope.Schema,
			fmt.Sprintf("snapshot: S3 endpoint %q is not http(s)://host[:port] or host[:port]", endpoint),
			"set the store's endpoint (MONKEYLLM_S3_ENDPOINT for the command) to its base URL")
	}
	return u.Host, u.Scheme == "https", nil
}
