// SPDX-License-Identifier: Apache-2.0

package registry

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
	"strings"

	"golang.org/x/crypto/scrypt"
)

// The password KDF (decision 09 §18.1): scrypt with the reference's
// parameters, so a registry imported from it verifies. Rows written here
// carry their parameters ("scrypt$N$r$p$<hex>") so they can be raised
// later; a bare hex hash means these.
const (
	scryptN   = 1 << 14
	scryptR   = 8
	scryptP   = 1
	scryptLen = 32
	saltLen   = 16
)

// MinPasswordLen is the shortest password accepted, for everyone
// (decision 09 §18.6).
const MinPasswordLen = 12

// deriveKey is the KDF every hash and every check runs through; a
// variable so a test can count derivations instead of timing them.
var deriveKey = scrypt.Key

// hashPassword returns a fresh salt (hex) and the encoded hash of pw.
func hashPassword(pw string) (salt, hash string, err error) {
	var b [saltLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	sum, err := deriveKey([]byte(pw), b[:], scryptN, scryptR, scryptP, scryptLen)
	if err != nil {
		return "", "", err
	}
	return hex.EncodeToString(b[:]), "scrypt$" + strconv.Itoa(scryptN) + "$" + strconv.Itoa(scryptR) + "$" +
		strconv.Itoa(scryptP) + "$" + hex.EncodeToString(sum), nil
}

// kdf is one stored hash, decoded.
type kdf struct {
	n, r, p int
	want    []byte
}

// decodeHash reads a stored hash: "scrypt$N$r$p$<hex>", or bare hex for
// the reference's parameters. Parameters beyond sane bounds are refused,
// so a crafted file cannot make each login cost a gigabyte.
func decodeHash(s string) (kdf, bool) {
	k := kdf{n: scryptN, r: scryptR, p: scryptP}
	if strings.HasPrefix(s, "scrypt$") {
		f := strings.Split(s, "$")
		if len(f) != 5 {
			return kdf{}, false
		}
		var err [3]error
		k.n, err[0] = strconv.Atoi(f[1])
		k.r, err[1] = strconv.Atoi(f[2])
		k.p, err[2] = strconv.Atoi(f[3])
		if err[0] != nil || err[1] != nil || err[2] != nil {
			return kdf{}, false
		}
		s = f[4]
	}
	want, err := hex.DecodeString(s)
	ok := err == nil && len(want) >= 16 && len(want) <= 64 &&
		k.n > 1 && k.n <= 1<<20 && k.n&(k.n-1) == 0 && k.r >= 1 && k.r <= 32 && k.p >= 1 && k.p <= 16
	k.want = want
	return k, ok
}

// dummy stands in for a missing or unreadable hash, so an unknown user,
// one without a password and a wrong password cost the same work.
var dummy = kdf{n: scryptN, r: scryptR, p: scryptP, want: make([]byte, scryptLen)}

// checkPassword reports whether pw matches the stored salt and hash in
// constant time. It always derives a key, even when there is nothing to
// compare against, and answers false then.
func checkPassword(pw, saltHex, hash string) bool {
	k, ok := decodeHash(hash)
	salt, err := hex.DecodeString(saltHex)
	if !ok || err != nil || hash == "" {
		k, ok, salt = dummy, false, make([]byte, saltLen)
	}
	got, err := deriveKey([]byte(pw), salt, k.n, k.r, k.p, len(k.want))
	if err != nil {
		return false
	}
	return subtle.ConstantTimeCompare(got, k.want) == 1 && ok
}
