package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// splitService is the sandbox behind the real client, recording the body
// of every search it is sent.
type splitService struct {
	api.Service
	sb     *sandbox.Server
	mu     sync.Mutex
	bodies []string
	// stopAfter closes stop after that many searches (0: never).
	stopAfter int
	stop      chan struct{}
	// failing makes a search whose body contains it fail (no call made).
	failing string
}

func newSplitService(t *testing.T) *splitService {
	t.Helper()
	sb := sandbox.New(sandbox.Options{RateLimit: -1, NoLatency: true})
	c, err := api.New(api.Options{Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
		HTTPClient: &http.Client{Transport: sb.Transport()}, RateLimit: 10000, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	return &splitService{Service: c, sb: sb}
}

func (s *splitService) Search(ctx context.Context, gen api.Generation, req api.SearchRequest) (*api.SearchResult, error) {
	b, _ := json.Marshal(req)
	s.mu.Lock()
	if s.failing != "" && strings.Contains(string(b), s.failing) {
		s.mu.Unlock()
		return nil, errors.New("service unavailable")
	}
	s.bodies = append(s.bodies, string(b))
	if s.stopAfter > 0 && len(s.bodies) == s.stopAfter {
		close(s.stop)
	}
	s.mu.Unlock()
	return s.Service.Search(ctx, gen, req)
}

// truth is the number of sandbox members the search matches, past the cap.
func truth(t *testing.T, sb *sandbox.Server, s *config.Search) int {
	t.Helper()
	b, _ := json.Marshal(s.Request)
	ms, err := sb.Matching(b)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}

const splitTwo = `
api {
  sandbox     = true
  parallelism = 4
}
search "eng" {
  keywords    = "Engineer"
  max_results = 100000
  split_by    = ["country_filter", "industry_filter"]
}
`

// TestSplitRunsUntilComplete runs a search that saturates, is split by
// country, where some countries saturate again and are split by industry,
// and ends complete: the people found are exactly the sandbox's own count,
// and the calls stay within the plan (the root certain, the bound never
// exceeded).
func TestSplitRunsUntilComplete(t *testing.T) {
	cfg := load(t, splitTwo)
	svc := newSplitService(t)
	st := state.New()
	p := build(t, cfg, st)
	c := p.Change("search.eng")
	if c.Calls != 1 || c.CallsMax != 1+10+10*23 || c.Split == nil {
		t.Fatalf("plan: calls %d, calls_max %d, split %+v; want 1, %d", c.Calls, c.CallsMax, c.Split, 1+10+10*23)
	}
	sum := run(t, cfg, st, p, svc, &memJournal{}, nil)
	if sum.Failed() {
		t.Fatalf("run failed: %+v", sum)
	}
	want := truth(t, svc.sb, cfg.Searches[0])
	if want <= api.MaxResults {
		t.Fatalf("the sandbox has %d engineers: too few to saturate", want)
	}
	rec := st.Searches["search.eng"]
	if rec == nil || rec.Split == nil {
		t.Fatal("no split record")
	}
	ss := rec.SplitSummary()
	if !ss.Complete || ss.People != want || len(rec.LeadIDs) != want {
		t.Errorf("complete=%v people=%d kept=%d; want complete with %d (the sandbox's count)", ss.Complete, ss.People, len(rec.LeadIDs), want)
	}
	t.Logf("%d sub-searches (plan %d..%d), %d people", ss.SubSearches, c.Calls, c.CallsMax, ss.People)
	depth2 := 0
	for _, n := range rec.Split.Nodes {
		if len(n.Path) == 2 {
			depth2++
		}
	}
	if depth2 == 0 {
		t.Error("no node split on the second dimension")
	}
	if n := len(svc.bodies); n != ss.SubSearches || n > c.CallsMax || n < c.Calls {
		t.Errorf("%d searches sent, %d sub-searches recorded, plan %d..%d", n, ss.SubSearches, c.Calls, c.CallsMax)
	}
	if len(sum.Searches) != 1 || sum.Searches[0].Split == nil || !sum.Searches[0].Split.Complete {
		t.Errorf("summary searches = %+v", sum.Searches)
	}
	seen := map[string]bool{}
	for _, b := range svc.bodies {
		if seen[b] {
			t.Errorf("sub-search sent twice: %s", b)
		}
		seen[b] = true
	}

	// A refresh plans the known tree exactly, plus the subtrees of the
	// nodes that may newly saturate.
	p2, diags := plannedReplace(cfg, st)
	if diags != "" {
		t.Fatal(diags)
	}
	c2 := p2.Change("search.eng")
	if c2.Calls != ss.SubSearches || c2.CallsMax < c2.Calls {
		t.Errorf("replace plans %d..%d calls; want %d certain", c2.Calls, c2.CallsMax, ss.SubSearches)
	}
}

// TestSplitIncomplete splits by one dimension only: leaves still at the cap
// are named and the run reported incomplete.
func TestSplitIncomplete(t *testing.T) {
	cfg := load(t, strings.Replace(splitTwo, `["country_filter", "industry_filter"]`, `["level_filter"]`, 1))
	svc := newSplitService(t)
	st := state.New()
	sum := run(t, cfg, st, build(t, cfg, st), svc, &memJournal{}, nil)
	if sum.Failed() {
		t.Fatalf("run failed: %+v", sum)
	}
	ss := st.Searches["search.eng"].SplitSummary()
	if ss.Complete || len(ss.Saturated) == 0 || ss.SubSearches != 1+6 {
		t.Fatalf("summary %+v; want incomplete after 7 sub-searches", ss)
	}
	if !strings.HasPrefix(ss.Verdict(), "incomplete: ") || !strings.Contains(ss.Verdict(), "add a dimension to split_by") {
		t.Errorf("verdict %q", ss.Verdict())
	}
	if !strings.Contains(ss.Saturated[0], `level_filter=["`) {
		t.Errorf("leaf named %q", ss.Saturated[0])
	}
	if want := truth(t, svc.sb, cfg.Searches[0]); ss.People >= want {
		t.Errorf("found %d of %d people, yet incomplete", ss.People, want)
	}
}

// TestSplitResumesWithoutRepeating stops a split run in the middle (the
// first Ctrl-C), then plans and applies again: the second run sends none of
// the sub-searches the first completed, and the result is the same as an
// uninterrupted run's.
func TestSplitResumesWithoutRepeating(t *testing.T) {
	cfg := load(t, splitTwo)
	svc := newSplitService(t)
	svc.stop = make(chan struct{})
	svc.stopAfter = 6
	st := state.New()
	j := &memJournal{}
	sum := run(t, cfg, st, build(t, cfg, st), svc, j, svc.stop)
	if sum.Stopped == "" || len(sum.SplitsUnfinished) != 1 {
		t.Fatalf("first run: stopped %q, unfinished %+v", sum.Stopped, sum.SplitsUnfinished)
	}
	if st.Searches["search.eng"] != nil || st.Splits["search.eng"] == nil {
		t.Fatal("a stopped run must stay under way, not become the record")
	}
	// The state a crash would leave: only what the journal holds.
	replayed := state.New()
	for _, e := range j.events {
		if err := replayed.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	first := map[string]bool{}
	for _, e := range j.events {
		if e.Kind == state.EventSplit {
			first[string(e.Split.NodeRequest)] = true
		}
	}
	p := build(t, cfg, replayed)
	c := p.Change("search.eng")
	if c.Split == nil || !c.Split.Resumed || c.Split.Done != len(first) {
		t.Fatalf("plan after the stop: %+v (detail %s)", c.Split, c.Detail)
	}
	sent := len(svc.bodies)
	svc.stopAfter = 0
	sum = run(t, cfg, replayed, p, svc, &memJournal{}, nil)
	if sum.Failed() {
		t.Fatalf("resume failed: %+v", sum)
	}
	for _, b := range svc.bodies[sent:] {
		if first[b] {
			t.Errorf("resume repeated a completed sub-search: %s", b)
		}
	}
	if n := len(svc.bodies[sent:]); n > c.CallsMax {
		t.Errorf("resume made %d calls, plan said at most %d", n, c.CallsMax)
	}
	ss := replayed.Searches["search.eng"].SplitSummary()
	if want := truth(t, svc.sb, cfg.Searches[0]); !ss.Complete || ss.People != want {
		t.Errorf("after resume: %+v; want complete with %d people", ss, want)
	}
}

var _ engine.Journal = (*memJournal)(nil)

func plannedReplace(cfg *config.Config, st *state.State) (*plan.Plan, string) {
	p, diags := plan.Build(cfg, st, plan.Options{Now: t0, Offline: true, Replace: []string{"search.eng"}})
	if diags.HasErrors() {
		return nil, diags.Error()
	}
	return p, ""
}

// TestSplitSubSearchFails: a sub-search that fails stops that split (no
// node is queued after it), the run stays under way with what completed,
// the summary says so, and the next apply finishes the tree without
// repeating a completed sub-search.
func TestSplitSubSearchFails(t *testing.T) {
	cfg := load(t, splitTwo)
	svc := newSplitService(t)
	svc.failing = `"countryFilter":["Germany"]`
	st := state.New()
	sum := run(t, cfg, st, build(t, cfg, st), svc, &memJournal{}, nil)
	if len(sum.Failures) == 0 || len(sum.SplitsUnfinished) != 1 || sum.SplitsUnfinished[0].Address != "search.eng" {
		t.Fatalf("failures %v, unfinished %+v", sum.Failures, sum.SplitsUnfinished)
	}
	if st.Searches["search.eng"] != nil || st.Splits["search.eng"] == nil {
		t.Fatal("a failed split must stay under way")
	}
	first := map[string]bool{}
	for _, b := range svc.bodies {
		first[b] = true
	}
	svc.failing = ""
	sent := len(svc.bodies)
	p := build(t, cfg, st)
	if c := p.Change("search.eng"); c.Split == nil || !c.Split.Resumed {
		t.Fatalf("plan after the failure: %+v", c.Split)
	}
	sum = run(t, cfg, st, p, svc, &memJournal{}, nil)
	if sum.Failed() {
		t.Fatalf("second run failed: %+v", sum.Failures)
	}
	for _, b := range svc.bodies[sent:] {
		if first[b] {
			t.Errorf("repeated a completed sub-search: %s", b)
		}
	}
	ss := st.Searches["search.eng"].SplitSummary()
	if want := truth(t, svc.sb, cfg.Searches[0]); !ss.Complete || ss.People != want {
		t.Errorf("after the second run: %+v; want complete with %d", ss, want)
	}
}
