// SPDX-License-Identifier: Apache-2.0

//go:build unix

package gardener

import (
	"os/exec"
	"syscall"
)

// killGroup runs the command in its own process group and makes
// cancellation kill the whole group: a hook is often a shell wrapper, and
// killing only the shell would leave the real converter running.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
