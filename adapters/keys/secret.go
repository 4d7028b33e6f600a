// SPDX-License-Identifier: Apache-2.0

package keys

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	"github.com/monkeyllm/vine"
)

// SecretPrefix starts every secret, so a leaked one is recognisable in
// logs and by secret scanners.
const SecretPrefix = "mk_"

// prefixLen is how much of a secret the file keeps to recognise it: the
// marker and six characters, 36 of the 256 random bits.
const prefixLen = 9

// Expiry bounds of a new key (spec 08 §6): absent or zero means the
// default; beyond the maximum is refused, never clamped.
const (
	DefaultExpiry = 90 * 24 * time.Hour
	MaxExpiry     = 365 * 24 * time.Hour
)

// NewSecret returns a fresh secret: SecretPrefix and 43 base64url
// characters carrying 256 random bits.
func NewSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return SecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Digest is the lowercase hex SHA-256 of a secret, the only form in which
// a keys file holds it. A salted slow hash would add nothing for 256
// random bits; it matters for passwords, which keys are not.
func Digest(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// NewKeyOptions configure NewKey.
type NewKeyOptions struct {
	// Principal is who the key authenticates; empty means the label.
	Principal string
	// Mask, when non-nil, narrows every grant (see Principal.Mask).
	Mask []vine.Capability
	// Expires is the key's lifetime: zero means DefaultExpiry; more than
	// MaxExpiry or negative is refused.
	Expires time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// NewKey makes a key: the secret, to show once, and the entry that
// stores only its digest.
func NewKey(label string, grants map[string]vine.Policy, opt NewKeyOptions) (secret string, k Key, err error) {
	life := opt.Expires
	switch {
	case life == 0:
		life = DefaultExpiry
	case life < 0 || life > MaxExpiry:
		return "", Key{}, fmt.Errorf("expiry %s is out of range: give at most 365d (default 90d); keys never live forever", life)
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	secret, err = NewSecret()
	if err != nil {
		return "", Key{}, err
	}
	t := now().UTC().Truncate(time.Second)
	k = Key{
		Label: label, Principal: opt.Principal, Kind: "api",
		Prefix: secret[:prefixLen], SHA256: Digest(secret),
		Created: t.Format(time.RFC3339), ExpiresAt: t.Add(life).Format(time.RFC3339),
		Caps: opt.Mask, Grants: maps.Clone(grants),
	}
	if err := k.check(); err != nil {
		return "", Key{}, err
	}
	return secret, k, nil
}
