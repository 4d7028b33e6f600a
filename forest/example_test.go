// SPDX-License-Identifier: Apache-2.0

package forest_test

import (
	"fmt"
	"log"

	"github.com/monkeyllm/vine/forest"
)

// Parse reads one node file: the ordered frontmatter (its passport) and
// the body, exactly as the engine reads it. A node's id is its path
// without ".md"; the trail is the indexes above it.
func ExampleParse() {
	file := []byte(`---
type: note
title: Storm drill
summary: What every crew does when the storm warning sounds.
tags: [safety]
links:
  - rel: related-to
    target: harbour/radio-schedule
---

## Warning

The siren sounds three times.

## Moorings

Double every mooring line.
`)
	n, err := forest.Parse("harbour/storm-drill", file)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n.Type(), n.Title(), n.Tags())
	for _, l := range n.Links() {
		fmt.Println(l.Rel, l.Target)
	}
	for _, h := range forest.ParseOutline(n.Body).Sections {
		fmt.Println(h.Level, h.Text)
	}
	fmt.Println(forest.ParentIndex(n.ID), forest.Trail(n.ID))
	// Output:
	// note Storm drill [safety]
	// related-to harbour/radio-schedule
	// 2 Warning
	// 2 Moorings
	// harbour/_index [_index harbour/_index]
}
