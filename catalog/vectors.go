// SPDX-License-Identifier: Apache-2.0

package catalog

import (
	"context"
	"database/sql"
	"errors"
)

// The vector layer's rows (Part K): the nodes' stale marks and the
// embed_memo table. The catalog stores them; package canopy owns their
// meaning (the memo key, the vector encoding, the LRU bound), so these
// methods move rows and decide nothing.

// NodeText is what the vector layer embeds of a node, with its stale
// mark: set when the node was written after its vector was made.
type NodeText struct {
	ID, Title, Summary string
	Stale              bool
}

// NodeTexts lists every node's title, summary and stale mark, in id order.
func (c *Catalog) NodeTexts(ctx context.Context) ([]NodeText, error) {
	rows, err := c.reader.QueryContext(ctx, "SELECT id, title, summary, stale FROM nodes ORDER BY id")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []NodeText
	for rows.Next() {
		var n NodeText
		var stale int
		if err := rows.Scan(&n.ID, &n.Title, &n.Summary, &stale); err != nil {
			return nil, err
		}
		n.Stale = stale != 0
		out = append(out, n)
	}
	return out, rows.Err()
}

// MarkStale sets the stale mark of the nodes, in one transaction. Ids
// without a row are skipped.
func (c *Catalog) MarkStale(ctx context.Context, ids ...string) error {
	return c.Write(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, "UPDATE nodes SET stale = 1 WHERE id = ?", id); err != nil {
				return err
			}
		}
		return nil
	})
}

// ClearStale drops the stale mark of each node whose title and summary
// are still the ones given, in one transaction: a node rewritten since
// its text was read keeps its mark.
func (c *Catalog) ClearStale(ctx context.Context, texts []NodeText) error {
	return c.Write(ctx, func(tx *sql.Tx) error {
		st, err := tx.PrepareContext(ctx, "UPDATE nodes SET stale = 0 WHERE id = ? AND title = ? AND summary = ?")
		if err != nil {
			return err
		}
		defer st.Close()
		for _, n := range texts {
			if _, err := st.ExecContext(ctx, n.ID, n.Title, n.Summary); err != nil {
				return err
			}
		}
		return nil
	})
}

// EmbedMemoRow is one row of the query-embedding memo: a vector of Dim
// values encoded by its owner, stored under Key for Model, last used at
// Used (a number that grows with time; the owner picks the clock).
type EmbedMemoRow struct {
	Key, Model string
	Dim        int
	Vector     []byte
	Used       int64
}

// EmbedMemo returns the memo row of key stored for model; false when
// there is none.
func (c *Catalog) EmbedMemo(ctx context.Context, key, model string) (EmbedMemoRow, bool, error) {
	r := EmbedMemoRow{Key: key, Model: model}
	err := c.reader.QueryRowContext(ctx,
		"SELECT dim, vector, used FROM embed_memo WHERE key = ? AND model = ?", key, model).Scan(&r.Dim, &r.Vector, &r.Used)
	if errors.Is(err, sql.ErrNoRows) {
		return EmbedMemoRow{}, false, nil
	}
	if err != nil {
		return EmbedMemoRow{}, false, err
	}
	return r, true, nil
}

// TouchEmbedMemo records that the memo row of key was used at used.
func (c *Catalog) TouchEmbedMemo(ctx context.Context, key string, used int64) error {
	return c.Write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE embed_memo SET used = ? WHERE key = ?", used, key)
		return err
	})
}

// PutEmbedMemo stores r, replacing any row of its key, and deletes the
// least recently used rows beyond capacity, in one transaction.
func (c *Catalog) PutEmbedMemo(ctx context.Context, r EmbedMemoRow, capacity int) error {
	return c.Write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			"INSERT OR REPLACE INTO embed_memo (key, model, dim, vector, used) VALUES (?, ?, ?, ?, ?)",
			r.Key, r.Model, r.Dim, r.Vector, r.Used); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM embed_memo WHERE key IN "+
			"(SELECT key FROM embed_memo ORDER BY used DESC, key LIMIT -1 OFFSET ?)", capacity)
		return err
	})
}
