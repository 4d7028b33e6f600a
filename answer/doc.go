// SPDX-License-Identifier: Apache-2.0

// Package answer is the model-backed answer composite of the forest
// engine, J.10 of spec 05 (model-backed answers): a question in, an answer
// grounded in the forest out, with the evidence it stands on.
//
// Two modes share one Answerer. A sweep retrieves once with harvest and
// asks the model once; a walk gives the model the read primitives as
// tools and lets it explore for a budget of hops. Either way retrieval
// runs through the caller's view before any model call, so the model
// sees only what the caller could read primitive by primitive:
//
//	a := answer.New(answer.LlamaCpp(client), nil)
//	res, err := a.Sweep(ctx, v, "when did the Tidewatch network go live?", answer.Params{})
//	res, err = a.Walk(ctx, v, "how did the Lighthouse pilot go?", answer.Params{Hops: 6})
//
// Answers are kept in a per-forest store under _derived/cache/answers.db,
// keyed by the question and what shaped the answer: a sweep is served
// again while its reading (the evidence bundle) is unchanged, a walk
// while HEAD and the date are. Every hosted answer deposits heat on its
// evidence when its session closes. A reply cut at its token cap is
// reported truncated and never stored; reasoning blocks are stripped
// before anything reads the reply.
//
// Register binds a model for the whole process and adds answer to the
// engine's signature table, so the CLI, MCP and REST surfaces serve it;
// a process that binds no model does not list it.
package answer
