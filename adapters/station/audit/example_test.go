// SPDX-License-Identifier: Apache-2.0

package audit_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/monkeyllm/vine/adapters/record"
	"github.com/monkeyllm/vine/adapters/station/audit"
)

// A Log over the registry file records what the surfaces hand it and
// answers an administrator's query within its reach.
func ExampleLog() {
	dir, _ := os.MkdirTemp("", "station")
	defer os.RemoveAll(dir)
	db, _ := sql.Open("sqlite3", "file:"+filepath.ToSlash(filepath.Join(dir, "station.db"))+"?_pragma=journal_mode(wal)&_pragma=busy_timeout(5000)")
	defer db.Close()

	ctx := context.Background()
	log, err := audit.New(ctx, db, &audit.Options{RetainDays: 365})
	if err != nil {
		panic(err)
	}
	defer log.Close()

	// What rest.Options.Recorder and mcp.Options.Recorder are handed.
	var rec record.Recorder = log
	at := time.Date(2026, 8, 31, 9, 0, 0, 0, time.UTC)
	rec.Record(ctx, record.Call{Time: at, Principal: "ana", Forest: "acme", Primitive: "look",
		Args: record.Digest("look", []byte(`{"id":"notes/tide"}`)), Result: record.OK, Size: 512})
	rec.Record(ctx, record.Call{Time: at.Add(time.Minute), Principal: "bob", Forest: "beta", Primitive: "plant",
		Result: record.Error, ErrorCode: "E_FORBIDDEN"})
	log.Flush(ctx) // a test's move: rows are written in the background

	// An administrator of acme alone sees acme's rows, totals and facets.
	page, _ := log.Query(ctx, audit.Scope{Forests: []string{"acme"}}, audit.Filter{})
	out, _ := json.Marshal(page)
	fmt.Println(string(out))
	// Output:
	// {"entries":[{"ts":"2026-08-31T09:00:00Z","principal":"ana","forest":"acme","primitive":"look","args":{"id":"notes/tide"},"result":"ok","size":512}],"totals":{"calls":1,"errors":0},"filters":{"principals":["ana"],"forests":["acme"],"primitives":["look"],"results":["ok"],"vias":[]}}
}
