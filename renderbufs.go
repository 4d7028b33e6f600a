// SPDX-License-Identifier: Apache-2.0

package vine

import "sync"

// renderBufs keeps the buffers writes render node files into. A folder's
// index is rewritten whole by every write into the folder, and rendering
// it into a fresh buffer each time (450 KB at 2,000 entries) was a third
// of what such a write allocated: the collector ran that much more often,
// over everything the process holds.
//
// A buffer has one owner at a time: this pool; the txn that rendered a
// file into it, or took it from the recent indexes to restore a file
// (write.go); or the recent index whose file it holds (recentindex.go).
// An owner that lets go of a buffer gives it back here, and never touches
// it again.
var renderBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledRender is the largest buffer renderBufs keeps; an unusually
// large file's buffer is left to the collector.
const maxPooledRender = 4 << 20

// getRender returns an empty buffer from renderBufs.
func getRender() []byte { return (*renderBufs.Get().(*[]byte))[:0] }

// putRender gives buf back to renderBufs; nil is ignored.
func putRender(buf []byte) {
	if buf == nil || cap(buf) > maxPooledRender {
		return
	}
	renderBufs.Put(&buf)
}
