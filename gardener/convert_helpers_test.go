// SPDX-License-Identifier: Apache-2.0

package gardener

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/envelope"
)

// writeSource writes a source file under dir and returns its path.
func writeSource(t testing.TB, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// zipParts builds a zip archive from part name → content, in the order
// given.
func zipParts(t testing.TB, parts [][2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, p := range parts {
		w, err := zw.Create(p[0])
		require.NoError(t, err)
		_, err = w.Write([]byte(p[1]))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// requireSchema asserts err is an E_SCHEMA envelope whose message
// contains every fragment.
func requireSchema(t testing.TB, err error, fragments ...string) *envelope.Error {
	t.Helper()
	require.Error(t, err)
	e, ok := err.(*envelope.Error)
	require.Truef(t, ok, "want *envelope.Error, got %T: %v", err, err)
	require.Equal(t, envelope.Schema, e.Code, e.Message)
	for _, f := range fragments {
		require.Contains(t, e.Message, f)
	}
	return e
}

func convertFile(t testing.TB, c Converter, path string) (*Conversion, error) {
	t.Helper()
	return c.Convert(context.Background(), path)
}
