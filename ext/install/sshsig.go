// SPDX-License-Identifier: Apache-2.0

package install

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"hash"
	"io"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/ssh"
)

// SSH signatures as git makes them (OpenSSH's PROTOCOL.sshsig): an
// armored blob naming the key, the namespace ("git") and the hash, over
// the tag without its signature. x/crypto has no sshsig package; the
// format is small enough to verify here with x/crypto/ssh.
const (
	sshSigBegin  = "-----BEGIN SSH SIGNATURE-----"
	sshSigEnd    = "-----END SSH SIGNATURE-----"
	sshSigMagic  = "SSHSIG"
	sshSigGitNS  = "git"
	sshSigMaxLen = 64 << 10
)

// sshSigBlob is the signature blob after its magic preamble.
type sshSigBlob struct {
	Version   uint32
	PublicKey []byte
	Namespace string
	Reserved  string
	HashAlg   string
	Signature []byte
}

// sshSigned is what the key signed, after the magic preamble.
type sshSigned struct {
	Namespace string
	Reserved  string
	HashAlg   string
	Hash      []byte
}

// verifySSHTag is the SHA256 fingerprint of the key among keys (lines
// in authorized_keys form) whose SSH signature tag carries, or "".
func verifySSHTag(tag *object.Tag, keys []string) string {
	msg := &plumbing.MemoryObject{}
	if err := tag.EncodeWithoutSignature(msg); err != nil {
		return ""
	}
	r, err := msg.Reader()
	if err != nil {
		return ""
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return ""
	}
	pub, err := verifySSHSig(tag.PGPSignature, data, sshSigGitNS)
	if err != nil {
		return ""
	}
	for _, line := range keys {
		k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err == nil && bytes.Equal(k.Marshal(), pub.Marshal()) {
			return ssh.FingerprintSHA256(k)
		}
	}
	return ""
}

// verifySSHSig checks an armored SSH signature of message in namespace
// and returns the key that made it.
func verifySSHSig(armored string, message []byte, namespace string) (ssh.PublicKey, error) {
	body, ok := strings.CutPrefix(strings.TrimSpace(armored), sshSigBegin)
	if !ok || len(armored) > sshSigMaxLen {
		return nil, errors.New("not an armored SSH signature")
	}
	body, ok = strings.CutSuffix(strings.TrimSpace(body), sshSigEnd)
	if !ok {
		return nil, errors.New("an SSH signature without its end line")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		return nil, err
	}
	rest, ok := bytes.CutPrefix(raw, []byte(sshSigMagic))
	if !ok {
		return nil, errors.New("not an SSHSIG blob")
	}
	var blob sshSigBlob
	if err := ssh.Unmarshal(rest, &blob); err != nil {
		return nil, err
	}
	if blob.Version != 1 || blob.Namespace != namespace {
		return nil, errors.New("an SSH signature of another version or namespace")
	}
	var h hash.Hash
	switch blob.HashAlg {
	case "sha256":
		h = sha256.New()
	case "sha512":
		h = sha512.New()
	default:
		return nil, errors.New("an SSH signature over an unknown hash " + blob.HashAlg)
	}
	h.Write(message)
	pub, err := ssh.ParsePublicKey(blob.PublicKey)
	if err != nil {
		return nil, err
	}
	var sig ssh.Signature
	if err := ssh.Unmarshal(blob.Signature, &sig); err != nil {
		return nil, err
	}
	signed := append([]byte(sshSigMagic), ssh.Marshal(sshSigned{blob.Namespace, blob.Reserved, blob.HashAlg, h.Sum(nil)})...)
	if err := pub.Verify(signed, &sig); err != nil {
		return nil, err
	}
	return pub, nil
}
