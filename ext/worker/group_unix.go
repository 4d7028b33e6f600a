// SPDX-License-Identifier: Apache-2.0

//go:build unix

package worker

import (
	"os/exec"
	"syscall"
)

// groupKill starts the child in a process group of its own, so killing
// it takes whatever it spawned too.
func groupKill(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
