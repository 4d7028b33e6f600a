// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package worker

import "os/exec"

func groupKill(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return cmd.Process.Kill()
}
