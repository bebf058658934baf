package run

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

var errBrokenStore = errors.New("the store broke")

// brokenStore is a store that counts nobody's names and fails every
// read of a person.
type brokenStore struct{}

func (brokenStore) Get([]string) ([]*state.Person, error)      { return nil, errBrokenStore }
func (brokenStore) After(string, int) ([]*state.Person, error) { return nil, errBrokenStore }
func (brokenStore) Tracks() ([]string, error)                  { return nil, errBrokenStore }
func (brokenStore) LeadIDs(string) ([]string, error)           { return nil, errBrokenStore }
func (brokenStore) Tracked(string) ([]string, error)           { return nil, errBrokenStore }
func (brokenStore) Enriched(string) ([]string, error)          { return nil, errBrokenStore }
func (brokenStore) CountEnriched(string) (int, error)          { return 0, errBrokenStore }
func (brokenStore) IDs(string, int) ([]string, error)          { return nil, errBrokenStore }
func (brokenStore) Changed() ([]string, error)                 { return nil, errBrokenStore }
func (brokenStore) Exist([]string) ([]string, error)           { return nil, errBrokenStore }
func (brokenStore) CompanyDomains(func(string) bool) ([]state.CompanyDomain, error) {
	return nil, errBrokenStore
}
func (brokenStore) Naming([]string) ([]string, error) { return nil, errBrokenStore }
func (brokenStore) Paged([]string) ([]string, error)  { return nil, errBrokenStore }
func (brokenStore) Close() error                      { return nil }
func (brokenStore) Facts(*time.Time) (state.PeopleFacts, error) {
	return state.PeopleFacts{}, errBrokenStore
}
func (brokenStore) Names() (state.Names, error) { return state.NamesOf(nil), nil }

// brokenReads is a workspace whose Base reads its records and then
// fails to read any person (brokenStore).
type brokenReads struct{ backend.Backend }

func (b brokenReads) Unwrap() backend.Backend  { return b.Backend }
func (brokenReads) ReadsPeopleOnRequest() bool { return true }
func (b brokenReads) OpenBase() (*state.Base, error) {
	s, err := b.Backend.Load()
	if err != nil {
		return nil, err
	}
	s.People = nil
	return state.NewStoredBase(s, nil, brokenStore{}), nil
}

// TestForgetStopsOnAFailedRead: forget reads what it needs before the
// erasure is recorded: when a read fails, nothing is written (no
// erasure record, no journal, the state as before), and the next forget
// erases the person.
func TestForgetStopsOnAFailedRead(t *testing.T) {
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	set := local.NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.db"), nil)
	b, err := set.Open("default")
	if err != nil {
		t.Fatal(err)
	}
	max := person.Lead{NetworkID: "1.a", PageName: "Max_M", FullName: "Max M"}
	s := state.New()
	if err := s.Fold(state.Event{At: at, Kind: state.EventSearch, Address: "search.cto", Search: &state.SearchEvent{
		Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`), Leads: []person.Lead{max}}}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(s); err != nil {
		t.Fatal(err)
	}
	for _, ident := range []string{"Max_M", "1.a", "person.1.a"} {
		_, err := Forget(Deps{Backend: brokenReads{b}, Now: func() time.Time { return at }}, ForgetOptions{People: []string{ident}})
		if !errors.Is(err, errBrokenStore) {
			t.Fatalf("forget %s with reads failing: %v, want the store's error", ident, err)
		}
	}
	after, err := b.Load()
	if err != nil {
		t.Fatal(err)
	}
	k, _ := backend.ErasuresOf(b)
	rec, err := k.Erasures()
	if err != nil {
		t.Fatal(err)
	}
	if after.People["1.a"] == nil || len(after.Suppressed) != 0 || len(rec) != 0 || after.Serial != s.Serial {
		t.Fatalf("a forget whose reads failed wrote something: people %d, suppressed %d, erasure record %d, serial %d (was %d)",
			len(after.People), len(after.Suppressed), len(rec), after.Serial, s.Serial)
	}
	res, err := Forget(Deps{Backend: b, Now: func() time.Time { return at }}, ForgetOptions{People: []string{"max_m"}})
	if err != nil || res.People[0].Outcome != ForgetRemoved || !strings.EqualFold(res.People[0].Person.Lead.PageName, "max_m") {
		t.Fatalf("the next forget: %+v, %v", res, err)
	}
}
