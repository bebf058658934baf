package run

import (
	"context"
	"database/sql"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestApplyFoldsAKilledRemoval: an apply of retention killed after its
// removal was recorded and before the rows were written leaves the event
// in the database. The next plan shows the people gone; the next apply,
// with only spreadsheets to write or nothing to do at all, writes the
// removal into the rows and empties the events table, and says that it
// folded one recorded call in (ApplyView.Folded). Before, an apply with
// nothing to do left both, and every command read the state whole.
func TestApplyFoldsAKilledRemoval(t *testing.T) {
	noExport, _, _ := strings.Cut(testConfig, "export \"all\"")
	for name, src := range map[string]string{"spreadsheets only": testConfig, "nothing to do": noExport} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ".leadsync", "state.db")
			d, _, _, _ := newDeps(t)
			d.Backend = local.Open(path)
			cfg := loadConfigText(t, dir, src)
			if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
				t.Fatal(err)
			}
			kept := killRemoval(t, path)

			d.Backend = local.Open(path) // the next command
			p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Offline: true})
			if err != nil || diags.HasErrors() {
				t.Fatal(err, diags)
			}
			if p.Change(state.PeopleAddress) != nil || changesState(p) {
				t.Errorf("the plan after the kill: %s", jsonOf(t, p))
			}
			view := &recView{}
			if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, view); err != nil {
				t.Fatal(err)
			}
			if view.folded != 1 {
				t.Errorf("the apply said it folded %d recorded calls in; want 1", view.folded)
			}
			if _, ok := backend.JournalPending(local.Open(path)); ok {
				t.Error("the recorded removal is still pending after the apply")
			}
			rows := countRows(t, path)
			if rows["people"] != kept || rows["events"] != 0 || rows["integrity"] != 1 {
				t.Errorf("rows after the apply: %v; want %d people, no event, integrity ok", rows, kept)
			}
		})
	}
}

// killRemoval records the removal of every person but one, as apply of
// retention does, and stops before the rows are written (a kill -9):
// the number of people kept.
func killRemoval(t *testing.T, path string) int {
	t.Helper()
	b := local.Open(path)
	st, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.Sorted(maps.Keys(st.People))
	if len(ids) < 2 {
		t.Fatalf("%d people: the test needs two", len(ids))
	}
	rec, err := b.OpenJournal(st)
	if err != nil {
		t.Fatal(err)
	}
	ev := state.Event{At: t0, Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetRetention, PersonIDs: ids[1:]}}
	if err := rec.Append(&ev); err != nil {
		t.Fatal(err)
	}
	if rows := countRows(t, path); rows["people"] != len(ids) || rows["events"] != 1 {
		t.Fatalf("rows after the kill: %v", rows)
	}
	return 1
}

// countRows counts the people and recorded events in the database, and
// integrity 1 when PRAGMA integrity_check says ok.
func countRows(t *testing.T, path string) map[string]int {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string]int{}
	for _, table := range []string{"people", "events"} {
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	var ok string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&ok); err != nil {
		t.Fatal(err)
	}
	if ok == "ok" {
		out["integrity"] = 1
	}
	return out
}
