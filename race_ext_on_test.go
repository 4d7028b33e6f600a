// SPDX-License-Identifier: Apache-2.0

//go:build race

package vine_test

// raceDetector scales the crash test down under -race, where every write
// costs several times more; CI runs the full count without it.
const raceDetector = true
