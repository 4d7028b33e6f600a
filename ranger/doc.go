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
// Thresholds come from _meta/ranger.yaml (see Config); the clock is
// injectable for tests that move time.
package ranger
