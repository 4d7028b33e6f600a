//go:build !race

package vine_test

const raceEnabled = false
