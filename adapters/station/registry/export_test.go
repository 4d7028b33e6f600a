// SPDX-License-Identifier: Apache-2.0

package registry

// FlushUsage writes the pending last-use stamps now, for tests that read
// them back.
func FlushUsage(r *Registry) { r.usage.flush() }
