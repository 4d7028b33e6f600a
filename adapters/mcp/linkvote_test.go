// SPDX-License-Identifier: Apache-2.0

package mcp_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine"
	"github.com/monkeyllm/vine/internal/testforest"
	"github.com/monkeyllm/vine/ranger"
)

// TestNoLinkVoteTool is F.165 (spec 07 H.2.1): the vote on proposed links
// is a person's, over REST and the shell; a model must not confirm its
// own proposal, so even a writable MCP server offers no tool for it and
// a call by name finds none.
func TestNoLinkVoteTool(t *testing.T) {
	dir, _ := testforest.Fixture(t)
	before := testforest.TreeDigest(t, dir)
	cs, _ := serve(t, dir, &vine.Options{}, nil)
	for name := range listTools(t, cs) {
		for _, word := range []string{"vote", ranger.Accept, ranger.Reject, "confirm"} {
			assert.NotContains(t, strings.ToLower(name), word, "tool %s", name)
		}
	}
	args := map[string]any{"id": "operations/departure-checklist", "rel": "discovered-shortcut",
		"target": "concepts/beaufort-scale", "vote": ranger.Accept}
	for _, name := range []string{"vote", "accept_link", "link_vote", "links"} {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
		if err == nil {
			require.True(t, res.IsError, "%s must not be a tool", name)
		}
	}
	assert.Equal(t, before, testforest.TreeDigest(t, dir), "no call reached the forest")
}
