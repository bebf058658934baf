package local

import (
	"database/sql"
	"os"
	"runtime"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
	"github.com/leadsync/leadsync/internal/testenv"
)

// BenchmarkReadWhole reads whole every other person of the state.db
// named by LEADSYNC_BENCH_DB (a bench state, read only), by ID, as a
// plan reads the people it will enrich (state.Base.People):
//
//	LEADSYNC_BENCH_DB=/tmp/bp300k5/.leadsync/state.db go test ./internal/state/local -run '^$' -bench ReadWhole -benchmem -benchtime 3x
func BenchmarkReadWhole(b *testing.B) {
	path := os.Getenv("LEADSYNC_BENCH_DB")
	if path == "" {
		testenv.Skip(b, "LEADSYNC_BENCH_DB names no state.db")
	}
	ids := everyOther(b, path)
	store := NewStore(path)
	base, err := store.OpenBase()
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	var got map[string]*state.Person
	for i := 0; i < b.N; i++ {
		got = nil
		if got, err = base.People(ids); err != nil {
			b.Fatal(err)
		}
		if len(got) != len(ids) {
			b.Fatalf("%d people of %d", len(got), len(ids))
		}
	}
	b.StopTimer()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapAlloc)/1e6, "heap-MB")
	runtime.KeepAlive(got)
}

// everyOther is every other person's ID of the database at path.
func everyOther(b *testing.B, path string) []string {
	db, err := sql.Open("sqlite", path+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id FROM people WHERE rowid % 2 = 0")
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			b.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

// BenchmarkPeopleValues lists every person's values of the state.db
// named by LEADSYNC_BENCH_DB (state.ValueLister), as a plan with exclude
// blocks does.
func BenchmarkPeopleValues(b *testing.B) {
	path := os.Getenv("LEADSYNC_BENCH_DB")
	if path == "" {
		testenv.Skip(b, "LEADSYNC_BENCH_DB names no state.db")
	}
	base, err := NewStore(path).OpenBase()
	if err != nil {
		b.Fatal(err)
	}
	defer base.Close()
	b.ResetTimer()
	defer statetest.CPUMetric(b)()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := base.PeopleValues(func(id, company, pageName, networkID []byte) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			b.Fatal("no people")
		}
	}
}
