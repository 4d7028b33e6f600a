// SPDX-License-Identifier: Apache-2.0

//go:build race

package vine

// raceEnabled relaxes timing assertions under -race, where the wasm
// SQLite runs several times slower; the codes asserted stay the same.
const raceEnabled = true
