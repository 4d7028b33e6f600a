// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"crypto/sha256"
	"encoding/hex"
)

// BodyHash is the normative body hash (C.6.1 §2.2): the SHA-256 of a
// node's body as sniff scans it, in lower-case hex. Records carry it in
// [Record.BodyHash], and facts derived from a body (the sniff memo, the
// fold cache) are kept under it.
//
// The body is hashed through a small buffer rather than converted to a
// byte slice whole: a folder's index is hashed on every write into the
// folder, and the copy of a 450 KB index was as much garbage per write as
// everything else the write allocates.
func BodyHash(body string) string {
	h := sha256.New()
	var buf [8 << 10]byte
	for len(body) > 0 {
		n := copy(buf[:], body)
		h.Write(buf[:n])
		body = body[n:]
	}
	return hex.EncodeToString(h.Sum(buf[:0]))
}
