// SPDX-License-Identifier: Apache-2.0

//go:build race

package gardener

// raceDetector scales the corpus test down under -race, where each commit
// costs several times more; CI runs the full 2,000 without it.
const raceDetector = true
