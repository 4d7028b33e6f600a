//go:build !race

package vine_test

const raceDetector = false
