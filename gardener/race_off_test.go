//go:build !race

package gardener

const raceDetector = false
