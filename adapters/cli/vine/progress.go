// SPDX-License-Identifier: Apache-2.0

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/monkeyllm/vine"
)

// progressBar draws long work on a terminal as a redrawn bar; elsewhere
// (pipes, CI logs) it prints a line at every tenth so logs stay short.
type progressBar struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	lastTen  int
	drawn    bool
	lastDone int
}

func newProgressBar(w io.Writer) *progressBar {
	tty := false
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil {
			tty = fi.Mode()&os.ModeCharDevice != 0
		}
	}
	return &progressBar{w: w, tty: tty, lastTen: -1}
}

func (b *progressBar) update(p vine.Progress) {
	if p.Total <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lastDone = p.Done
	frac := float64(p.Done) / float64(p.Total)
	if b.tty {
		const width = 30
		fill := int(frac * width)
		fmt.Fprintf(b.w, "\r%-8s [%s%s] %d/%d", p.Op, strings.Repeat("#", fill), strings.Repeat(" ", width-fill), p.Done, p.Total)
		b.drawn = true
		return
	}
	if ten := int(frac * 10); ten > b.lastTen {
		b.lastTen = ten
		fmt.Fprintf(b.w, "%s: %d/%d\n", p.Op, p.Done, p.Total)
	}
}

func (b *progressBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
	}
}
