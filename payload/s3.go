// SPDX-License-Identifier: Apache-2.0

package payload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// EnvS3Endpoint names the environment variable that points s3:// payloads
// at an S3-compatible store (MinIO, R2, ...) instead of AWS, as a URL
// ("http://127.0.0.1:9000") or a bare host[:port] (then HTTPS). The
// command (adapters/cli/vine) reads it into [S3Config.Endpoint]; this
// package never reads the environment.
const EnvS3Endpoint = "MONKEYLLM_S3_ENDPOINT"

// awsEndpoint is where s3:// goes without an override.
const awsEndpoint = "s3.amazonaws.com"

// S3Config says how to reach an S3-compatible store.
type S3Config struct {
	// Endpoint is a URL ("https://host", "http://host:port") or a bare
	// host[:port], which means HTTPS. Empty means AWS S3. A custom endpoint
	// is addressed path-style (https://host/bucket/key), which MinIO needs
	// and R2 accepts.
	Endpoint string
	// Region is the signing region; empty lets the client find it.
	Region string
	// AccessKey, SecretKey and SessionToken are static credentials. When
	// AccessKey is empty the standard AWS chain is used: the AWS_*
	// environment variables, the shared credentials file, then the
	// instance or container role. With none of them, requests go
	// unsigned (public buckets).
	AccessKey, SecretKey, SessionToken string
	// Transport, when set, carries the requests (tests, proxies).
	Transport http.RoundTripper
}

// S3ConfigFromEnv reads the endpoint from MONKEYLLM_S3_ENDPOINT and the
// region from AWS_REGION or AWS_DEFAULT_REGION; credentials come from the
// standard AWS chain.
//
// Deprecated: configuration reaches the library through options, and only
// the command reads the environment. Build an [S3Config] and pass it to
// [NewS3Fetcher]; adapters/cli/vine reads these variables for its users.
// Nothing in this module calls it.
func S3ConfigFromEnv() S3Config {
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	return S3Config{Endpoint: os.Getenv(EnvS3Endpoint), Region: region}
}

// S3Fetcher serves s3://bucket/key URIs. The key is everything after the
// bucket's slash, taken literally (no percent-decoding), as the AWS tools
// read such URIs.
//
// The zero value reaches AWS S3 with the zero [S3Config] (the region found
// by the client, credentials from the standard AWS chain); [NewS3Fetcher]
// takes an explicit one. The client is built on first use, so a forest
// without remote payloads never makes one.
type S3Fetcher struct {
	cfg S3Config

	once   sync.Once
	client *minio.Client
	err    error
}

// NewS3Fetcher returns a fetcher for the store cfg describes. A malformed
// endpoint is refused here; no request is made until the first Fetch.
func NewS3Fetcher(cfg S3Config) (*S3Fetcher, error) {
	if _, _, err := s3Endpoint(cfg.Endpoint); err != nil {
		return nil, err
	}
	return &S3Fetcher{cfg: cfg}, nil
}

// Fetch copies the object uri names into w. A missing bucket or key
// answers an error wrapping fs.ErrNotExist.
func (f *S3Fetcher) Fetch(ctx context.Context, uri string, w io.Writer) error {
	bucket, key, err := splitS3(uri)
	if err != nil {
		return err
	}
	f.once.Do(f.connect)
	if f.err != nil {
		return f.err
	}
	obj, err := f.client.GetObject(ctx, bucket, key, minio.GetObjectOptions{})
	if err != nil {
		return s3Error(uri, err)
	}
	defer obj.Close()
	if _, err := io.Copy(ctxWriter{ctx, w}, obj); err != nil {
		return s3Error(uri, err)
	}
	return nil
}

func (f *S3Fetcher) connect() { f.client, f.err = newS3Client(f.cfg) }

// splitS3 reads s3://bucket/key.
func splitS3(uri string) (bucket, key string, err error) {
	rest, ok := strings.CutPrefix(uri, "s3://")
	if !ok {
		return "", "", &SchemeError{URI: uri, Scheme: Scheme(uri), Served: []string{"s3"}}
	}
	bucket, key, _ = strings.Cut(rest, "/")
	if bucket == "" || key == "" || strings.HasSuffix(key, "/") {
		return "", "", fmt.Errorf("payload: %s is not s3://bucket/key: %w", uri, fs.ErrNotExist)
	}
	return bucket, key, nil
}

// s3Error maps the store's "no such bucket/key" onto fs.ErrNotExist.
func s3Error(uri string, err error) error {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, minio.NoSuchBucket, "NotFound":
		return fmt.Errorf("payload: %s: %w", uri, fs.ErrNotExist)
	}
	var resp minio.ErrorResponse
	if errors.As(err, &resp) && resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("payload: %s: %w", uri, fs.ErrNotExist)
	}
	return fmt.Errorf("payload: fetch %s: %w", uri, err)
}

func newS3Client(cfg S3Config) (*minio.Client, error) {
	host, secure, err := s3Endpoint(cfg.Endpoint)
	if err != nil {
		return nil, err
	}
	opts := &minio.Options{Secure: secure, Region: cfg.Region, Transport: cfg.Transport, Creds: s3Credentials(cfg)}
	if cfg.Endpoint != "" {
		opts.BucketLookup = minio.BucketLookupPath
	}
	c, err := minio.New(host, opts)
	if err != nil {
		return nil, fmt.Errorf("payload: s3 client for %s: %w", host, err)
	}
	return c, nil
}

// s3Endpoint splits an endpoint setting into host[:port] and whether it
// uses TLS.
func s3Endpoint(endpoint string) (host string, secure bool, err error) {
	if endpoint == "" {
		return awsEndpoint, true, nil
	}
	if !strings.Contains(endpoint, "://") {
		return endpoint, true, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || strings.Trim(u.Path, "/") != "" {
		return "", false, fmt.Errorf("payload: S3 endpoint %q (%s) is not http(s)://host[:port] or host[:port]", endpoint, EnvS3Endpoint)
	}
	return u.Host, u.Scheme == "https", nil
}

func s3Credentials(cfg S3Config) *credentials.Credentials {
	if cfg.AccessKey != "" {
		return credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken)
	}
	return credentials.NewChainCredentials([]credentials.Provider{
		&credentials.EnvAWS{},
		&credentials.FileAWSCredentials{},
		&credentials.IAM{},
	})
}
