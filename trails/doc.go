// SPDX-License-Identifier: Apache-2.0

// Package trails is the forest's pheromone and telemetry, Part D of spec
// 05 (telemetry and pheromone): the heat store in _derived/trails.db, one
// trace event per primitive call in _derived/traces/<session>.jsonl, and
// the session close that turns a successful hunt into heat on its winning
// trail.
//
// Reads never write heat: only a session close, a fortified shortcut, an
// answer's whisper and a transplant's re-keying do. Everything here is
// derived and disposable: losing it loses memory and breaks nothing.
//
// Three names meet here on purpose. The specification calls the mechanism
// pheromone; heat is its value, the number ranking multiplies by
// (score × (1 + α·heat)) and the name every API uses ([Store.Heat],
// vine.HeatSource); trails is what a hunt leaves and what the store is
// called on disk, so the package takes that name.
//
// A [Store] is the heat table; [Measure] turns a session's trace into its
// metrics, and [Tracer] appends the trace.
//
// Heat may also carry the questions of the hunt that laid it (issue 34):
// [Store.DepositTopic] lays it on a [Topic] as well as on the nodes, and
// [Store.HeatFor] reads it per node or conditioned on the current
// question as the forest's [HeatMode] says. The topic tables are
// additive, created by the first write that needs them, so a trails.db
// written by the original opens and reads unchanged.
package trails
