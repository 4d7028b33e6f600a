// SPDX-License-Identifier: Apache-2.0

// Package sqlitefile opens the SQLite files several processes share — the
// derived layer's catalog and stores, the Station's registry — the one way
// that holds when they all open the same file at once.
//
// A shared file runs in WAL mode with synchronous=NORMAL and a 5 s busy
// timeout (the normative busy_timeout of _derived databases, v0.57). The
// step that needs care is the switch to WAL: a fresh connection does not
// yet know the file is in WAL already, asks for the switch, and SQLite can
// answer it "database is locked" at once, without waiting on the busy
// handler, while another process checkpoints or closes the file. Setting
// WAL through a DSN pragma turned that into a failed open; [WAL] reads the
// mode first and retries the switch until the busy timeout instead.
package sqlitefile

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
)

// BusyTimeout is how long a connection waits for another's lock.
const BusyTimeout = 5 * time.Second

// ErrNoWAL reports a file system on which SQLite keeps another journal
// mode (one without shared memory, for instance).
var ErrNoWAL = errors.New("sqlitefile: the file system refuses WAL")

// URI renders path as an SQLite URI. Escaping keeps '?', '#' and '%' in
// directory names from being read as URI syntax; query ("mode=ro",
// "_txlock=immediate") is appended as given.
func URI(path, query string) string {
	p := filepath.ToSlash(path)
	if p != "" && p[0] != '/' {
		p = "/" + p // a volume name such as C:
	}
	u := "file:" + (&url.URL{Path: p}).EscapedPath()
	if query != "" {
		u += "?" + query
	}
	return u
}

// Open opens the shared file at path through database/sql: every
// connection gets the busy timeout, WAL and synchronous=NORMAL, then init
// when it is not nil. query is as for [URI].
func Open(path, query string, init func(*sqlite3.Conn) error) (*sql.DB, error) {
	return driver.Open(URI(path, query), func(conn *sqlite3.Conn) error {
		if err := conn.BusyTimeout(BusyTimeout); err != nil {
			return err
		}
		if err := WAL(conn); err != nil {
			return err
		}
		if err := conn.Exec(`PRAGMA synchronous=NORMAL`); err != nil {
			return err
		}
		if init != nil {
			return init(conn)
		}
		return nil
	})
}

// WAL puts conn's file in WAL mode. A file already in it is left alone;
// a switch refused as busy is retried until [BusyTimeout] has passed. It
// returns [ErrNoWAL] when SQLite keeps another mode.
func WAL(conn *sqlite3.Conn) error {
	deadline := time.Now().Add(BusyTimeout)
	pause := time.Millisecond
	for {
		mode, err := journalMode(conn, "PRAGMA journal_mode")
		if err == nil && mode != "wal" {
			mode, err = journalMode(conn, "PRAGMA journal_mode=WAL")
		}
		switch {
		case err == nil && mode == "wal":
			return nil
		case err == nil:
			return fmt.Errorf("%w (journal mode %s)", ErrNoWAL, mode)
		case !busy(err) || time.Now().After(deadline):
			return fmt.Errorf("sqlitefile: journal mode: %w", err)
		}
		time.Sleep(pause)
		pause = min(2*pause, 50*time.Millisecond)
	}
}

func journalMode(conn *sqlite3.Conn, pragma string) (string, error) {
	stmt, _, err := conn.Prepare(pragma)
	if err != nil {
		return "", err
	}
	defer stmt.Close()
	mode := ""
	if stmt.Step() {
		mode = strings.ToLower(stmt.ColumnText(0))
	}
	return mode, stmt.Err()
}

func busy(err error) bool {
	return errors.Is(err, sqlite3.BUSY) || errors.Is(err, sqlite3.LOCKED)
}
