package engine_test

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

const day = 24 * time.Hour

// orderedService is a fakeService whose searches wait until the test lets
// them answer (release), so that a test chooses the order in which the
// searches of a run complete.
type orderedService struct {
	*fakeService
	mu    sync.Mutex
	gates map[string]chan struct{} // by keywords
}

func newOrdered(f *fakeService) *orderedService {
	return &orderedService{fakeService: f, gates: map[string]chan struct{}{}}
}

func (o *orderedService) gate(kw string) chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	g := o.gates[kw]
	if g == nil {
		g = make(chan struct{})
		o.gates[kw] = g
	}
	return g
}

func (o *orderedService) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	kw, _ := req.Params["keywords"].(string)
	select {
	case <-o.gate(kw):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return o.fakeService.Search(ctx, gen, req)
}

// signalJournal is a memJournal that reports the address of every search
// result or failure it records.
type signalJournal struct {
	memJournal
	done chan string
}

func (j *signalJournal) Append(e *state.Event) error {
	err := j.memJournal.Append(e)
	if err == nil && (e.Kind == state.EventSearch || e.Kind == state.EventFailure) {
		j.done <- e.Address
	}
	return err
}

// runInOrder runs p with the searches completing in the order of order
// (search addresses): each is let through once the one before it is in
// the journal. Enrichments are not held: they run as soon as the executor
// queues them, between and after the searches.
func runInOrder(t *testing.T, cfg *config.Config, st *state.State, p *plan.Plan, svc *orderedService, order []string, now time.Time) (*engine.Summary, *signalJournal) {
	t.Helper()
	kws := map[string]string{}
	for _, s := range cfg.Searches {
		kws[s.Address], _ = s.Request.Params["keywords"].(string)
	}
	j := &signalJournal{done: make(chan string, 64)}
	type result struct {
		sum *engine.Summary
		err error
	}
	res := make(chan result, 1)
	par8 := *cfg
	par8.API.Parallelism = 8
	go func() {
		sum, err := engine.Run(context.Background(), engine.Options{
			Config: &par8, Plan: p, State: st, Journal: j, Service: svc,
			Now: func() time.Time { return now },
		})
		res <- result{sum, err}
	}()
	var r *result
	for _, addr := range order {
		close(svc.gate(kws[addr]))
	wait:
		for {
			if r != nil {
				// The run has ended: what it recorded is all there is.
				select {
				case a := <-j.done:
					if a == addr {
						break wait
					}
				default:
					t.Fatalf("the run ended (%v; %+v) before %s answered", r.err, r.sum, addr)
				}
				continue
			}
			select {
			case a := <-j.done:
				if a == addr {
					break wait
				}
			case got := <-res:
				r = &got
			}
		}
	}
	if r == nil {
		got := <-res
		r = &got
	}
	if r.err != nil {
		t.Fatalf("run: %v", r.err)
	}
	return r.sum, j
}

// enrichedBy lists, per enrich block, the people the journal says it
// enriched.
func enrichedBy(j *signalJournal) map[string][]string {
	out := map[string][]string{}
	for _, e := range j.events {
		if e.Kind == state.EventEnrich {
			out[e.Address] = append(out[e.Address], e.Enrich.PersonID)
		}
	}
	for _, ids := range out {
		sort.Strings(ids)
	}
	return out
}

func people(ids ...int) []person.Lead {
	var out []person.Lead
	for _, i := range ids {
		page := fmt.Sprintf("p%d", i)
		out = append(out, person.Lead{FullName: page, PageName: page, NetworkID: fmt.Sprintf("%d.n", i), Company: "ACME"})
	}
	return out
}

const overlapping = `
api {
  sandbox     = true
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
search "b" {
  keywords = "beta"
}
enrich "e1" {
  from  = [search.a]
  limit = 2
}
enrich "e2" {
  from  = [search.b, search.a]
  limit = 2
}
`

// TestOverlappingBlocksFinishInOneApply: e1 and e2 both want p1 (the first
// person of search.a and of search.b). Whichever search answers first, one
// apply enriches two people for each block, p1 once, and the plan after it
// has nothing left to enrich. Before, the block that lost p1 to the other
// counted p1 among its places and stopped one person short.
func TestOverlappingBlocksFinishInOneApply(t *testing.T) {
	cfg := load(t, overlapping)
	for _, tc := range []struct {
		order  []string
		e1, e2 []string
	}{
		// search.a first: e1 takes p1 and p2; e2 goes on past them.
		{[]string{"search.a", "search.b"}, []string{"1.n", "2.n"}, []string{"5.n", "6.n"}},
		// search.b first: e2 takes p1 and p5 from search.b alone; e1 then
		// goes on past p1.
		{[]string{"search.b", "search.a"}, []string{"2.n", "3.n"}, []string{"1.n", "5.n"}},
	} {
		t.Run(tc.order[0]+" first", func(t *testing.T) {
			st := state.New()
			p := build(t, cfg, st)
			svc := newOrdered(newFake())
			svc.results["alpha"] = people(1, 2, 3, 4)
			svc.results["beta"] = people(1, 5, 6)
			sum, j := runInOrder(t, cfg, st, p, svc, tc.order, t0)
			got := enrichedBy(j)
			if !slices.Equal(got["enrich.e1"], tc.e1) || !slices.Equal(got["enrich.e2"], tc.e2) {
				t.Errorf("enriched e1 %v, e2 %v; want e1 %v, e2 %v", got["enrich.e1"], got["enrich.e2"], tc.e1, tc.e2)
			}
			if sum.Credits != 4 || sum.Calls > p.Totals.CallsMax {
				t.Errorf("%d credits, %d calls (plan: at most %d)", sum.Credits, sum.Calls, p.Totals.CallsMax)
			}
			for page, n := range svc.enriched {
				if n != 1 {
					t.Errorf("%s enriched %d times", page, n)
				}
			}
			after := build(t, cfg, st)
			for _, c := range after.Changes {
				if c.CallsMax > 0 {
					t.Errorf("the plan after apply still has %s: %s", c.Address, c.Detail)
				}
			}
		})
	}
}

// TestOverlappingBlocksMatchThePlanWhenNothingRuns: with every search
// already in state, apply enriches exactly the people the plan lists for
// each block. The plan counts a person in two blocks for the first in file
// order and lets the second go on to its next people; apply did the
// first part and then left the second block short.
func TestOverlappingBlocksMatchThePlanWhenNothingRuns(t *testing.T) {
	cfg := load(t, overlapping)
	st := state.New()
	svc := newOrdered(newFake())
	svc.results["alpha"] = people(1, 2, 3, 4)
	svc.results["beta"] = people(2, 1, 5, 6)
	for _, s := range cfg.Searches {
		close(svc.gate(s.Request.Params["keywords"].(string)))
	}
	// The searches alone first, then the enrich blocks with nothing to run.
	searchesOnly, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true, Targets: []string{"search.a", "search.b"}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runInOrder(t, cfg, st, searchesOnly, svc, nil, t0)
	p := build(t, cfg, st)
	_, j := runInOrder(t, cfg, st, p, svc, nil, t0)
	got := enrichedBy(j)
	for _, addr := range []string{"enrich.e1", "enrich.e2"} {
		want := slices.Clone(p.Change(addr).PersonIDs)
		sort.Strings(want)
		if !slices.Equal(got[addr], want) {
			t.Errorf("%s enriched %v, the plan said %v", addr, got[addr], want)
		}
	}
	if want := []string{"1.n", "2.n"}; !slices.Equal(got["enrich.e1"], want) {
		t.Errorf("e1 (first in the file) enriched %v, want %v", got["enrich.e1"], want)
	}
	if want := []string{"5.n", "6.n"}; !slices.Equal(got["enrich.e2"], want) {
		t.Errorf("e2 enriched %v, want %v: past the people e1 took", got["enrich.e2"], want)
	}
	for _, c := range build(t, cfg, st).Changes {
		if c.CallsMax > 0 {
			t.Errorf("the plan after apply still has %s: %s", c.Address, c.Detail)
		}
	}
}

// TestAPlaceGivenBackIsUsedInTheSameApply: e2 enriches again (refresh) p1,
// whom e1 had enriched; that gives e1 its one place back, and e1 uses it in
// the same apply, once e2's enrichments are made, on the next person
// nobody has claimed. The plan says so exactly, and the plan after has
// nothing left (before, it showed e1 "up to 1" for as long as p1 was
// e1's, and after the apply e1 still had one person to enrich).
func TestAPlaceGivenBackIsUsedInTheSameApply(t *testing.T) {
	cfg := load(t, `
api {
  sandbox     = true
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "e1" {
  from  = [search.a]
  limit = 1
}
enrich "e2" {
  from    = [search.a]
  limit   = 2
  refresh = "5d"
}
`)
	st := state.New()
	svc := newOrdered(newFake())
	svc.results["alpha"] = people(1, 2, 3, 4)
	close(svc.gate("alpha"))
	searchOnly, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true, Targets: []string{"search.a"}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	runInOrder(t, cfg, st, searchOnly, svc, nil, t0)
	if err := st.Fold(state.Event{At: t0.Add(-10 * day), Kind: state.EventEnrich, Address: "enrich.e1", Enrich: &state.EnrichEvent{
		PersonID: "1.n", Credits: 1, Result: person.EnrichedProfile{NetworkID: "1.n", PageName: "p1"}}}); err != nil {
		t.Fatal(err)
	}

	p := build(t, cfg, st)
	for addr, want := range map[string][]string{"enrich.e1": {"3.n"}, "enrich.e2": {"1.n", "2.n"}} {
		c := p.Change(addr)
		if !slices.Equal(c.PersonIDs, want) || c.CallsMax != len(want) {
			t.Errorf("plan: %s enriches %v (at most %d), want exactly %v (%s)", addr, c.PersonIDs, c.CallsMax, want, c.Detail)
		}
	}
	_, j := runInOrder(t, cfg, st, p, svc, nil, t0)
	got := enrichedBy(j)
	if !slices.Equal(got["enrich.e1"], []string{"3.n"}) || !slices.Equal(got["enrich.e2"], []string{"1.n", "2.n"}) {
		t.Errorf("apply enriched e1 %v, e2 %v; the plan said e1 [3.n], e2 [1.n 2.n]", got["enrich.e1"], got["enrich.e2"])
	}
	for _, c := range build(t, cfg, st).Changes {
		if c.CallsMax > 0 {
			t.Errorf("the plan after apply still has %s: %s", c.Address, c.Detail)
		}
	}
}
