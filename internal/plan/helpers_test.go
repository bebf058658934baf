package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// t0 is the time every test plans at.
var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

const day = 24 * time.Hour

// fixture builds a configuration and a state directly in Go.
type fixture struct {
	cfg    *config.Config
	st     *state.State
	exists map[string]bool // export files that exist
	// records are the working copy's export records, by export address.
	records map[string]*ExportRecord
	// spent counts the enrichments recorded by enriched: each answer
	// reports a balance of 500 minus them, as the service would.
	spent int
	// truth, when set, gives the lead a search of the simulated apply
	// finds for a person ID (property_test.go).
	truth func(id string) person.Lead
}

func newFixture() *fixture {
	st := state.New()
	st.Lineage = "00000000-0000-4000-8000-000000000001"
	st.Serial = 7
	return &fixture{
		cfg: &config.Config{
			Dir:  "/work/leads",
			Hash: "c0ffee",
			API: config.API{
				BaseURL: "https://api.example.com", Generation: api.Gen1,
				RateLimit: 1, Parallelism: 4, CreditsPerEnrich: 1,
				MaxCredits: 500, MinRemainingRequests: 100,
			},
			Variables: map[string]*config.Variable{},
		},
		st:      st,
		exists:  map[string]bool{},
		records: map[string]*ExportRecord{},
	}
}

// search declares a search instance; addr is its instance address.
func (f *fixture) search(addr string, params map[string]any, mod ...func(*config.Search)) *config.Search {
	blk := blockOf(addr)
	s := &config.Search{Address: addr, Addr: typed(addr), Block: blk, Name: strings.TrimPrefix(blk, "search."),
		Request: api.SearchRequest{Params: params}}
	for _, m := range mod {
		m(s)
	}
	f.cfg.Searches = append(f.cfg.Searches, s)
	sort.Slice(f.cfg.Searches, func(i, j int) bool { return f.cfg.Searches[i].Address < f.cfg.Searches[j].Address })
	return s
}

func maxResults(n int) func(*config.Search)        { return func(s *config.Search) { s.MaxResults = n } }
func refresh(d time.Duration) func(*config.Search) { return func(s *config.Search) { s.Refresh = d } }
func kw(k string, more ...string) map[string]any {
	m := map[string]any{"keywords": k}
	for i := 0; i+1 < len(more); i += 2 {
		m[more[i]] = more[i+1]
	}
	return m
}

func (f *fixture) profile(addr, page string) *config.Profile {
	p := &config.Profile{Address: addr, Addr: typed(addr), Block: blockOf(addr), Name: strings.TrimPrefix(addr, "profile."),
		Request: api.PageRequest{PageName: page}, PageName: page}
	f.cfg.Profiles = append(f.cfg.Profiles, p)
	sort.Slice(f.cfg.Profiles, func(i, j int) bool { return f.cfg.Profiles[i].Address < f.cfg.Profiles[j].Address })
	return p
}

func (f *fixture) enrich(name string, from []string, limit int, refresh time.Duration) *config.Enrich {
	e := &config.Enrich{Address: "enrich." + name, Addr: typed("enrich." + name), Name: name, From: from, Limit: limit, Refresh: refresh}
	f.cfg.Enriches = append(f.cfg.Enriches, e)
	return e
}

func (f *fixture) export(name, path string, from ...string) *config.Export {
	x := &config.Export{Address: "export." + name, Addr: typed("export." + name), Name: name, Path: path, Format: "xlsx",
		Sheets: []*config.Sheet{{Name: "Leads", From: from, Columns: config.DefaultColumns, Dedupe: true}}}
	f.cfg.Exports = append(f.cfg.Exports, x)
	return x
}

// wrote marks the export at addr as written now, from the state as it is
// and the configuration as it is: its files exist and the working copy
// records the write, as apply and leadsync export do.
func (f *fixture) wrote(addr string) {
	for _, x := range f.cfg.Exports {
		if x.Address != addr {
			continue
		}
		data, summary := x.Files()
		if summary != "" {
			data = append(data, summary)
		}
		for _, file := range data {
			f.exists[f.cfg.Dir+"/"+file] = true
		}
		f.records[addr] = &ExportRecord{ConfigDigest: f.cfg.ExportDigest(x), From: f.st.DataMark()}
		return
	}
	panic("no export " + addr)
}

// lead returns the lead of person n, with a company unless noCompany.
func lead(id string) person.Lead {
	return person.Lead{FirstName: "P", LastName: id, FullName: "P " + id, Title: "CTO",
		Company: "Co " + id, NetworkID: id, PageName: "page-" + id, Location: "Berlin, Germany"}
}

// ran records a run of a configured search at at, returning leads ids.
func (f *fixture) ran(addr string, at time.Time, ids ...string) {
	var s *config.Search
	for _, x := range f.cfg.Searches {
		if x.Address == addr {
			s = x
		}
	}
	req := api.SearchRequest{Params: kw("removed")}
	mr := 0
	if s != nil {
		req, mr = s.Request, s.MaxResults
	}
	f.ranRequest(addr, at, req, mr, ids...)
}

func (f *fixture) ranRequest(addr string, at time.Time, req api.SearchRequest, mr int, ids ...string) {
	body, _ := json.Marshal(req)
	leads := make([]person.Lead, len(ids))
	for i, id := range ids {
		leads[i] = lead(id)
	}
	f.apply(state.Event{At: at, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{
		Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body),
		Leads: leads, MaxResults: mr,
	}})
}

func (f *fixture) read(addr string, at time.Time) {
	var p *config.Profile
	for _, x := range f.cfg.Profiles {
		if x.Address == addr {
			p = x
		}
	}
	body, _ := json.Marshal(p.Request)
	f.apply(state.Event{At: at, Kind: state.EventProfile, Address: addr, Profile: &state.ProfileEvent{
		Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body),
		PageName: p.PageName, Profile: person.Profile{FullName: "Max Mustermann",
			CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "Startup"}}},
	}})
}

func (f *fixture) enriched(id, by string, at time.Time) {
	p := f.st.People[id]
	l := p.Lead
	f.spent++
	f.apply(state.Event{At: at, Kind: state.EventEnrich, Address: by, Enrich: &state.EnrichEvent{
		PersonID: id, Credits: 1, Result: person.EnrichedProfile{NetworkID: l.NetworkID, PageName: l.PageName,
			FullName: l.FullName, Email: "x@example.com", ValidationStatus: "valid", CreditBalance: 500 - f.spent},
	}})
}

func (f *fixture) apply(ev state.Event) {
	if err := f.st.Fold(ev); err != nil {
		panic(err)
	}
}

func (f *fixture) opts() Options {
	rem := 9114
	return Options{Now: t0, Usage: &api.Usage{RemainingRequests: rem},
		FileExists:   func(p string) bool { return f.exists[p] },
		ExportRecord: func(addr string) *ExportRecord { return f.records[addr] }}
}

func (f *fixture) build(t *testing.T, o Options) *Plan {
	t.Helper()
	p, diags := Build(f.cfg, f.st, o)
	if diags.HasErrors() {
		t.Fatalf("Build: %s", diags.Error())
	}
	return p
}

// ids returns "1".."n" offset by from.
func ids(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%d.%04x", from+i, from+i)
	}
	return out
}

// whereCompany gives e a where for tests: the plan only needs Match,
// which the config package implements and the tests replace (match:
// useTestMatch reads the company, useNumberMatch the last name). It
// names both fields, so that the people read in sketch are given both
// (whereSketches).
func whereCompany(e *config.Enrich) {
	x, diags := hclsyntax.ParseExpression([]byte(`lead.company != "" || lead.lastName != ""`), "where.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		panic(diags.Error())
	}
	e.Where = x
}

// useTestMatch replaces the where evaluation for the test: a lead passes
// when it has a company.
func useTestMatch(t *testing.T) {
	old := match
	match = func(_ *config.Config, e *config.Enrich, l person.Lead) (bool, error) {
		if e.Where == nil {
			return true, nil
		}
		return l.Company != "", nil
	}
	t.Cleanup(func() { match = old })
}

func failure(addr string, at time.Time, msg string) state.Event {
	return state.Event{At: at, Kind: state.EventFailure, Address: addr, Failure: &state.Failure{At: at, Message: msg, Status: 400}}
}

// EnrichCandidatesClaimed is what apply's Candidates.Claimed returns in a
// run with no exclude block, reuse or earlier pass: the people enrich
// block e should claim next (env.claimed), for the tests that compare it
// with the plan.
func EnrichCandidatesClaimed(cfg *config.Config, st *state.State, e *config.Enrich, now time.Time, claims Claims) ([]string, error) {
	return newEnv(cfg, st, now).claimed(e, claims)
}

// TrackedPeople returns the people track block t watches in st, in the
// order the plan reads them (env.trackPeople).
func TrackedPeople(cfg *config.Config, st *state.State, t *config.Track, now time.Time) []*state.Person {
	v := newEnv(cfg, st, now)
	var out []*state.Person
	v.trackPeople(t, func(tp trackee) {
		if tp.p == nil {
			tp.p = st.TrackSketches().Person(int(tp.i))
		}
		out = append(out, tp.p)
	})
	return out
}

// typed is the typed address of a block a test declares by hand (the
// loader gives each block its own).
func typed(addr string) address.Address {
	a, err := address.Parse(addr)
	if err != nil {
		panic(err)
	}
	return a
}

// fromEnv is the number the environment variable name gives (a test's
// worlds widened locally), or n when it gives none.
func fromEnv(name string, n int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return n
}
