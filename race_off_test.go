// SPDX-License-Identifier: Apache-2.0

//go:build !race

package vine

const raceEnabled = false
