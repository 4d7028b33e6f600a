// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"fmt"
	"hash/fnv"
	"slices"
)

// Query-conditioned heat (issue 34). Node heat is one number per node,
// so the trail one question warmed lifts that node for every other
// question too: the original's paper (§6.2) saw a question answered
// right on its first pass and wrong on every later one, because another
// family of questions kept warming a node beside its decoy. Heat laid
// with the topic of the hunt that laid it, and read back against the
// topic of the current question, lifts a node only for questions that
// share terms with the ones that warmed it.
//
// A topic is the set of buckets its terms hash to, not the terms: the
// derived layer then holds no query text (traces hold none either, by
// Part D), the table is bounded by nodes × buckets whatever the
// vocabulary, and a bucket is a small integer key. With 4096 buckets
// two unrelated terms share one with probability 1/4096; a collision
// lifts a node by one term's share of the heat, never more.

// TopicBuckets is how many buckets a term can hash to.
const TopicBuckets = 4096

// topicMax bounds a topic: a hunt of many questions keeps the buckets of
// its first ones. Derived terms are at most a dozen per question.
const topicMax = 64

// Topic is a question's terms as sorted, distinct buckets in
// [0, TopicBuckets). The zero Topic is "no question": reads fall back to
// unconditioned heat.
type Topic []uint16

// TopicOf hashes terms, compared as given (callers fold case first), to
// their buckets. Empty terms are skipped.
func TopicOf(terms []string) Topic {
	var t Topic
	for _, term := range terms {
		if term == "" {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(term))
		t = append(t, uint16(h.Sum32()%TopicBuckets))
	}
	slices.Sort(t)
	t = slices.Compact(t)
	return t[:min(len(t), topicMax)]
}

// Union is the topic of both, still sorted and distinct, cut to the
// topic bound (t's buckets first).
func (t Topic) Union(u Topic) Topic {
	out := slices.Clone(t)
	for _, b := range u {
		if len(out) >= topicMax {
			break
		}
		if _, found := slices.BinarySearch(out, b); !found {
			out = append(out, b)
			slices.Sort(out)
		}
	}
	return out
}

// HeatMode says how reads weigh heat: by node alone, or by node and
// the current question's topic.
type HeatMode string

const (
	// Unconditioned reads one heat per node, whatever the question: the
	// original's rule and the default.
	Unconditioned HeatMode = "unconditioned"
	// Conditioned reads a node's heat as the share of its topic heat
	// that falls in the current question's buckets.
	Conditioned HeatMode = "conditioned"
)

// ParseHeatMode accepts the two modes by name.
func ParseHeatMode(s string) (HeatMode, error) {
	switch m := HeatMode(s); m {
	case Unconditioned, Conditioned:
		return m, nil
	}
	return "", fmt.Errorf("trails: heat mode %q: expected %q or %q", s, Unconditioned, Conditioned)
}
