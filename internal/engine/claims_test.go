package engine_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// otherApply is an apply running at the same moment in workspace ws, as
// the claims show it: it holds some people (by page name) for a number of
// claims of this run, then lets go, having recorded their enrichment
// (found by the lookup once recorded) or not.
type otherApply struct {
	mu       sync.Mutex
	ws       string
	held     map[string]int  // page key -> claims refused before it lets go (-1: never)
	records  map[string]bool // page key -> it records their enrichment when it lets go
	readable bool            // what it records can be read by the lookup
	found    map[string]state.Reusable
	mine     map[string]bool // keys this run holds
	releases []string        // "key enriched|not", in order
	claimErr error
}

func newOther(ws string) *otherApply {
	return &otherApply{ws: ws, held: map[string]int{}, records: map[string]bool{}, readable: true,
		found: map[string]state.Reusable{}, mine: map[string]bool{}}
}

func pageKey(keys []string) string {
	for _, k := range keys {
		if strings.HasPrefix(k, "p:") {
			return k
		}
	}
	return ""
}

func (o *otherApply) Claim(keys []string) (engine.Claim, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.claimErr != nil {
		return engine.Claim{}, o.claimErr
	}
	k := pageKey(keys)
	out := engine.Claim{Held: true}
	if n, ok := o.held[k]; ok {
		if n != 0 {
			if n > 0 {
				o.held[k] = n - 1
			}
			return engine.Claim{HeldBy: o.ws}, nil
		}
		delete(o.held, k)
		out.Since, out.Enriched = o.ws, o.records[k]
		if o.records[k] && o.readable {
			// Made at the person's company now (ACME): only such an enrichment is copied.
			o.found[k] = state.Reusable{Workspace: o.ws, Enrichment: state.Enrichment{EnrichedAt: t0.Add(-time.Minute), By: "enrich.all",
				Result: person.EnrichedProfile{PageName: k[2:], Email: k[2:] + "@" + o.ws + ".example", ValidationStatus: person.StatusValid, Company: "ACME"}}}
		}
	}
	if o.mine[k] {
		return engine.Claim{}, fmt.Errorf("%s claimed twice", k)
	}
	o.mine[k] = true
	return out, nil
}

func (o *otherApply) Release(keys []string, enriched bool) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	k := pageKey(keys)
	if !o.mine[k] {
		return fmt.Errorf("%s released but not held", k)
	}
	delete(o.mine, k)
	word := "not"
	if enriched {
		word = "enriched"
	}
	o.releases = append(o.releases, k+" "+word)
	return nil
}

func (o *otherApply) lookup(keys []string) (map[string]state.Reusable, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]state.Reusable{}
	for _, k := range keys {
		if r, ok := o.found[k]; ok {
			out[k] = r
		}
	}
	return out, nil
}

const claimsConfig = `
api {
  sandbox     = true
  parallelism = 2
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "all" {
  from = [search.a]
}
`

// runClaiming runs claimsConfig's plan with o as the claims and lookup,
// polling at once and waiting up to wait by a clock that moves a second
// per reading.
func runClaiming(t *testing.T, o *otherApply, svc *fakeService, wait time.Duration) (*engine.Summary, *state.State, *recWaits) {
	t.Helper()
	cfg := load(t, claimsConfig)
	st := state.New()
	p := build(t, cfg, st)
	now := t0
	var mu sync.Mutex
	prog := &recWaits{}
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: svc, Progress: prog,
		Now: func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			now = now.Add(time.Second)
			return now
		},
		Reuse: o.lookup, Claims: o, ClaimWait: wait, ClaimPoll: time.Millisecond,
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if len(o.mine) != 0 {
		t.Errorf("claims still held after the run: %v", o.mine)
	}
	return sum, st, prog
}

// recWaits records the waits the run reported.
type recWaits struct {
	engine.NopProgress
	waits []string
}

func (p *recWaits) Waiting(c engine.Call, d time.Duration, reason string) {
	p.waits = append(p.waits, c.Page+": "+reason)
}

// releases sorts o's releases (the run's order depends on its workers).
func (o *otherApply) sortedReleases() string {
	r := append([]string(nil), o.releases...)
	sort.Strings(r)
	return strings.Join(r, ", ")
}

// A person another workspace's apply is enriching is waited for and
// copied once it records them: no call, no credit; the others are claimed,
// enriched and released as enriched.
func TestClaimedElsewhereIsCopied(t *testing.T) {
	o := newOther("dach")
	o.held["p:alpha_1"], o.records["p:alpha_1"] = 2, true
	svc := newFake()
	sum, st, prog := runClaiming(t, o, svc, time.Hour)
	if svc.enriched["alpha_1"] != 0 || svc.count("enrich:") != 4 {
		t.Errorf("enrich calls %v, want the four others only", svc.enriched)
	}
	if got := sum.ClaimedElsewhere["dach"]; got != (engine.ClaimedCount{Copied: 1}) || sum.Reused["dach"] != 1 || sum.Credits != 4 || sum.Failed() {
		t.Errorf("summary: claimed elsewhere %+v, reused %v, credits %d, stopped %q", sum.ClaimedElsewhere, sum.Reused, sum.Credits, sum.Stopped)
	}
	if p := st.Person(state.PersonID(person.Lead{NetworkID: "501.1"})); p == nil || p.Enrichment == nil || p.Enrichment.By != "workspace.dach" {
		t.Errorf("alpha_1 holds %+v, want the copy from dach", p)
	}
	if len(prog.waits) != 1 || !strings.Contains(prog.waits[0], "enriched by workspace dach's apply running now") {
		t.Errorf("waits %q, want one saying whose apply holds alpha_1", prog.waits)
	}
	want := "p:alpha_0 enriched, p:alpha_1 enriched, p:alpha_2 enriched, p:alpha_3 enriched, p:alpha_4 enriched"
	if got := o.sortedReleases(); got != want {
		t.Errorf("releases %s\nwant %s", got, want)
	}
}

// Past the wait, a person another workspace's apply still holds is left
// for the next apply: no call, and the run is no failure.
func TestClaimedElsewhereLeftAfterTheWait(t *testing.T) {
	o := newOther("dach")
	o.held["p:alpha_3"] = -1
	svc := newFake()
	sum, st, _ := runClaiming(t, o, svc, 30*time.Second)
	if svc.enriched["alpha_3"] != 0 || svc.count("enrich:") != 4 {
		t.Errorf("enrich calls %v, want the four others only", svc.enriched)
	}
	if got := sum.ClaimedElsewhere["dach"]; got != (engine.ClaimedCount{Left: 1}) || sum.Failed() || len(sum.Reused) != 0 {
		t.Errorf("summary: claimed elsewhere %+v, reused %v, stopped %q", sum.ClaimedElsewhere, sum.Reused, sum.Stopped)
	}
	if p := st.Person(state.PersonID(person.Lead{NetworkID: "503.3"})); p == nil || p.Enrichment != nil {
		t.Errorf("alpha_3 holds %+v, want no enrichment", p)
	}
}

// Another workspace's apply that says it recorded the person, whose
// enrichment cannot be read yet: left for the next apply, never paid for.
func TestClaimedElsewhereUnreadableIsLeft(t *testing.T) {
	o := newOther("dach")
	o.held["p:alpha_0"], o.records["p:alpha_0"], o.readable = 1, true, false
	svc := newFake()
	sum, _, _ := runClaiming(t, o, svc, time.Hour)
	if svc.enriched["alpha_0"] != 0 || sum.ClaimedElsewhere["dach"] != (engine.ClaimedCount{Left: 1}) {
		t.Errorf("enrich calls %v, claimed elsewhere %+v; want alpha_0 left", svc.enriched, sum.ClaimedElsewhere)
	}
	if !strings.Contains(o.sortedReleases(), "p:alpha_0 not") {
		t.Errorf("releases %s: alpha_0 must be released as not enriched", o.sortedReleases())
	}
}

// An apply that ended while it held the person (killed) recorded nothing:
// the person is enriched here, once.
func TestClaimOfAnEndedApplyIsMadeHere(t *testing.T) {
	o := newOther("dach")
	o.held["p:alpha_2"] = 1
	svc := newFake()
	sum, _, _ := runClaiming(t, o, svc, time.Hour)
	if svc.enriched["alpha_2"] != 1 || svc.count("enrich:") != 5 || len(sum.ClaimedElsewhere) != 0 {
		t.Errorf("enrich calls %v, claimed elsewhere %+v; want all five enriched here", svc.enriched, sum.ClaimedElsewhere)
	}
}

// A failed enrichment releases its claim as not enriched; a store that
// cannot be read stops the run before any enrichment is sent.
func TestClaimsReleasedAndFailing(t *testing.T) {
	o := newOther("dach")
	svc := newFake()
	svc.fail["enrich:alpha_4"] = &api.Error{Op: "enrich", Kind: api.KindInvalid, Status: 400, Message: "bad"}
	runClaiming(t, o, svc, time.Hour)
	if got := o.sortedReleases(); !strings.Contains(got, "p:alpha_4 not") || !strings.Contains(got, "p:alpha_3 enriched") {
		t.Errorf("releases %s: the failed one not enriched, the others enriched", got)
	}

	o = newOther("dach")
	o.claimErr = errors.New("the claims file is damaged")
	svc = newFake()
	sum, _, _ := runClaiming(t, o, svc, time.Hour)
	if svc.count("enrich:") != 0 || !strings.Contains(sum.Stopped, "claims") || !strings.Contains(sum.Stopped, "damaged") {
		t.Errorf("%d enrich calls, stopped %q; want none and the store's error", svc.count("enrich:"), sum.Stopped)
	}
}
