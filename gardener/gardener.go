// Package gardener ingests document trees into a forest (Part G): it
// converts each source file, curates a passport for it, and plants it
// through the audited write path, one document per commit.
//
// Formats are pluggable: implement Converter and register it with
// RegisterConverter, or name a command in _meta/gardener.yaml. Curation
// is pluggable too: a Curator writes summaries, tags, aliases and edge
// proposals; without one the deterministic default runs.
package gardener
