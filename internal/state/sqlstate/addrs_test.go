package sqlstate

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/leadsync/leadsync/internal/state"
)

// A person's found_by holds the numbers of the table addresses, read
// back as texts in byte order; a store's decoder reads the table again
// once an address is renamed in it (a move), or the table is copied
// again with the same numbers, count and renames under other names (a
// push's copyAddresses), or the workspace is deleted and made again
// with the same count (namesKey), so that the same store's next read
// gives the new names.
func TestNumberedFoundByFollowsARename(t *testing.T) {
	ctx := context.Background()
	db := memoryWorkspace(t,
		`INSERT INTO addresses (workspace, n, address) VALUES ('w', 1, 'search.b'), ('w', 2, 'search.a')`,
		`INSERT INTO people (workspace, id, found_by) VALUES ('w', 'p1', '[1,2]'), ('w', 'p2', '[1]')`)
	r := &Reader{D: SQLite, Q: db, WS: "w"}
	d := newPersonDecoder()
	read := func() map[string][]string {
		s := &state.State{People: map[string]*state.Person{}}
		if err := r.peopleWhere(ctx, s, where{}, d); err != nil {
			t.Fatal(err)
		}
		out := map[string][]string{}
		for id, p := range s.People {
			out[id] = p.FoundBy
		}
		return out
	}
	if got := read(); !slices.Equal(got["p1"], []string{"search.a", "search.b"}) || !slices.Equal(got["p2"], []string{"search.b"}) {
		t.Fatalf("found_by read as %v, want the numbers' addresses in byte order", got)
	}
	if _, err := db.Exec(SQLite.Rewrite(renameAddress), "w", "search.b", "search.0"); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got["p1"], []string{"search.0", "search.a"}) || !slices.Equal(got["p2"], []string{"search.0"}) {
		t.Errorf("after the rename, found_by read as %v, want search.b renamed search.0, in byte order", got)
	}
	if _, err := db.Exec(`DELETE FROM addresses; INSERT INTO addresses (workspace, n, address, renamed) VALUES ('w', 1, 'search.a', 1), ('w', 2, 'search.0', 0)`); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got["p1"], []string{"search.0", "search.a"}) || !slices.Equal(got["p2"], []string{"search.a"}) {
		t.Errorf("after a copy of the table, found_by read as %v, want the copy's names", got)
	}
	var changed int64
	if err := db.QueryRow(`SELECT addresses_changed FROM workspaces`).Scan(&changed); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`DELETE FROM addresses`, `DELETE FROM workspaces`,
		`INSERT INTO workspaces (name, lineage, format_version, created_at) VALUES ('w', 'l', 1, '2026-02-01T00:00:00.000000000Z')`,
		`INSERT INTO addresses (workspace, n, address) VALUES ('w', 1, 'search.z'), ('w', 2, 'search.y')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Exec(`UPDATE workspaces SET addresses_changed = ?`, changed); err != nil {
		t.Fatal(err)
	}
	if got := read(); !slices.Equal(got["p1"], []string{"search.y", "search.z"}) || !slices.Equal(got["p2"], []string{"search.z"}) {
		t.Errorf("after the workspace was made again, its count the same, found_by read as %v, want the new workspace's names", got)
	}
}

// TestAddressChangesCounted: every statement that adds, renames or
// removes rows of addresses raises the count of its workspace's changes
// (schema 7), which tells a reader to read the names again (pg's test of
// the same name).
func TestAddressChangesCounted(t *testing.T) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	last := int64(-2) // addressesSig is -1 without the workspace's row
	for _, q := range []string{SQLiteSchema,
		`INSERT INTO workspaces (name, lineage, format_version, created_at) VALUES ('w', 'l', 1, '2026-01-01T00:00:00.000000000Z')`,
		`INSERT INTO addresses (workspace, n, address) VALUES ('w', 1, 'search.new')`,
		`UPDATE addresses SET address = 'search.newer' WHERE address = 'search.new'`,
		`DELETE FROM addresses WHERE address = 'search.newer'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := db.QueryRow(SQLite.Rewrite(addressesSig), "w").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n <= last {
			t.Errorf("after %.60s, the count of the addresses' changes is %d, was %d", q, n, last)
		}
		last = n
	}
}

// An address numbered after a read's names were read (a second writer,
// between the names and the rows) is found by reading the names again
// once; a number still missing then is an error, not a loop.
func TestBlockNamesReadAgainOnce(t *testing.T) {
	ctx := context.Background()
	db := memoryWorkspace(t, `INSERT INTO addresses (workspace, n, address) VALUES ('w', 1, 'enrich.a')`)
	p := &peopleStore{r: &Reader{D: SQLite, Q: db, WS: "w"}, ctx: ctx, dec: newPersonDecoder()}
	names, err := p.blockNames()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO addresses (workspace, n, address) VALUES ('w', 2, 'enrich.b')`); err != nil {
		t.Fatal(err)
	}
	for n, want := range []string{1: "enrich.a", 2: "enrich.b"} {
		if n == 0 {
			continue
		}
		got, err := names.of(sql.NullInt64{Int64: int64(n), Valid: true})
		if err != nil || got != want {
			t.Errorf("number %d named %q (%v), want %q", n, got, err, want)
		}
	}
	if got, err := names.of(sql.NullInt64{Int64: 3, Valid: true}); err == nil {
		t.Errorf("number 3, in no row of addresses, named %q, want an error", got)
	}
}

// memoryWorkspace is a database in memory with the workspace w and the
// rows the statements add, closed when the test ends.
func memoryWorkspace(t *testing.T, statements ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, q := range append([]string{SQLiteSchema,
		`INSERT INTO workspaces (name, lineage, format_version, created_at) VALUES ('w', 'l', 1, '2026-01-01T00:00:00.000000000Z')`,
	}, statements...) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return db
}
