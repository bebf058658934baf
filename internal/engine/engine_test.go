package engine_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

// fakeService answers searches with people generated from the keywords,
// counts every call and can fail chosen calls.
type fakeService struct {
	mu       sync.Mutex
	calls    []string
	enriched map[string]int
	perQuery int              // people per search
	fail     map[string]error // by "search:<keywords>" or "enrich:<page>"
	block    chan struct{}    // when set, searches wait on it
	// paced calls ("search:<keywords>", "page:<page name>") wait on pacer
	// before they are sent, as calls wait for the rate limit: dispatched,
	// not in flight.
	paced   map[string]bool
	pacer   chan struct{}
	started chan string              // when set, receives every call start
	results map[string][]person.Lead // fixed results by keywords
	balance int
	// otherPerson makes the enrichment of a page name answer with this
	// network ID: an answer about someone else.
	otherPerson map[string]string
}

func newFake() *fakeService {
	return &fakeService{enriched: map[string]int{}, perQuery: 5, fail: map[string]error{}, results: map[string][]person.Lead{}, balance: 1000}
}

// pace waits on f.pacer when call is paced.
func (f *fakeService) pace(call string) {
	if f.paced[call] {
		<-f.pacer
	}
}

func (f *fakeService) note(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
	if f.started != nil {
		f.started <- s
	}
}

func (f *fakeService) Fields(context.Context) ([]api.Field, error) { return nil, errors.New("unused") }

func (f *fakeService) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	kw, _ := req.Params["keywords"].(string)
	f.pace("search:" + kw)
	if err := api.Started(ctx); err != nil {
		return nil, err
	}
	f.note("search:" + kw)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail["search:"+kw]; err != nil {
		return nil, err
	}
	if leads, ok := f.results[kw]; ok {
		return &api.SearchResult{Leads: leads}, nil
	}
	var leads []person.Lead
	for i := 0; i < f.perQuery; i++ {
		page := fmt.Sprintf("%s_%d", kw, i)
		leads = append(leads, person.Lead{FullName: page, PageName: page, NetworkID: fmt.Sprintf("%d.%x", len(kw)*100+i, i), Company: "ACME"})
	}
	return &api.SearchResult{Leads: leads}, nil
}

func (f *fakeService) Page(ctx context.Context, gen api.Generation, req api.PageRequest) (*person.Profile, error) {
	f.pace("page:" + req.PageName)
	if err := api.Started(ctx); err != nil {
		return nil, err
	}
	f.note("page:" + req.PageName)
	if f.block != nil {
		select {
		case <-f.block:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	f.mu.Lock()
	err := f.fail["page:"+req.PageName]
	f.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return &person.Profile{FullName: req.PageName, NetworkURL: "https://network.example/profile/" + req.PageName}, nil
}

func (f *fakeService) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	if err := api.Started(ctx); err != nil {
		return nil, err
	}
	f.note("enrich:" + req.PageName)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.fail["enrich:"+req.PageName]; err != nil {
		return nil, err
	}
	f.enriched[req.PageName]++
	f.balance--
	return &person.EnrichedProfile{PageName: req.PageName, NetworkID: f.otherPerson[req.PageName], Email: req.PageName + "@acme.example", ValidationStatus: person.StatusValid, CreditBalance: f.balance}, nil
}

func (f *fakeService) Billing(context.Context) (*api.Usage, error) {
	return &api.Usage{RemainingRequests: 10000, InvoicingStartDate: "2026-01-01"}, nil
}

func (f *fakeService) count(prefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range f.calls {
		if len(c) >= len(prefix) && c[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

// memJournal records events in memory; it fails after failAfter appends
// when failAfter > 0.
type memJournal struct {
	events    []state.Event
	failAfter int
}

func (j *memJournal) Append(e *state.Event) error {
	if j.failAfter > 0 && len(j.events) >= j.failAfter {
		return errors.New("disk full")
	}
	e.Seq = uint64(len(j.events) + 1)
	j.events = append(j.events, *e)
	return nil
}

// recProgress records the calls in the order the executor started them.
type recProgress struct {
	engine.NopProgress
	starts []engine.Call
}

func (p *recProgress) CallStart(c engine.Call) { p.starts = append(p.starts, c) }

func load(t testing.TB, src string) *config.Config {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	return cfg
}

func build(t *testing.T, cfg *config.Config, st *state.State) *plan.Plan {
	t.Helper()
	p, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true})
	if diags.HasErrors() {
		t.Fatalf("plan: %s", diags.Error())
	}
	return p
}

func run(t *testing.T, cfg *config.Config, st *state.State, p *plan.Plan, svc api.Service, j engine.Journal, stop chan struct{}) *engine.Summary {
	t.Helper()
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 }, Stop: stop,
	})
	if err != nil && !errors.Is(err, engine.ErrJournal) {
		t.Fatalf("run: %v", err)
	}
	return sum
}

const basic = `
api {
  sandbox     = true
  parallelism = 3
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
search "b" {
  keywords = "beta"
}
profile "p" {
  page_name = "Max_Mustermann"
}
enrich "all" {
  from = [search.a, search.b, profile.p]
}
`

func TestRunMakesThePlannedCallsAndRecordsThemFirst(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	j := &memJournal{}
	prog := &recProgress{}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: p, State: st, Journal: j, Service: svc,
		Now: func() time.Time { return t0 }, Progress: prog,
	})
	if err != nil {
		t.Fatal(err)
	}

	if got := svc.count("search:"); got != 2 {
		t.Errorf("searches = %d, want 2", got)
	}
	if got := svc.count("page:"); got != 1 {
		t.Errorf("profile reads = %d, want 1", got)
	}
	// 5 + 5 people from searches, 1 from the profile.
	if got := svc.count("enrich:"); got != 11 {
		t.Errorf("enrichments = %d, want 11", got)
	}
	if sum.Calls != len(svc.calls) || sum.Calls > p.Totals.CallsMax {
		t.Errorf("summary calls %d, service saw %d, plan said at most %d", sum.Calls, len(svc.calls), p.Totals.CallsMax)
	}
	if sum.Credits > p.Totals.CreditsMax {
		t.Errorf("credits %d above the plan's %d", sum.Credits, p.Totals.CreditsMax)
	}
	// Each enrichment is noted pending before it is sent, then completed.
	completed, pending := 0, map[string]bool{}
	for _, e := range j.events {
		switch e.Kind {
		case state.EventEnrichPending:
			pending[e.Enrich.PersonID] = true
		case state.EventEnrich:
			if !pending[e.Enrich.PersonID] {
				t.Errorf("enrichment of %s journaled without a pending note before it", e.Enrich.PersonID)
			}
			completed++
		default:
			completed++
		}
	}
	if completed != sum.Succeeded || len(pending) != sum.Enriched {
		t.Errorf("journal has %d completed calls and %d pending enrichments; %d calls succeeded, %d enrichments", completed, len(pending), sum.Succeeded, sum.Enriched)
	}
	if len(st.UnknownEnrichments) != 0 {
		t.Errorf("unknown enrichments left after a clean run: %v", st.UnknownEnrichments)
	}
	// Searches and profile reads are handed out before any enrichment:
	// Seq is given at dispatch (sends themselves race, as they should).
	maxSource, minEnrich := 0, 1<<30
	for _, c := range prog.starts {
		if c.Kind == kind.Enrich {
			minEnrich = min(minEnrich, c.Seq)
		} else {
			maxSource = max(maxSource, c.Seq)
		}
	}
	if maxSource > minEnrich {
		t.Errorf("a search or profile read (seq %d) was dispatched after an enrichment (seq %d)", maxSource, minEnrich)
	}
	// And a person is enriched only after the call that found them is in
	// the journal.
	found := map[string]bool{}
	for _, e := range j.events {
		switch e.Kind {
		case state.EventSearch:
			for _, l := range e.Search.Leads {
				found[l.PageName] = true
			}
		case state.EventProfile:
			found[e.Profile.PageName] = true
		case state.EventEnrich:
			if !found[e.Enrich.Result.PageName] {
				t.Errorf("%s enriched before the call that found them was recorded", e.Enrich.Result.PageName)
			}
		}
	}
	for name, n := range svc.enriched {
		if n != 1 {
			t.Errorf("%s enriched %d times", name, n)
		}
	}
	if sum.Failed() {
		t.Errorf("unexpected failures: %+v", sum.Failures)
	}

	// The same configuration again: nothing left to do.
	p2 := build(t, cfg, st)
	if p2.HasChanges() {
		for _, c := range p2.Changes {
			if c.CallsMax > 0 {
				t.Errorf("second plan still calls for %s (%s)", c.Address, c.Action)
			}
		}
	}
}

func TestRunNeverExceedsThePlanWhenSearchesReturnMore(t *testing.T) {
	cfg := load(t, `
api {
  sandbox     = true
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "some" {
  from  = [search.a]
  limit = 7
}
`)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.perQuery = 40
	sum := run(t, cfg, st, p, svc, &memJournal{}, nil)
	if got := svc.count("enrich:"); got != 7 {
		t.Errorf("enrichments = %d, want the limit 7", got)
	}
	if sum.Credits > p.Totals.CreditsMax || sum.Calls > p.Totals.CallsMax {
		t.Errorf("spent %d calls / %d credits, plan said %d / %d", sum.Calls, sum.Credits, p.Totals.CallsMax, p.Totals.CreditsMax)
	}
}

func TestAPersonInTwoBlocksIsEnrichedOnce(t *testing.T) {
	cfg := load(t, `
api {
  sandbox     = true
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "one" {
  from = [search.a]
}
enrich "two" {
  from = [search.a]
}
`)
	st := state.New()
	svc := newFake()
	run(t, cfg, st, build(t, cfg, st), svc, &memJournal{}, nil)
	if got := svc.count("enrich:"); got != 5 {
		t.Errorf("enrichments = %d, want 5 (each person once)", got)
	}
}

func TestBadRequestOnOneSearchDoesNotStopTheRest(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.fail["search:alpha"] = &api.Error{Op: "search", Kind: api.KindInvalid, Status: 400, Message: "bad filter"}
	sum := run(t, cfg, st, p, svc, &memJournal{}, nil)
	if len(sum.Failures) != 1 || sum.Failures[0].Address != "search.a" {
		t.Fatalf("failures = %+v, want one for search.a", sum.Failures)
	}
	if st.Failures["search.a"] == nil || st.Failures["search.a"].Status != 400 {
		t.Errorf("state does not record the failure of search.a: %+v", st.Failures)
	}
	if st.Searches["search.b"] == nil {
		t.Errorf("search.b did not run")
	}
	// beta's 5 people and the profile's person are enriched.
	if got := svc.count("enrich:"); got != 6 {
		t.Errorf("enrichments = %d, want 6", got)
	}
	if !sum.Failed() {
		t.Error("summary does not report the failure")
	}
}

func TestForbiddenStopsTheRun(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.fail["enrich:alpha_0"] = &api.Error{Op: "enrich", Kind: api.KindForbidden, Status: 403, Message: "no credits left"}
	cfg.API.Parallelism = 1
	sum := run(t, cfg, st, p, svc, &memJournal{}, nil)
	if sum.Stopped == "" {
		t.Fatal("run did not stop on 403")
	}
	after := 0
	seen := false
	for _, c := range svc.calls {
		if c == "enrich:alpha_0" {
			seen = true
			continue
		}
		if seen {
			after++
		}
	}
	if after != 0 {
		t.Errorf("%d calls started after the 403 (parallelism 1)", after)
	}
}

func TestStopFinishesCallsInFlightAndStartsNoMore(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	svc.block = make(chan struct{})
	svc.started = make(chan string, 100)
	stop := make(chan struct{})
	j := &memJournal{}
	done := make(chan *engine.Summary)
	go func() { done <- run(t, cfg, st, p, svc, j, stop) }()
	// Parallelism 3: both searches and the profile read start.
	got := map[string]bool{}
	for len(got) < 3 {
		got[<-svc.started] = true
	}
	close(stop)
	close(svc.block)
	sum := <-done
	if n := svc.count("enrich:"); n != 0 {
		t.Errorf("%d enrichments started after stop", n)
	}
	if sum.Stopped == "" {
		t.Error("summary does not say the run stopped")
	}
	if len(j.events) != 3 {
		t.Errorf("journal has %d events, want the 3 calls that were in flight", len(j.events))
	}
}

func TestJournalFailureStopsSpending(t *testing.T) {
	cfg := load(t, basic)
	cfg.API.Parallelism = 1
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	j := &memJournal{failAfter: 2}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: j, Service: svc, Now: func() time.Time { return t0 }})
	if !errors.Is(err, engine.ErrJournal) {
		t.Fatalf("err = %v, want ErrJournal", err)
	}
	if sum.Calls != 3 {
		t.Errorf("calls = %d, want 3 (two recorded, the third could not be, then nothing)", sum.Calls)
	}
}

func TestRunWithTargetsOnlyTouchesTargets(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	p, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true, Targets: []string{"search.b"}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	svc := newFake()
	run(t, cfg, st, p, svc, &memJournal{}, nil)
	var calls []string
	calls = append(calls, svc.calls...)
	sort.Strings(calls)
	if len(calls) != 1 || calls[0] != "search:beta" {
		t.Errorf("calls = %v, want only search:beta", calls)
	}
}

func TestRerunAfterChangedFilterRunsOnlyThatSearch(t *testing.T) {
	cfg := load(t, basic)
	st := state.New()
	run(t, cfg, st, build(t, cfg, st), newFake(), &memJournal{}, nil)

	cfg2 := load(t, `
api {
  sandbox     = true
  parallelism = 3
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
  city     = "Berlin"
}
search "b" {
  keywords = "beta"
}
profile "p" {
  page_name = "Max_Mustermann"
}
enrich "all" {
  from = [search.a, search.b, profile.p]
}
`)
	p := build(t, cfg2, st)
	svc := newFake()
	run(t, cfg2, st, p, svc, &memJournal{}, nil)
	if svc.count("search:") != 1 || svc.count("page:") != 0 {
		t.Errorf("calls = %v, want only the changed search", svc.calls)
	}
	// The rerun returns the same people, all enriched already.
	if n := svc.count("enrich:"); n != 0 {
		t.Errorf("%d people enriched again", n)
	}
}

// gateJournal is a memJournal that closes open when it records the search
// of address after.
type gateJournal struct {
	memJournal
	after string
	open  chan struct{}
}

func (j *gateJournal) Append(e *state.Event) error {
	err := j.memJournal.Append(e)
	if e.Kind == state.EventSearch && e.Address == j.after {
		close(j.open)
	}
	return err
}

// TestEnrichFollowsFromOrder: with from = [search.cto, search.eng] and a
// limit, the CTOs are enriched first even when the engineers' search
// answers first (the quickstart's CTO sheet had no e-mails because of
// this).
func TestEnrichFollowsFromOrder(t *testing.T) {
	cfg := load(t, `
api {
  sandbox     = true
  parallelism = 4
  max_credits = 1000
}
search "cto" {
  keywords = "cto"
}
search "eng" {
  keywords = "eng"
}
enrich "contacts" {
  from  = [search.cto, search.eng]
  limit = 3
}
`)
	st := state.New()
	p := build(t, cfg, st)
	svc := &gatedService{fakeService: newFake(), kw: "cto", gate: make(chan struct{})}
	j := &gateJournal{after: "search.eng", open: svc.gate}
	run(t, cfg, st, p, svc, j, nil)
	var got []string
	for _, e := range j.events {
		if e.Kind == state.EventEnrich {
			got = append(got, st.People[e.Enrich.PersonID].Lead.PageName)
		}
	}
	sort.Strings(got)
	if want := []string{"cto_0", "cto_1", "cto_2"}; !slices.Equal(got, want) {
		t.Errorf("enriched %q, want the first three CTOs %q", got, want)
	}
}

// gatedService holds the search with keywords kw until gate is closed.
type gatedService struct {
	*fakeService
	kw   string
	gate chan struct{}
}

func (g *gatedService) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	if kw, _ := req.Params["keywords"].(string); kw == g.kw {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return g.fakeService.Search(ctx, gen, req)
}

// TestRetentionRunsFirst: the retention change removes its people before
// any call, and nobody it removes is enriched.
func TestRetentionRunsFirst(t *testing.T) {
	cfg := load(t, `
leadsync {
  retention = "180d"
}
api {
  sandbox     = true
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "all" {
  from = [search.a]
}
`)
	st := state.New()
	old := t0.Add(-200 * 24 * time.Hour)
	if err := st.Fold(state.Event{At: old, Kind: state.EventSearch, Address: "search.old", Search: &state.SearchEvent{
		Generation: api.Gen1, Request: []byte(`{"keywords":"old"}`), Leads: []person.Lead{{NetworkID: "o1", PageName: "old_1"}}}}); err != nil {
		t.Fatal(err)
	}
	p := build(t, cfg, st)
	if c := p.Change(state.PeopleAddress); c == nil || !slices.Equal(c.PersonIDs, []string{"o1"}) {
		t.Fatalf("retention change = %+v", c)
	}
	j := &memJournal{}
	sum := run(t, cfg, st, p, newFake(), j, nil)
	if sum.Expired != 1 || st.People["o1"] != nil {
		t.Errorf("expired %d, o1 still in state: %v", sum.Expired, st.People["o1"] != nil)
	}
	if len(j.events) == 0 || j.events[0].Kind != state.EventForgetPeople || j.events[0].People.Reason != state.ForgetRetention {
		t.Errorf("first journal event = %+v, want the retention forget", j.events[0])
	}
}

// doneProgress records the result of every call done.
type doneProgress struct {
	engine.NopProgress
	done map[string]engine.CallResult
}

func (p *doneProgress) CallDone(c engine.Call, r engine.CallResult) { p.done[c.Address] = r }

// TestSearchAtTheCapIsCapped: a plain search that returns exactly the
// network's cap of api.MaxResults is reported capped (probably cut off),
// and one that returns one fewer is not.
func TestSearchAtTheCapIsCapped(t *testing.T) {
	cfg := load(t, `
api {
  sandbox = true
}
search "full" {
  keywords = "full"
}
search "short" {
  keywords = "short"
}
`)
	st := state.New()
	p := build(t, cfg, st)
	svc := newFake()
	leads := func(n int) []person.Lead {
		out := make([]person.Lead, n)
		for i := range out {
			id := fmt.Sprintf("p%d", i)
			out[i] = person.Lead{FullName: id, PageName: id, NetworkID: id}
		}
		return out
	}
	svc.results["full"], svc.results["short"] = leads(api.MaxResults), leads(api.MaxResults-1)
	prog := &doneProgress{done: map[string]engine.CallResult{}}
	if _, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: svc,
		Now: func() time.Time { return t0 }, Progress: prog,
	}); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]engine.CallResult{
		"search.full":  {Results: api.MaxResults, Capped: true},
		"search.short": {Results: api.MaxResults - 1, Capped: false},
	} {
		got := prog.done[addr]
		if got.Results != want.Results || got.Capped != want.Capped {
			t.Errorf("%s: %d results, capped %v; want %d, capped %v", addr, got.Results, got.Capped, want.Results, want.Capped)
		}
	}
}
