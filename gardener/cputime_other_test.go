// SPDX-License-Identifier: Apache-2.0

//go:build !unix

package gardener

import "time"

// cpuTime is not measured here; the benchmark then reports no CPU rate.
func cpuTime() time.Duration { return 0 }
