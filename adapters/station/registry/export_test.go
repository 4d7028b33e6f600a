// SPDX-License-Identifier: Apache-2.0

package registry

// FlushUsage writes the pending last-use stamps now, for tests that read
// them back.
func FlushUsage(r *Registry) { r.usage.flush() }

// Derivations counts the key derivations fn runs. Not safe beside other
// goroutines deriving keys: tests using it run alone.
func Derivations(fn func()) int {
	n := 0
	saved := deriveKey
	deriveKey = func(pw, salt []byte, N, r, p, keyLen int) ([]byte, error) {
		n++
		return saved(pw, salt, N, r, p, keyLen)
	}
	defer func() { deriveKey = saved }()
	fn()
	return n
}
