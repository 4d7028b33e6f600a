//go:build !race

package vine

const raceEnabled = false
