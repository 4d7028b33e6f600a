// SPDX-License-Identifier: Apache-2.0

package trails

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/monkeyllm/vine/internal/sqlitefile"
)

func TestTopicOf(t *testing.T) {
	tide := TopicOf([]string{"tide", "gauge", "tide", ""})
	assert.Len(t, tide, 2, "repeats and empty terms count once and never")
	assert.Equal(t, tide, TopicOf([]string{"gauge", "tide"}), "order does not matter")
	assert.True(t, isSorted(tide))
	assert.Empty(t, TopicOf(nil))
	frost := TopicOf([]string{"frost", "alarm"})
	u := tide.Union(frost)
	assert.Len(t, u, 4)
	assert.True(t, isSorted(u))
	assert.Equal(t, u, u.Union(tide), "a union with a part adds nothing")

	many := make([]string, 200)
	for i := range many {
		many[i] = string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	assert.LessOrEqual(t, len(TopicOf(many)), topicMax, "a topic is bounded")
	assert.LessOrEqual(t, len(TopicOf(many).Union(tide)), topicMax)
}

func isSorted(t Topic) bool {
	for i := 1; i < len(t); i++ {
		if t[i-1] >= t[i] {
			return false
		}
	}
	return true
}

func TestParseHeatMode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want HeatMode
		ok   bool
	}{
		{"conditioned", Conditioned, true},
		{"unconditioned", Unconditioned, true},
		{"", "", false},
		{"Conditioned", "", false},
		{"topic", "", false},
	} {
		got, err := ParseHeatMode(tc.in)
		assert.Equal(t, tc.want, got, tc.in)
		assert.Equal(t, tc.ok, err == nil, tc.in)
	}
}

// TestHeatOnReadsTheQuestionsShare: a node warmed by one family of
// questions is warm for them, half as warm for a question sharing half
// its terms, cold for an unrelated one; unconditioned heat is what it
// always was. The copy and the query agree at every step.
func TestHeatOnReadsTheQuestionsShare(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	now := time.Unix(1_700_000_000, 0)
	tide := TopicOf([]string{"tide", "gauge"})
	frost := TopicOf([]string{"frost", "alarm"})
	half := TopicOf([]string{"tide", "frost"})
	require.NoError(t, s.DepositTopic(ctx, []string{"a", "idx"}, tide, 0.1, now))
	require.NoError(t, s.DepositTopic(ctx, []string{"a", "idx"}, tide, 0.1, now))
	require.NoError(t, s.DepositTopic(ctx, []string{"b"}, frost, 0.1, now))
	require.NoError(t, s.Deposit(ctx, "hunt", []string{"c"}, 0.4, now))
	ids := []string{"a", "idx", "b", "c", "cold"}

	plain, err := s.Heat(ctx, ids, "")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"a": 0.2, "idx": 0.2, "b": 0.1}, plain, "node heat is laid as before")

	for _, tc := range []struct {
		name    string
		topic   Topic
		session string
		want    map[string]float64
	}{
		{"same family", tide, "", map[string]float64{"a": 0.2, "idx": 0.2}},
		{"other family", frost, "", map[string]float64{"b": 0.1}},
		{"half shared", half, "", map[string]float64{"a": 0.1, "idx": 0.1, "b": 0.05}},
		{"session heat adds as before", frost, "hunt", map[string]float64{"b": 0.1, "c": 0.2}},
		{"no topic is unconditioned", nil, "", plain},
	} {
		got, err := s.HeatOn(ctx, ids, tc.session, tc.topic)
		require.NoError(t, err)
		assert.Equal(t, tc.want, got, tc.name)
		require.NotNil(t, s.current(ctx), "a small table is copied")
		if len(tc.topic) > 0 {
			q, err := s.readTopic(ctx, ids, tc.topic) // the query path, for comparison
			require.NoError(t, err)
			assert.Equal(t, s.current(ctx).onTopic(ids, tc.topic), q, "%s: copy and query agree", tc.name)
		}
		hot, ok, err := s.HotOn(ctx, tc.session, tc.topic, 10)
		require.NoError(t, err)
		require.True(t, ok)
		assert.Equal(t, tc.want, hot, "%s: hot", tc.name)
	}
	_, ok, err := s.HotOn(ctx, "", tide, 1)
	require.NoError(t, err)
	assert.False(t, ok, "more hot nodes than the limit")
}

func TestHeatModeIsRecorded(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trails.db")
	s, err := Open(ctx, path)
	require.NoError(t, err)
	m, err := s.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, Unconditioned, m, "the default")
	require.Error(t, s.SetMode(ctx, "warm"))
	require.NoError(t, s.SetMode(ctx, Conditioned))
	m, err = s.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, Conditioned, m)
	require.NoError(t, s.Close())

	again, err := Open(ctx, path)
	require.NoError(t, err)
	defer again.Close()
	m, err = again.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, Conditioned, m, "the mode lives in the file")
	m, err = readMode(ctx, again.db)
	require.NoError(t, err)
	assert.Equal(t, Conditioned, m, "and the query reads it as the copy does")
}

// TestOriginalTrailsOpensUnchanged: a trails.db holding only the
// original's table is neither altered by opening and reading it nor read
// differently; the additive tables appear with the first write needing
// them.
func TestOriginalTrailsOpensUnchanged(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trails.db")
	db, err := sqlitefile.Open(path, "", nil)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `CREATE TABLE heat(scope TEXT NOT NULL DEFAULT '', node_id TEXT NOT NULL,
		heat REAL NOT NULL DEFAULT 0, updated REAL NOT NULL, PRIMARY KEY(scope, node_id))`)
	require.NoError(t, err)
	_, err = db.ExecContext(ctx, `INSERT INTO heat VALUES ('', 'a', 0.3, 1700000000), ('s', 'b', 0.2, 1700000000)`)
	require.NoError(t, err)
	before := schemaOf(t, db)

	s, err := Open(ctx, path)
	require.NoError(t, err)
	defer s.Close()
	h, err := s.Heat(ctx, []string{"a", "b"}, "s")
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"a": 0.3, "b": 0.1}, h, "read as before")
	h, err = s.HeatOn(ctx, []string{"a", "b"}, "s", TopicOf([]string{"tide"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"b": 0.1}, h, "heat laid without a topic lifts no topic")
	m, err := s.Mode(ctx)
	require.NoError(t, err)
	assert.Equal(t, Unconditioned, m)
	_, err = s.Evaporate(ctx, time.Unix(1_700_000_100, 0), time.Hour, 24*time.Hour)
	require.NoError(t, err)
	require.NoError(t, s.Rekey(ctx, "a", "z"))
	assert.Equal(t, before, schemaOf(t, db), "reads, evaporation and re-keying add no table")

	require.NoError(t, s.DepositTopic(ctx, []string{"a"}, TopicOf([]string{"tide"}), 0.1, time.Unix(1_700_000_200, 0)))
	assert.Contains(t, schemaOf(t, db), "heat_ctx", "the first topic deposit creates its table")
	require.NoError(t, db.Close())
}

func schemaOf(t *testing.T, db *sql.DB) string {
	t.Helper()
	var s string
	require.NoError(t, db.QueryRow(`SELECT group_concat(sql, ';') FROM (SELECT sql FROM sqlite_master ORDER BY name)`).Scan(&s))
	return s
}

// TestTopicHeatEvaporatesRekeysAndClears: topic heat follows node heat
// through every maintenance path.
func TestTopicHeatEvaporatesRekeysAndClears(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	then := time.Unix(1_700_000_000, 0)
	tide := TopicOf([]string{"tide"})
	require.NoError(t, s.DepositTopic(ctx, []string{"a", "b"}, tide, 0.4, then))
	require.NoError(t, s.DepositTopic(ctx, []string{"dust"}, tide, 0.015, then))

	ev, err := s.Evaporate(ctx, then.Add(time.Hour), time.Hour, 24*time.Hour)
	require.NoError(t, err)
	assert.Equal(t, Evaporation{Decayed: 2, Removed: 1, TopicDecayed: 2, TopicRemoved: 1}, ev)
	h, err := s.HeatOn(ctx, []string{"a", "b", "dust"}, "", tide)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"a": 0.2, "b": 0.2}, h, "half-life: halved, dust gone")

	require.NoError(t, s.Rekey(ctx, "a", "z"))
	h, err = s.HeatOn(ctx, []string{"a", "z"}, "", tide)
	require.NoError(t, err)
	assert.Equal(t, map[string]float64{"z": 0.2}, h, "topic heat moves with the node")

	require.NoError(t, s.ClearScope(ctx, ""))
	h, err = s.HeatOn(ctx, []string{"z", "b"}, "", tide)
	require.NoError(t, err)
	assert.Empty(t, h, "clearing persistent heat clears its topic heat")
}
