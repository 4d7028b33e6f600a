// Package trails is the forest's pheromone and telemetry (spec Part D):
// the heat store in _derived/trails.db, one trace event per primitive call
// in _derived/traces/<session>.jsonl, and the session close that turns a
// successful hunt into heat on its winning trail.
//
// Reads never write heat: only a session close, a fortified shortcut, an
// answer's whisper and a transplant's re-keying do. Everything here is
// derived and disposable: losing it loses memory and breaks nothing.
package trails
