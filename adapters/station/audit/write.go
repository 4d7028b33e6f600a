// SPDX-License-Identifier: Apache-2.0

package audit

import (
	"context"
	"database/sql"
	"time"

	"github.com/monkeyllm/vine/adapters/record"
)

const insertRow = `INSERT INTO audit (ts, principal, forest, primitive, args, result, size, commit_sha,
	error_code, ms, model_ms, cost_usd, via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`

// write is the one writer: it takes a batch off the queue (waiting for
// its first row only), writes it in one transaction, and acknowledges
// the flushes queued among its rows. On Close it drains what is queued.
func (l *Log) write() {
	defer close(l.done)
	lastPrune := l.prune(time.Time{})
	for {
		select {
		case it := <-l.queue:
			l.writeBatch(l.take(it))
			lastPrune = l.prune(lastPrune)
		case <-l.stop:
			for {
				select {
				case it := <-l.queue:
					l.writeBatch(l.take(it))
				default:
					return
				}
			}
		}
	}
}

// take gathers first and whatever else is queued, up to a batch.
func (l *Log) take(first item) []item {
	batch := []item{first}
	for len(batch) < l.opt.Batch {
		select {
		case it := <-l.queue:
			batch = append(batch, it)
		default:
			return batch
		}
	}
	return batch
}

// writeBatch writes the rows of batch in one transaction, then releases
// its flushes. A refused batch is logged and counted, never retried: the
// file is the host's, and a retry loop would hold every later row.
func (l *Log) writeBatch(batch []item) {
	var rows []record.Call
	for _, it := range batch {
		if it.ack == nil {
			rows = append(rows, it.c)
		}
	}
	if len(rows) > 0 {
		if err := l.insert(rows); err != nil {
			l.failed.Add(int64(len(rows)))
			l.log.Error("audit rows not written", "rows", len(rows), "failed", l.failed.Load(), "err", err)
		}
	}
	for _, it := range batch {
		if it.ack != nil {
			close(it.ack)
		}
	}
}

func (l *Log) insert(rows []record.Call) error {
	ctx := context.Background()
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, insertRow)
	if err != nil {
		return err
	}
	defer st.Close()
	for _, c := range rows {
		if _, err := st.ExecContext(ctx, rowValues(c)...); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// rowValues are c's columns; empty strings and nil numbers are NULL.
func rowValues(c record.Call) []any {
	forest := c.Forest
	if forest == "" {
		forest = record.NoForest
	}
	args := c.Args
	if args == nil {
		args = record.Args{}
	}
	return []any{c.Time.UTC().Format(tsLayout), c.Principal, forest, c.Primitive, args.String(), string(c.Result),
		c.Size, nullString(c.CommitSHA), nullString(c.ErrorCode), nullFloat(c.MS), nullFloat(c.ModelMS),
		nullFloat(c.CostUSD), nullString(c.Via)}
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

func nullFloat(f *float64) sql.NullFloat64 {
	if f == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *f, Valid: true}
}

// prune deletes the rows past RetainDays when the last sweep (last) is
// an hour old, and answers when this sweep ran. A failure is logged; the
// next sweep tries again.
func (l *Log) prune(last time.Time) time.Time {
	now := l.opt.Now()
	if l.opt.RetainDays <= 0 || (!last.IsZero() && now.Sub(last) < pruneEvery) {
		return last
	}
	cut := now.UTC().AddDate(0, 0, -l.opt.RetainDays).Format(tsLayout)
	if _, err := l.db.ExecContext(context.Background(), `DELETE FROM audit WHERE ts < ?`, cut); err != nil {
		l.log.Error("audit retention sweep failed", "err", err)
	}
	return now
}
