// SPDX-License-Identifier: Apache-2.0

// Package ranger keeps a forest healthy between uses, Part H of spec 07
// (maintenance): it lets heat evaporate, evicts the remote-payload cache,
// promotes or prunes the links that were only proposals, refreshes the
// master index's Landmarks, reports the forest's health and asks git to
// tidy its objects.
//
// The Ranger is trusted infrastructure with operator authority. Its
// housekeeping (evaporation, eviction, gc) stays in _derived/ and .git/
// and never commits; its node edits (promote, prune, Landmarks) go through
// the engine's audited write path, one .md per commit with the subjects of
// spec 01 (forest format: the git layer). It never creates or deletes a
// node, calls a model, touches a link without a numeric confidence below
// 1.0, or touches a structural link. Health is read-only: it writes
// nothing, not even heat.
//
// A person votes on the links that are only proposals (H.2.1):
// [Ranger.AcceptLink] sets a proposal's confidence to 1.0, out of the
// sweep's reach for good, and [Ranger.RejectLink] removes it, both
// through the same audited rewrite as the sweep, committed as
// "links(accept|reject): <id> <rel>-><target>" with the voter's principal
// trailer when the context carries one. No model may vote: the MCP
// adapter registers no vote tool.
//
// Thresholds come from _meta/ranger.yaml (see Config); the clock is
// injectable for tests that move time.
package ranger
