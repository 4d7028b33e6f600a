// SPDX-License-Identifier: Apache-2.0

package station

import "github.com/monkeyllm/vine"

// The Station's side of the event catalogue (08 §11): the forests' own
// content events reach the webhooks through vine.Options.OnEvent, and the
// Station emits the deployment and access events it owns (doors, keys,
// grants) beside the audit rows of the same acts, after they succeeded.

// onEvent is the forests' event hook: the engine names a forest by its
// directory, which is its id in the Station's registry (as StoreSettings
// reads it), so the event goes on as it is.
func (s *Server) onEvent(e vine.HookEvent) {
	if s.hooks != nil {
		s.hooks.Emit(e)
	}
	s.extEvent(e)
}

// emit hands one of the Station's own events to the webhooks; forest is
// "" for a deployment event. Data is rationed like an audit row.
func (s *Server) emit(name, forest, principal string, data map[string]any) {
	e := vine.HookEvent{Name: name, Forest: forest, Principal: principal, At: s.now(), Data: data}
	s.extEvent(e)
	if s.hooks == nil {
		return
	}
	s.hooks.Emit(e)
}
