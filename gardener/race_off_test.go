// SPDX-License-Identifier: Apache-2.0

//go:build !race

package gardener

const raceDetector = false
