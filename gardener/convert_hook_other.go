// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package gardener

import "os/exec"

// killGroup leaves the default cancellation (kill the process) in place
// where process groups are not available.
func killGroup(cmd *exec.Cmd) {}
