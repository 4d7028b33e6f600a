// SPDX-License-Identifier: Apache-2.0

//go:build unix

package gardener

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used, which a
// benchmark on a busy machine compares more steadily than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
