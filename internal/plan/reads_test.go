package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestReadsMakeTheSamePlan plans random worlds (randomWorld, some without
// the blocks that read people in bulk, many with an export: worldExport)
// with random targets twice: over
// the whole state, and over what a store gives for ReadsOf through
// state.Base.Reading (the records, read without the searches' lead lists,
// then the lead lists of Reads.Searches and the people of Reads.Persons).
// The plans must be the same, byte for byte. A world whose plan reads
// every person goes through EnrichReadsOf too (samePlanOfEnrich).
func TestReadsMakeTheSamePlan(t *testing.T) {
	useTestMatch(t)
	defer func(n int) { sheetRowLimit = n }(sheetRowLimit)
	partial, continued, enriched := 0, 0, 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x2ead))
		f, o := randomWorld(rng)
		if rng.IntN(3) == 0 {
			// Only searches and profiles: a whole plan reads no person.
			f.cfg.Enriches, f.cfg.Tracks, f.cfg.Exports, f.cfg.Imports = nil, nil, nil, nil
			o.Targets, o.Replace = nil, nil
		}
		if rng.IntN(3) != 0 {
			// A few rows a worksheet: the sheets of people are continued.
			sheetRowLimit = 2 + rng.IntN(20)
			worldExport(rng, f, &o)
		}
		if len(f.cfg.Profiles) > 0 && rng.IntN(2) == 0 {
			// A second block of a page read before shares its read while
			// its person is in the state.
			f.profile("profile.same", f.cfg.Profiles[0].PageName)
		}
		o.Targets = append(o.Targets, randomTargets(rng, f)...)
		if CheckAddresses(f.cfg, f.st, o.Targets, o.Replace).HasErrors() {
			o.Targets = append(o.Targets, o.Replace...)
		}
		r := ReadsOf(f.cfg, state.NewBase(f.st).Records, o)
		if r.People {
			enriched += samePlanOfEnrich(t, seed, f, o)
			continue
		}
		partial++
		b := storedBase(f.st)
		st, err := b.Reading(r.Searches, r.Persons)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if len(st.People) > len(r.Persons) {
			t.Fatalf("seed %d: %d people read for %d asked", seed, len(st.People), len(r.Persons))
		}
		got, _ := Build(f.cfg, st, o)
		want, _ := Build(f.cfg, f.st, o)
		if c := want.Change("export.x"); c != nil && c.Continued != nil {
			continued++
		}
		if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
			t.Fatalf("seed %d (targets %q, replace %q, reads %+v): the plan over what ReadsOf names differs (-whole +read):\n%s",
				seed, o.Targets, o.Replace, r, d)
		}
	}
	t.Logf("%d of 400 worlds planned from what ReadsOf names, %d of them an export of continued sheets; %d from what EnrichReadsOf names",
		partial, continued, enriched)
	if partial < 150 || continued < 50 {
		t.Fatalf("only %d of 400 worlds planned without every person, %d with continued sheets: the test no longer tests ReadsOf", partial, continued)
	}
}

// worldExport declares export.x: one to three sheets of random sources
// (searches that ran and did not, blocks, a split search, profiles, the
// import, an enrich block), some a sheet of changes, written as a
// workbook mostly, sometimes as CSV; some worlds wrote it already, some
// target it.
func worldExport(rng *rand.Rand, f *fixture, o *Options) {
	var refs []string
	for _, s := range f.cfg.Searches {
		refs = append(refs, s.Address, blockOf(s.Address))
	}
	for _, p := range f.cfg.Profiles {
		refs = append(refs, p.Address)
	}
	for _, im := range f.cfg.Imports {
		refs = append(refs, im.Address)
	}
	for _, e := range f.cfg.Enriches {
		refs = append(refs, e.Address)
	}
	x := f.export("x", "out/x.xlsx")
	x.Sheets = nil
	for i := range 1 + rng.IntN(3) {
		sh := &config.Sheet{Name: fmt.Sprintf("S%d", i), Columns: config.DefaultColumns, Dedupe: true}
		for len(sh.From) == 0 {
			for _, r := range refs {
				if rng.IntN(3) == 0 {
					sh.From = append(sh.From, r)
				}
			}
		}
		if rng.IntN(5) == 0 {
			sh.Changes, sh.From = sh.From, nil
		}
		x.Sheets = append(x.Sheets, sh)
	}
	if rng.IntN(5) == 0 {
		x.Format, x.Path = "csv", "out/x.csv"
	}
	if rng.IntN(4) == 0 {
		f.wrote(x.Address)
		o.ExportRecord = func(a string) *ExportRecord { return f.records[a] }
	}
	if rng.IntN(2) == 0 {
		o.Targets = append(o.Targets, x.Address) // with its sources
	}
}

// randomTargets are none, or a few searches, profiles, imports and exports of f's
// configuration and state.
func randomTargets(rng *rand.Rand, f *fixture) []string {
	var pool []string
	for _, s := range f.cfg.Searches {
		pool = append(pool, s.Address, blockOf(s.Address))
	}
	for _, p := range f.cfg.Profiles {
		pool = append(pool, p.Address)
	}
	for _, im := range f.cfg.Imports {
		pool = append(pool, im.Address)
	}
	for _, x := range f.cfg.Exports {
		pool = append(pool, x.Address)
	}
	for a := range f.st.Searches {
		pool = append(pool, a)
	}
	slices.Sort(pool)
	pool = slices.Compact(pool)
	var out []string
	for range rng.IntN(3) {
		out = append(out, pool[rng.IntN(len(pool))])
	}
	return out
}

func planJSON(t *testing.T, p *Plan) string {
	t.Helper()
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// storedBase is the Base a store gives of st: records read without the
// searches' lead lists (kept counts them) and people read by ID.
func storedBase(st *state.State) *state.Base {
	rec := *state.NewBase(st).Records
	rec.Searches = map[string]*state.Search{}
	kept := map[string]int{}
	for a, sr := range st.Searches {
		cp := *sr
		cp.LeadIDs = nil
		rec.Searches[a] = &cp
		kept[a] = len(sr.LeadIDs)
	}
	return state.NewStoredBase(&rec, kept, memStore{st})
}

// memStore answers a Base's questions from a state in memory, as a store
// answers them from its tables; what a plan never asks is an error.
type memStore struct{ st *state.State }

func (m memStore) Get(ids []string) ([]*state.Person, error) {
	var out []*state.Person
	for _, id := range ids {
		if p := m.st.People[id]; p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (m memStore) LeadIDs(addr string) ([]string, error) {
	return m.st.Searches[addr].LeadIDs, nil
}

var errNotAsked = errors.New("a plan does not ask this")

func (memStore) After(string, int) ([]*state.Person, error)     { return nil, errNotAsked }
func (memStore) Tracks() ([]string, error)                      { return nil, errNotAsked }
func (memStore) Tracked(string) ([]string, error)               { return nil, errNotAsked }
func (memStore) Enriched(string) ([]string, error)              { return nil, errNotAsked }
func (memStore) CountEnriched(string) (int, error)              { return 0, errNotAsked }
func (memStore) IDs(string, int) ([]string, error)              { return nil, errNotAsked }
func (memStore) Facts(*time.Time) (state.PeopleFacts, error)    { return state.PeopleFacts{}, errNotAsked }
func (memStore) Names() (state.Names, error)                    { return state.Names{}, errNotAsked }
func (memStore) Naming([]string) ([]string, error)              { return nil, errNotAsked }
func (memStore) Changed() ([]string, error)                     { return nil, errNotAsked }
func (memStore) Exist([]string) ([]string, error)               { return nil, errNotAsked }
func (memStore) CompanyDomains() ([]state.CompanyDomain, error) { return nil, errNotAsked }
func (memStore) Close() error                                   { return nil }
