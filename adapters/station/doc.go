// SPDX-License-Identifier: Apache-2.0

// Package station is the multi-user host of spec 09: one server, many
// people, each seeing and doing only what they were granted, every act
// on record. It serves the doors (setup, login, pair), the governance
// and maintenance routes under /v1/admin, and mounts the REST and MCP
// surfaces of the engine unchanged: the host registry
// (package [github.com/monkeyllm/vine/adapters/station/registry])
// resolves keys for them, and the audit log
// (package [github.com/monkeyllm/vine/adapters/station/audit]) records
// their calls. Every other path belongs to the Studio
// (package [github.com/monkeyllm/vine/adapters/studio]), mounted last.
//
// This package holds the HTTP host's own pieces: the failure windows of
// the password doors, the client host a request is judged by, and the
// security headers of every response.
package station
