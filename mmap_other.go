//go:build !unix

package vine

import "os"

// mapFile reads the file whole where memory mapping is not offered.
func mapFile(path string) ([]byte, func() error, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
