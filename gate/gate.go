// SPDX-License-Identifier: Apache-2.0

// Package gate applies a file patch written by a model only when the
// whole stream arrived intact: a model's output is whole or it is nothing.
//
// A patch is a frame of UTF-8 text:
//
//	PATH notes/seed.txt
//	seed
//	plus one line
//	END_PATCH
//
// The first line names one file relative to the root, the last line is the
// sentinel, and everything between is the file's new content. The stream
// is buffered whole before it is classified, the root's tree hash is taken
// before classification, and nothing is written unless the frame passes
// every check. Each outcome carries a stable exit code:
//
//	0 one allowed file was replaced
//	2 the sentinel line is missing, or the read timed out
//	3 the header line is unusable, or the stream holds more than one frame
//	4 the requested path is forbidden, or the write was refused
//	5 the body exceeds the line limit
//	6 a failure changed the tree
//
// A stream is one frame: an END_PATCH line before the last line (a second
// frame, or a body line that reads as the sentinel) is refused with 3,
// never written as text. The read is bounded twice: a stream silent for
// the idle limit, or still arriving at the total limit, is abandoned
// with 2, so a drip of one byte a second cannot hold the gate open.
//
// A refused frame is proven harmless by hashing the tree again: when the
// hash moved, the outcome is 6 whatever went wrong first.
package gate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"
)

// Class is the classification of one patch attempt.
type Class string

// Classifications, in the order the checks run.
const (
	// Replaced: one allowed file was written (exit 0).
	Replaced Class = "replaced"
	// MissingSentinel: the stream did not end with the END_PATCH line, or
	// it broke off before it arrived (exit 2).
	MissingSentinel Class = "sentinel_missing"
	// TimedOut: the read waited past its limit (exit 2).
	TimedOut Class = "timeout"
	// BadHeader: the first line is not "PATH <path>", or the stream is not
	// UTF-8 text (exit 3).
	BadHeader Class = "bad_header"
	// BadFrame: the stream is not one frame: an END_PATCH line comes
	// before the last line (exit 3).
	BadFrame Class = "bad_frame"
	// Forbidden: the path is absolute, escapes the root, passes through a
	// symlink, or names a forbidden file (exit 4).
	Forbidden Class = "forbidden_path"
	// Refused: the frame was sound but the writer refused it, for example
	// an engine validation of a node; the tree is unchanged (exit 4).
	Refused Class = "write_refused"
	// TooLong: the body exceeds the line limit, or the stream the byte
	// limit (exit 5).
	TooLong Class = "body_too_long"
	// Dirty: a failure changed the tree (exit 6).
	Dirty Class = "dirty_failure"
)

// ExitCode is the stable process exit code of c. Unknown classes map to
// 6: a class nobody checked must not read as success.
func (c Class) ExitCode() int {
	switch c {
	case Replaced:
		return 0
	case MissingSentinel, TimedOut:
		return 2
	case BadHeader, BadFrame:
		return 3
	case Forbidden, Refused:
		return 4
	case TooLong:
		return 5
	}
	return 6
}

// Defaults.
const (
	// DefaultMaxLines is the body line limit of the spike contract.
	DefaultMaxLines = 40
	// DefaultIdleTimeout abandons a stream silent this long with exit 2.
	DefaultIdleTimeout = 20 * time.Second
	// DefaultTotalTimeout abandons a stream still arriving this long after
	// the read began, with exit 2: the seed's twenty-second read limit,
	// started when the stream opens. While it is not raised above the idle
	// limit, it is the one that fires.
	DefaultTotalTimeout = 20 * time.Second
	// DefaultMaxBytes bounds a buffered stream; a frame of 40 lines has no
	// business being larger.
	DefaultMaxBytes = 1 << 20
)

// Result is the outcome of one patch attempt.
type Result struct {
	Class Class `json:"classification"`
	Code  int   `json:"exit"`
	// Path is the declared relative path, when the header was usable.
	Path string `json:"path,omitempty"`
	// Lines is the number of body lines, when the frame was parsed.
	Lines int `json:"lines"`
	// Before and After are the tree hashes taken before classification
	// and after the attempt.
	Before string `json:"before"`
	After  string `json:"after"`
	// Reason says in one line why the frame was refused; empty on success.
	Reason string `json:"reason,omitempty"`
	// Err is the refusal or failure behind a non-zero code; it is a
	// *Refusal for shape checks and the writer's own error for Refused.
	Err error `json:"-"`
}

// OK reports whether the patch was applied.
func (r *Result) OK() bool { return r.Class == Replaced }

// Options tune a gate. The zero value is the spike contract: 40 body
// lines, a 20 s read limit (idle and total), the built-in forbidden
// names, and an atomic file replace under the root.
type Options struct {
	// MaxLines is the body line limit; 0 means DefaultMaxLines.
	MaxLines int
	// IdleTimeout abandons a stream silent this long; 0 means
	// DefaultIdleTimeout.
	IdleTimeout time.Duration
	// TotalTimeout abandons a stream still arriving this long after
	// ApplyStream began reading, however steadily it drips; 0 means
	// DefaultTotalTimeout. The context's deadline bounds it as well.
	TotalTimeout time.Duration
	// MaxBytes bounds the buffered stream; 0 means DefaultMaxBytes.
	MaxBytes int64
	// Forbidden adds names to the built-in forbidden set, in the same
	// notation (see ForbiddenNames).
	Forbidden []string
	// Allow, when set, is asked about every path that passed the built-in
	// checks; an error forbids the path (exit 4) before anything is
	// written. It sees the cleaned, slash-separated relative path.
	Allow func(rel string) error
	// SkipHash names top-level entries left out of the tree hash besides
	// .git, for state the writer may legitimately touch on any outcome,
	// such as a forest's _derived catalog and its lock card.
	SkipHash []string
	// Writer replaces the file; nil means an atomic replace under the
	// root (temporary file in the same directory, then rename).
	Writer Writer
}

func (o *Options) withDefaults() Options {
	var opt Options
	if o != nil {
		opt = *o
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = DefaultMaxLines
	}
	if opt.IdleTimeout <= 0 {
		opt.IdleTimeout = DefaultIdleTimeout
	}
	if opt.TotalTimeout <= 0 {
		opt.TotalTimeout = DefaultTotalTimeout
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = DefaultMaxBytes
	}
	return opt
}

// Writer writes one classified frame. Replace must either write the file
// or leave the tree as it found it; the gate hashes the tree after a
// failure and reports 6 when it did not.
type Writer interface {
	Replace(ctx context.Context, root, rel string, content []byte) error
}

// Source produces one whole frame, or an error when it could not: a
// buffered stdin, a saved draft, a model client that reads its stream to
// the end. Errors that report Timeout() true, ErrIdleTimeout,
// ErrTotalTimeout and an expired context classify as TimedOut; ErrTooLarge as TooLong; any other
// error as MissingSentinel, because the frame never arrived whole.
type Source func(ctx context.Context) ([]byte, error)

// ApplyStream reads one frame from r to the end, within the idle, total
// and byte limits, and applies it under root. The total limit bounds the
// read only; the write that follows has ctx alone.
func ApplyStream(ctx context.Context, root string, r io.Reader, opts *Options) (*Result, error) {
	opt := opts.withDefaults()
	return Run(ctx, root, func(ctx context.Context) ([]byte, error) {
		cause := fmt.Errorf("%w (%s)", ErrTotalTimeout, opt.TotalTimeout)
		ctx, cancel := context.WithTimeoutCause(ctx, opt.TotalTimeout, cause)
		defer cancel()
		return ReadAll(ctx, r, opt.IdleTimeout, opt.MaxBytes)
	}, &opt)
}

// Apply applies one already buffered frame under root.
func Apply(ctx context.Context, root string, frame []byte, opts *Options) (*Result, error) {
	return Run(ctx, root, func(context.Context) ([]byte, error) { return frame, nil }, opts)
}

// Run hashes the tree under root, takes one frame from src, classifies it
// and writes it only when every check passed. The error is non-nil only
// when the gate could not start (the root cannot be hashed); every
// outcome after that, failures included, is a Result.
func Run(ctx context.Context, root string, src Source, opts *Options) (*Result, error) {
	opt := opts.withDefaults()
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("gate: root: %w", err)
	}
	before, err := TreeHash(root, opt.SkipHash...)
	if err != nil {
		return nil, fmt.Errorf("gate: hash the tree before the patch: %w", err)
	}
	res := &Result{Before: before}
	res.attempt(ctx, root, src, opt)
	return res.settle(root, opt), nil
}

// attempt runs the checks in the decision table's order and writes only
// when all of them passed.
func (r *Result) attempt(ctx context.Context, root string, src Source, opt Options) {
	data, err := src(ctx)
	if err != nil {
		r.refuse(sourceRefusal(err))
		return
	}
	frame, err := Classify(data, &opt)
	r.Path, r.Lines = frame.Path, frame.Lines
	if err == nil {
		err = checkOnDisk(root, frame.Path)
	}
	if err != nil {
		r.refuse(err)
		return
	}
	w := opt.Writer
	if w == nil {
		w = FileWriter{}
	}
	switch err := w.Replace(ctx, root, frame.Path, frame.Body); {
	case errors.Is(err, context.DeadlineExceeded):
		r.refuse(sourceRefusal(err)) // the client's time ran out: 2, as a timed-out read
	case err != nil:
		r.refuse(&Refusal{Class: Refused, Reason: "write refused: " + err.Error(), Err: err})
	default:
		r.Class = Replaced
	}
}

// refuse records a refusal; every check returns a *Refusal.
func (r *Result) refuse(err error) {
	var ref *Refusal
	if !errors.As(err, &ref) {
		ref = &Refusal{Class: MissingSentinel, Reason: err.Error(), Err: err}
	}
	r.Class, r.Reason, r.Err = ref.Class, ref.Reason, ref
}

// settle takes the after hash and turns a failure that moved it into
// Dirty. A hash that cannot be taken after a failure is presumed moved:
// an unproven tree is a dirty one.
func (r *Result) settle(root string, opt Options) *Result {
	after, err := TreeHash(root, opt.SkipHash...)
	switch {
	case err != nil && r.Class != Replaced:
		r.markDirty(fmt.Errorf("tree hash after the failure: %w", err))
	case err != nil:
		r.After = ""
	default:
		r.After = after
		if r.Class != Replaced && after != r.Before {
			r.markDirty(nil)
		}
	}
	r.Code = r.Class.ExitCode()
	return r
}

func (r *Result) markDirty(cause error) {
	first := r.Reason
	r.Class = Dirty
	r.Reason = "the tree changed during a failed patch (" + first + ")"
	r.Err = errors.Join(&Refusal{Class: Dirty, Reason: r.Reason}, r.Err, cause)
}

// sourceRefusal classifies an error of the frame source.
func sourceRefusal(err error) *Refusal {
	var timeout interface{ Timeout() bool }
	switch {
	case errors.Is(err, ErrIdleTimeout), errors.Is(err, ErrTotalTimeout), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &timeout) && timeout.Timeout():
		return &Refusal{Class: TimedOut, Reason: "read timed out before the frame arrived: " + err.Error(), Err: err}
	case errors.Is(err, ErrTooLarge):
		return &Refusal{Class: TooLong, Reason: err.Error(), Err: err}
	}
	return &Refusal{Class: MissingSentinel, Reason: "the stream broke off before END_PATCH: " + err.Error(), Err: err}
}

// Refusal is a frame the gate would not write, with its classification.
// Inspect it with errors.As.
type Refusal struct {
	Class  Class
	Reason string
	Err    error // the underlying cause, if any
}

// Error reads "gate: <class>: <reason>".
func (e *Refusal) Error() string { return "gate: " + string(e.Class) + ": " + e.Reason }

// Unwrap returns the underlying cause.
func (e *Refusal) Unwrap() error { return e.Err }
