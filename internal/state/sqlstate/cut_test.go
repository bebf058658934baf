package sqlstate

import (
	"database/sql"
	"testing"
)

// TestCutLeadListsKeepsNoListNone: CutLeadLists keeps the IDs of the
// people the workspace holds, in order; a list of removed people alone
// becomes the empty list, a search without a list keeps none (NULL), and
// a search not named keeps its list whole.
func TestCutLeadListsKeepsNoListNone(t *testing.T) {
	db := memoryWorkspace(t,
		`INSERT INTO people (workspace, id) VALUES ('w', 'p1'), ('w', 'p2')`,
		`INSERT INTO searches (workspace, address, generation, request, request_hash, result_count, max_results, capped, lead_ids, added, removed, runs)
		 VALUES ('w', 'search.cut', 1, '{}', 'h', 3, 25, false, '["p2","gone","p1"]', 0, 0, 1),
		        ('w', 'search.emptied', 1, '{}', 'h', 1, 25, false, '["gone"]', 0, 0, 1),
		        ('w', 'search.none', 1, '{}', 'h', 0, 25, false, NULL, 0, 0, 1),
		        ('w', 'search.other', 1, '{}', 'h', 1, 25, false, '["gone"]', 0, 0, 1)`)
	addrs, err := SQLite.List([]string{"search.cut", "search.emptied", "search.none"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(SQLite.Rewrite(CutLeadLists(SQLite)), "w", addrs); err != nil {
		t.Fatalf("cut: %v", err)
	}
	want := map[string]sql.NullString{
		"search.cut":     {String: `["p2","p1"]`, Valid: true},
		"search.emptied": {String: `[]`, Valid: true},
		"search.none":    {},
		"search.other":   {String: `["gone"]`, Valid: true},
	}
	for addr, w := range want {
		var got sql.NullString
		if err := db.QueryRow(`SELECT lead_ids FROM searches WHERE workspace = 'w' AND address = ?`, addr).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%s lists %v after the cut, want %v", addr, got, w)
		}
	}
}
