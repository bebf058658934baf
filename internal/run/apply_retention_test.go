package run

import (
	"context"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// TestRetentionRemovesThoseSeenBeforeTheLimitAlone applies leadsync {
// retention = "30m" } an hour after the searches saw their people, on the
// local database, where three of them were last seen about the limit: a
// microsecond before it, at it, a microsecond after it. The apply removes
// every person seen before the limit and nobody else (someone not seen
// for 30m exactly stays), whether the people to go are read whole or in
// the kept form, and folded in their removal form.
func TestRetentionRemovesThoseSeenBeforeTheLimitAlone(t *testing.T) {
	for _, kept := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, ".leadsync", "state.db")
		d, _, _, _ := newDeps(t)
		d.Backend = local.Open(path)
		cfg := loadConfig(t, dir)
		applyAll(t, d, cfg)
		ids := personIDs(t, path)
		if len(ids) < 5 {
			t.Fatalf("the searches found %d people: too few to test", len(ids))
		}
		limit := t0.Add(30 * time.Minute)
		setLastSeen(t, path, map[string]time.Time{
			ids[0]: limit.Add(-time.Microsecond), ids[1]: limit, ids[2]: limit.Add(time.Microsecond)})
		d.Now = func() time.Time { return t0.Add(time.Hour) }
		cfg.Settings.Retention = 30 * time.Minute
		restore := func() {}
		if kept {
			restore = plan.SetMaxExpiredRead(0)
		}
		applyAll(t, d, cfg)
		restore()
		if left, want := personIDs(t, path), ids[1:3]; !slices.Equal(left, want) {
			t.Errorf("kept form %v: retention left %v of %v, want %v (those seen at the limit or after)", kept, left, ids, want)
		}
	}
}

func applyAll(t *testing.T, d Deps, cfg *config.Config) {
	t.Helper()
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
}

// personIDs are the IDs of the people of the database at path, sorted.
func personIDs(t *testing.T, path string) []string {
	t.Helper()
	var list string
	err := openDB(t, path).QueryRow(`SELECT json_group_array(id) FROM (SELECT id FROM people WHERE workspace = ? ORDER BY id)`,
		state.DefaultWorkspace).Scan(&list)
	var ids []string
	if err == nil {
		err = json.Unmarshal([]byte(list), &ids)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// setLastSeen sets when each person of seen was last seen, in the
// database at path.
func setLastSeen(t *testing.T, path string, seen map[string]time.Time) {
	t.Helper()
	db := openDB(t, path)
	for id, at := range seen {
		_, err := db.Exec(`UPDATE people SET last_seen = ? WHERE workspace = ? AND id = ?`, sqlstate.SQLite.TimeValue(at), state.DefaultWorkspace, id)
		if err != nil {
			t.Fatal(err)
		}
	}
}

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
