// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBodyHashIsSHA256Hex(t *testing.T) {
	for _, n := range []int{0, 1, 8<<10 - 1, 8 << 10, 8<<10 + 1, 3*8<<10 + 17, 450 << 10} {
		body := strings.Repeat("- [[g/page]] — Maré alta.\n", n/26+1)[:n]
		sum := sha256.Sum256([]byte(body))
		assert.Equal(t, hex.EncodeToString(sum[:]), BodyHash(body), "body of %d bytes", n)
	}
	assert.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", BodyHash(""))
}

func BenchmarkBodyHash(b *testing.B) {
	body := strings.Repeat("- [[g/git-log]] — Show commit logs; a summary of sixty tokens or so.\n", 6000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		BodyHash(body)
	}
}
