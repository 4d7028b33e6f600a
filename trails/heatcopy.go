// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"math"
	"sync"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

// A heat read was one query per call, several microseconds in this
// SQLite build and a third of a move. Heat changes only when a session
// closes or a graft fortifies, so between those commits every read can
// be answered from a copy of the rows, kept while the file's WAL-index
// mark stands (sqlitefile.Watch): any commit, by any handle or process,
// retires it.

// heatCopyMax bounds the copy; a larger table is read by query as before.
const heatCopyMax = 100_000

// heatCopyBuildRate is how many reads at one mark pay for copying that
// many rows: a table that changes between few reads is not copied anew
// at every change, only once the reads since the change would have paid
// for it (one read per 200 rows; a table of a few hundred rows is copied
// at the first read).
const heatCopyBuildRate = 200

// heatCopy is every heat row at one mark, by scope then node, and the
// rows above zero apart, so Hot costs what it returns, not the table;
// with the topic heat by node then bucket and, above zero, by bucket,
// and the heat mode.
type heatCopy struct {
	scopes   map[string]map[string]float64
	positive map[string]map[string]float64
	topic    map[string]map[uint16]float64
	byBucket map[uint16][]string // nodes with topic heat above zero in the bucket
	mode     HeatMode
}

// onTopic is the conditioned persistent heat of ids (HeatOn).
func (c *heatCopy) onTopic(ids []string, topic Topic) map[string]float64 {
	out := make(map[string]float64, min(len(ids), len(c.topic)))
	for _, id := range ids {
		if h := c.topicHeat(id, topic); h > 0 {
			out[id] = h
		}
	}
	return out
}

// topicHeat is the mean of id's topic heat over topic's buckets.
func (c *heatCopy) topicHeat(id string, topic Topic) float64 {
	rows := c.topic[id]
	if len(rows) == 0 {
		return 0
	}
	var sum float64
	for _, b := range topic {
		sum += rows[b]
	}
	return sum / float64(len(topic))
}

// hotOn is HotOn from the copy: the nodes warm in one of topic's buckets
// or in the session.
func (c *heatCopy) hotOn(session string, topic Topic, limit int) (map[string]float64, bool) {
	var sessional map[string]float64
	if session != "" {
		sessional = c.positive[session]
	}
	if len(sessional) > limit {
		return nil, false
	}
	hot := map[string]float64{}
	add := func(id string) {
		if _, done := hot[id]; done {
			return
		}
		if h := round4(math.Min(1, c.topicHeat(id, topic)+SessionWeight*sessional[id])); h > 0 {
			hot[id] = h
		}
	}
	for _, b := range topic {
		for _, id := range c.byBucket[b] {
			add(id)
			if len(hot) > limit {
				return nil, false
			}
		}
	}
	for id := range sessional {
		add(id)
	}
	if len(hot) > limit {
		return nil, false
	}
	return hot, true
}

// hot is Store.Hot from the copy.
func (c *heatCopy) hot(session string, limit int) (map[string]float64, bool) {
	persistent := c.positive[""]
	if len(persistent) > limit {
		return nil, false
	}
	var sessional map[string]float64
	if session != "" {
		sessional = c.positive[session]
	}
	if len(persistent)+len(sessional) > limit {
		return nil, false
	}
	hot := map[string]float64{}
	for _, rows := range []map[string]float64{persistent, sessional} {
		for id := range rows {
			if h := round4(math.Min(1, persistent[id]+SessionWeight*sessional[id])); h > 0 {
				hot[id] = h
			}
		}
	}
	return hot, true
}

// positive is rows above zero, as the hot query filters them.
func positive(rows map[string]float64) map[string]float64 {
	out := make(map[string]float64, len(rows))
	for id, h := range rows {
		if h > 0 {
			out[id] = h
		}
	}
	return out
}

// heatMisses counts the reads served by query since the mark last
// changed, and remembers the size of the last copy.
type heatMisses struct {
	mu     sync.Mutex
	mark   sqlitefile.Mark
	reads  int
	rows   int // rows of the last copy or count; 0 until known
	tooBig bool
}

// due reports whether a read at mark should build the copy now.
func (m *heatMisses) due(mark sqlitefile.Mark) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.mark != mark {
		m.mark, m.reads = mark, 0
	}
	m.reads++
	if m.tooBig && m.reads < heatCopyMax/heatCopyBuildRate {
		return false
	}
	return m.reads > m.rows/heatCopyBuildRate
}

func (m *heatMisses) built(rows int, tooBig bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.rows, m.tooBig = rows, tooBig
}

// current is the copy at the file's present mark, built when due, or
// nil when reads must query.
func (s *Store) current(ctx context.Context) *heatCopy {
	mark, ok := s.watch.Mark()
	if !ok {
		return nil
	}
	if c, hit := s.copy.Get(mark); hit {
		return c
	}
	if !s.miss.due(mark) {
		return nil
	}
	c, err := s.load(ctx)
	if err != nil || c == nil {
		return nil
	}
	s.copy.Put(mark, c)
	return c
}

// load reads every heat row, topic heat and the mode, or nil when there
// are more than heatCopyMax rows in all.
func (s *Store) load(ctx context.Context) (*heatCopy, error) {
	c := &heatCopy{scopes: map[string]map[string]float64{}, topic: map[string]map[uint16]float64{},
		byBucket: map[uint16][]string{}, mode: Unconditioned}
	n, err := c.loadHeat(ctx, s.db)
	if err != nil {
		return nil, err
	}
	if n > heatCopyMax {
		s.miss.built(n, true)
		return nil, nil
	}
	topic, _, err := tables(ctx, s.db)
	if err != nil {
		return nil, err
	}
	if topic {
		m, err := c.loadTopic(ctx, s.db, heatCopyMax-n)
		if err != nil {
			return nil, err
		}
		if n += m; n > heatCopyMax {
			s.miss.built(n, true)
			return nil, nil
		}
	}
	if c.mode, err = readMode(ctx, s.db); err != nil {
		return nil, err
	}
	c.positive = make(map[string]map[string]float64, len(c.scopes))
	for scope, rows := range c.scopes {
		c.positive[scope] = positive(rows)
	}
	s.miss.built(n, false)
	return c, nil
}

// loadHeat copies the heat table, up to one row past heatCopyMax, and
// returns how many rows it read.
func (c *heatCopy) loadHeat(ctx context.Context, q querier) (int, error) {
	rows, err := q.QueryContext(ctx, "SELECT scope, node_id, heat FROM heat LIMIT ?", heatCopyMax+1)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var scope, id string
		var h float64
		if err := rows.Scan(&scope, &id, &h); err != nil {
			return n, err
		}
		if n++; n > heatCopyMax {
			return n, nil
		}
		if c.scopes[scope] == nil {
			c.scopes[scope] = map[string]float64{}
		}
		c.scopes[scope][id] = h
	}
	return n, rows.Err()
}

// loadTopic copies the topic heat table, up to one row past room.
func (c *heatCopy) loadTopic(ctx context.Context, q querier, room int) (int, error) {
	rows, err := q.QueryContext(ctx, "SELECT node_id, bucket, heat FROM heat_ctx LIMIT ?", room+1)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var b int
		var h float64
		if err := rows.Scan(&id, &b, &h); err != nil {
			return n, err
		}
		if n++; n > room {
			return n, nil
		}
		if b < 0 || b >= TopicBuckets {
			continue // not a bucket this engine lays
		}
		if c.topic[id] == nil {
			c.topic[id] = map[uint16]float64{}
		}
		c.topic[id][uint16(b)] = h
		if h > 0 {
			c.byBucket[uint16(b)] = append(c.byBucket[uint16(b)], id)
		}
	}
	return n, rows.Err()
}
