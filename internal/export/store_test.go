package export

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
	"github.com/leadsync/leadsync/internal/testenv"
)

// storeConfig has an export of each format whose sheets ask every
// question of the store: rows with and without dedupe over several
// searches, only_new, a where, an exclude list by domain (matched by a
// colleague's enrichment: Base.CompanyDomains) and a changes sheet
// (Base.Changed).
const storeConfig = `
api {
  sandbox = true
}
search "cto" {
  for_each = toset(["a", "b", "c"])
  keywords = "CTO"
  city     = each.value
}
enrich "contacts" {
  from = [search.cto]
}
exclude "customers" {
  file   = "customers.csv"
  column = "Domain"
  by     = "domain"
}
export "book" {
  path = "out/book.xlsx"
  sheet "All" {
    from = [search.cto]
  }
  sheet "Per search" {
    from   = [search.cto]
    dedupe = false
  }
  sheet "New" {
    from     = [search.cto]
    only_new = true
  }
  sheet "Engineers" {
    from  = [search.cto]
    where = person.title == "Engineer"
  }
  sheet "Valid" {
    from  = [search.cto]
    where = person.validationStatus == "valid" && person.email != "" && person.company != "Company 1"
  }
  sheet "Changes" {
    changes = [search.cto]
  }
}
export "files" {
  path = "out/files.csv"
  sheet "All" {
    from = [search.cto]
  }
  sheet "Changes" {
    changes = [search.cto]
  }
}
`

// storeState is a state of 40 people found by three searches (which
// overlap), run twice: the second run saw new titles (history) and new
// people (only_new); a third of the people are enriched, some at a
// company an exclude list names by domain.
func storeState(t *testing.T) *state.State {
	t.Helper()
	st := state.New()
	run := func(at time.Time, city string, from, to int, title string) {
		var leads []person.Lead
		for i := from; i < to; i++ {
			id := fmt.Sprintf("%02d", i)
			l := person.Lead{NetworkID: "n-" + id, PageName: "p" + id, FullName: "Person " + id, Title: title, Company: fmt.Sprintf("Company %d", i%4)}
			if i%5 == 0 {
				l.Title = "Engineer"
			}
			leads = append(leads, l)
		}
		body := []byte(`{"keywords":"CTO","city":"` + city + `"}`)
		must(t, st.Fold(state.Event{At: at, Kind: state.EventSearch, Address: `search.cto["` + city + `"]`, Search: &state.SearchEvent{
			Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads}}))
	}
	run(t0, "a", 0, 20, "CTO")
	run(t0, "b", 10, 30, "CTO")
	run(t0, "c", 25, 35, "CTO")
	for i := 0; i < 40; i += 3 {
		id := fmt.Sprintf("%02d", i)
		must(t, st.Fold(state.Event{At: t0.Add(time.Hour), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{
			PersonID: "n-" + id, Credits: 1, Result: person.EnrichedProfile{NetworkID: "n-" + id, PageName: "p" + id,
				Email: "p" + id + "@example.com", ValidationStatus: person.StatusValid, CompanyDomain: fmt.Sprintf("company%d.example", i%4)}}}))
	}
	run(t1, "a", 0, 20, "VP Engineering")
	run(t1, "c", 25, 40, "CTO")
	return st
}

// TestWriteFromTheStore: an export written from a stored Base (the
// SQLite database the local backend writes, and PostgreSQL with
// LEADSYNC_TEST_PG), reading its people two at a time, is the export
// written from the state in memory in one page: the same cells in every
// sheet of the workbook, the Summary's among them, and the same CSV
// bytes. So is the state in memory read two at a time: a page lost or
// read twice shows.
func TestWriteFromTheStore(t *testing.T) {
	t.Run("exclude", func(t *testing.T) { writeFromTheStore(t, storeConfig) })
	// Without exclude blocks a sheet's where and only_new read the
	// columns they name alone (sheetColumns).
	t.Run("no exclude", func(t *testing.T) { writeFromTheStore(t, withoutExclude(storeConfig)) })
}

// withoutExclude is src without its exclude block.
func withoutExclude(src string) string {
	start := strings.Index(src, "exclude \"customers\"")
	end := start + strings.Index(src[start:], "}\n") + 2
	return src[:start] + src[end:]
}

// writeFromTheStore is TestWriteFromTheStore of the configuration src.
func writeFromTheStore(t *testing.T, src string) {
	st := storeState(t)
	want := writeStoreExports(t, src, state.NewBase(st), 0)
	t.Run("memory, in pages", func(t *testing.T) {
		sameExports(t, want, writeStoreExports(t, src, state.NewBase(st), 2))
	})
	t.Run("sqlite", func(t *testing.T) {
		store := local.NewStore(filepath.Join(t.TempDir(), "state.db"))
		defer store.Close()
		must(t, store.Save(st))
		b, err := store.OpenBase()
		must(t, err)
		defer b.Close()
		if !b.Stored() {
			t.Fatal("the database's Base reads the state whole")
		}
		sameExports(t, want, writeStoreExports(t, src, b, 2))
	})
	t.Run("pg", func(t *testing.T) {
		cs := os.Getenv("LEADSYNC_TEST_PG")
		if cs == "" {
			testenv.Skip(t, "needs PostgreSQL: source .ci/pg-start (it sets LEADSYNC_TEST_PG)")
		}
		var r [6]byte
		_, _ = rand.Read(r[:])
		schema := "export_" + hex.EncodeToString(r[:])
		t.Cleanup(func() {
			ctx := context.Background()
			c, err := pgx.Connect(ctx, cs)
			must(t, err)
			defer c.Close(ctx)
			_, err = c.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
			must(t, err)
		})
		be, err := pg.New(pg.Options{ConnStr: cs, Schema: schema})
		must(t, err)
		defer be.Close()
		must(t, be.Push(st, true))
		b, err := be.OpenBase()
		must(t, err)
		defer b.Close()
		if !b.Stored() {
			t.Fatal("PostgreSQL's Base reads the state whole")
		}
		sameExports(t, want, writeStoreExports(t, src, b, 2))
	})
}

// writeStoreExports writes the exports of src (storeConfig, or a
// variant) from b, its people read page at a time (0: state.PeoplePage),
// into a folder of their own, and returns the folder.
func writeStoreExports(t *testing.T, src string, b *state.Base, page int) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "customers.csv"), []byte("Domain\ncompany1.example\n"), 0o644))
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	b.SetPage(page)
	last := t0.Add(2 * time.Hour) // the Summary counts the people new since
	for _, x := range cfg.Exports {
		if _, err := Write(cfg, x, b, Options{Now: fixedNow, LastWritten: &last}); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// sameExports compares the files two writeStoreExports wrote: every
// sheet's cells of the workbook, the CSV files' bytes.
func sameExports(t *testing.T, wantDir, gotDir string) {
	t.Helper()
	wf, gf := openXLSX(t, filepath.Join(wantDir, "out", "book.xlsx")), openXLSX(t, filepath.Join(gotDir, "out", "book.xlsx"))
	sheets := wf.GetSheetList()
	if d := cmp.Diff(sheets, gf.GetSheetList()); d != "" {
		t.Fatalf("the workbook's sheets differ (-memory +store):\n%s", d)
	}
	for _, sh := range sheets {
		want := rows(t, wf, sh)
		if d := cmp.Diff(want, rows(t, gf, sh)); d != "" {
			t.Errorf("sheet %q differs (-memory +store):\n%s", sh, d)
		}
		if sh != "Summary" && len(want) < 3 {
			t.Errorf("sheet %q has %d rows: the fixture should fill every sheet", sh, len(want))
		}
	}
	files, err := filepath.Glob(filepath.Join(wantDir, "out", "files*.csv"))
	must(t, err)
	if len(files) != 3 {
		t.Fatalf("CSV files %v, want two sheets and a summary", files)
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		must(t, err)
		got, err := os.ReadFile(filepath.Join(gotDir, "out", filepath.Base(f)))
		must(t, err)
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs:\n%s", filepath.Base(f), cmp.Diff(string(want), string(got)))
		}
	}
	if !slices.Contains(sheets, "Changes") {
		t.Errorf("no changes sheet in %v", sheets)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// failingStore is a store of the state st whose reads of people fail
// from the failAt-th on.
type failingStore struct {
	st       *state.State
	reads    int
	failAt   int
	underway atomic.Int32 // reads of people under way
}

func (f *failingStore) Get(ids []string) ([]*state.Person, error) {
	f.underway.Add(1)
	defer f.underway.Add(-1)
	f.reads++
	if f.reads >= f.failAt {
		return nil, fmt.Errorf("the database went away")
	}
	var out []*state.Person
	for _, id := range ids {
		if p := f.st.People[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (f *failingStore) After(string, int) ([]*state.Person, error) { return nil, nil }
func (f *failingStore) Tracks() ([]string, error)                  { return nil, nil }
func (f *failingStore) LeadIDs(addr string) ([]string, error) {
	return f.st.Searches[addr].LeadIDs, nil
}
func (f *failingStore) Tracked(string) ([]string, error)  { return nil, nil }
func (f *failingStore) Enriched(string) ([]string, error) { return nil, nil }
func (f *failingStore) CountEnriched(string) (int, error) { return 0, nil }
func (f *failingStore) Names() (state.Names, error)       { return state.Names{}, nil }
func (f *failingStore) Naming([]string) ([]string, error) { return nil, nil }
func (f *failingStore) IDs(string, int) ([]string, error) { return nil, nil }
func (f *failingStore) Facts(q *time.Time) (state.PeopleFacts, error) {
	return f.st.Facts(q), nil
}
func (f *failingStore) Changed() ([]string, error) { return state.NewBase(f.st).Changed() }
func (f *failingStore) Exist(ids []string) ([]string, error) {
	var out []string
	for _, id := range ids {
		if f.st.People[id] != nil {
			out = append(out, id)
		}
	}
	return out, nil
}
func (f *failingStore) CompanyDomains(keep func(string) bool) ([]state.CompanyDomain, error) {
	return state.NewBase(f.st).CompanyDomainsOf(keep)
}
func (f *failingStore) Close() error { return nil }

// TestStoreFailingMidExportWritesNothing: when the store fails while the
// writer reads the people of its rows, Write fails with the store's
// error and leaves the file as it was (a CSV file and a workbook alike),
// rather than writing the rows it could not read as empty ones. The
// people are read two at a time: the second and fifth reads are reads
// ahead (rowPeople), made while the rows of the page before are
// written. Once Write has returned no read is under way.
func TestStoreFailingMidExportWritesNothing(t *testing.T) {
	st := storeState(t)
	for _, name := range []string{"out/all.csv", "out/all.xlsx"} {
		for _, failAt := range []int{1, 2, 5} {
			t.Run(fmt.Sprintf("%s, read %d", name, failAt), func(t *testing.T) {
				sh := &config.Sheet{Name: "All", From: []string{"search.cto"}, Dedupe: true}
				cfg, _ := fixture(name, sh)
				cfg.Dir = t.TempDir()
				cfg.Searches = []*config.Search{{Address: `search.cto["a"]`, Addr: typed(`search.cto["a"]`), Block: "search.cto", Name: "cto"}}
				sh.From = []string{`search.cto["a"]`}
				rec := *st
				rec.People = nil
				store := &failingStore{st: st, failAt: failAt}
				b := state.NewStoredBase(&rec, nil, store)
				b.SetPage(2)
				_, err := Write(cfg, cfg.Exports[0], b, Options{Now: fixedNow})
				if err == nil || !strings.Contains(err.Error(), "the database went away") {
					t.Fatalf("Write: %v, want the store's error", err)
				}
				if n := store.underway.Load(); n != 0 {
					t.Errorf("%d reads under way once Write returned", n)
				}
				if files, _ := filepath.Glob(filepath.Join(cfg.Dir, "out", "*")); len(files) > 0 {
					t.Errorf("files written: %v", files)
				}
			})
		}
	}
}
