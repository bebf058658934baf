package export

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// listsStore is a streamStore that reads lead lists at once
// (state.LeadLister) and counts the questions: LeadIDs and LeadLists
// asked, and the number of IDs of each Exist.
type listsStore struct {
	streamStore
	mu        sync.Mutex
	leadIDs   int
	leadLists int
	exist     []int
}

func (s *listsStore) LeadIDs(addr string) ([]string, error) {
	s.mu.Lock()
	s.leadIDs++
	s.mu.Unlock()
	return s.streamStore.LeadIDs(addr)
}

func (s *listsStore) LeadLists(addrs []string) (map[string][]string, error) {
	s.mu.Lock()
	s.leadLists++
	s.mu.Unlock()
	out := map[string][]string{}
	for _, a := range addrs {
		out[a] = s.st.Searches[a].LeadIDs
	}
	return out, nil
}

func (s *listsStore) Exist(ids []string) ([]string, error) {
	s.mu.Lock()
	s.exist = append(s.exist, len(ids))
	s.mu.Unlock()
	return s.streamStore.Exist(ids)
}

// bulkConfig is an export whose sheet asks only which of its searches'
// people exist.
const bulkConfig = `
api {
  sandbox = true
}
search "cto" {
  for_each = toset(["a", "b", "c"])
  keywords = "CTO"
  city     = each.value
}
export "all" {
  path = "out/all.csv"
  sheet "All" {
    from = [search.cto]
  }
}
`

// writeBulk writes bulkConfig's export from b, read two people at a
// time, and returns the file's bytes.
func writeBulk(t *testing.T, b *state.Base) []byte {
	t.Helper()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(bulkConfig), 0o644))
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	b.SetPage(2)
	if _, err := Write(cfg, cfg.Exports[0], b, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	out, err := os.ReadFile(filepath.Join(dir, "out", "all.csv"))
	must(t, err)
	return out
}

// TestExportAsksTheStoreInBulk: from a store that streams pages of people
// (PostgreSQL), an export asks for its searches' lead lists together
// (Base.LeadLists), not one search a question, and asks which people
// exist many pages at a time (Base.ExistPage); its file is the one
// written from the state in memory.
func TestExportAsksTheStoreInBulk(t *testing.T) {
	st := storeState(t)
	want := writeBulk(t, state.NewBase(st))
	store := &listsStore{streamStore: streamStore{readsStore: readsStore{failingStore: failingStore{st: st, failAt: 1 << 30}}, failAfter: -1}}
	rec := *st
	rec.People = nil
	rec.Searches = maps.Clone(st.Searches)
	kept := map[string]int{}
	for addr, sr := range rec.Searches {
		c := *sr
		c.LeadIDs = nil
		rec.Searches[addr], kept[addr] = &c, len(sr.LeadIDs)
	}
	b := state.NewStoredBase(&rec, kept, store)
	if got := writeBulk(t, b); !bytes.Equal(want, got) {
		t.Errorf("the file differs from the one written from memory:\n%s", cmp.Diff(string(want), string(got)))
	}
	if store.leadIDs != 0 || store.leadLists == 0 {
		t.Errorf("LeadIDs asked %d times, LeadLists %d: want the lists read together", store.leadIDs, store.leadLists)
	}
	most := 0
	for _, n := range store.exist {
		most = max(most, n)
	}
	if most <= 2 || most > b.ExistPage() {
		t.Errorf("Exist asked of %v IDs at a time: want more than a page (2), at most %d", store.exist, b.ExistPage())
	}
}
