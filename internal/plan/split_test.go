package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

func splitBy(dims ...config.SplitDimension) func(*config.Search) {
	return func(s *config.Search) { s.SplitBy = dims }
}

var (
	dimIndustry = config.SplitDimension{Attribute: "industry_filter", Param: "industryFilter", Values: []string{"A", "B", "C", "D"}}
	dimLevel    = config.SplitDimension{Attribute: "level_filter", Param: "levelFilter", Values: []string{"x", "y", "z"}}
)

// splitRan records a finished split run of s in which the root and the
// children named in saturated ("B", "B/y") returned the cap.
func splitRan(f *fixture, s *config.Search, at time.Time, saturated ...string) {
	sat := map[string]bool{"": true}
	for _, p := range saturated {
		sat[p] = true
	}
	dims := SplitDimensions(s)
	hash := SplitHash(api.Gen1, s)
	body, _ := json.Marshal(s.Request)
	for {
		path := f.st.SplitPending(s.Address, hash, dims).Pending[0]
		leads := []person.Lead{lead(ids(1, 1)[0])}
		if sat[strings.Join(path, "/")] {
			leads = make300()
		}
		f.apply(state.Event{At: at, Kind: state.EventSplit, Address: s.Address, Split: &state.SplitEvent{
			Hash: hash, Generation: api.Gen1, Request: body, Dimensions: dims, MaxResults: s.MaxResults, Path: path, Leads: leads}})
		if f.st.Splits[s.Address] == nil {
			return // complete: the run is the search's record
		}
	}
}

// TestPlanSplit is the table of a split search's plan: the action and
// reason, the certain calls and the bound, from what state holds.
func TestPlanSplit(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(f *fixture, s *config.Search)
		dims    []config.SplitDimension
		action  Action
		reason  Reason
		calls   int
		max     int
		detail  string
		replace bool
		mutate  func(s *config.Search)
	}{
		{name: "first run: the whole tree", dims: []config.SplitDimension{dimIndustry, dimLevel},
			action: Run, reason: ReasonNew, calls: 1, max: 1 + 4 + 4*3, detail: "split by industry_filter (4) x level_filter (3); 1 sub-search certain, up to 17"},
		{name: "one dimension", dims: []config.SplitDimension{dimIndustry},
			action: Run, reason: ReasonNew, calls: 1, max: 5},
		{name: "up to date and complete", dims: []config.SplitDimension{dimIndustry, dimLevel},
			setup:  func(f *fixture, s *config.Search) { splitRan(f, s, t0.Add(-day)) },
			action: None, reason: ReasonUpToDate, detail: "5 sub-searches, complete"},
		{name: "up to date, incomplete", dims: []config.SplitDimension{dimIndustry, dimLevel},
			setup:  func(f *fixture, s *config.Search) { splitRan(f, s, t0.Add(-day), "B", "B/y") },
			action: None, reason: ReasonUpToDate, detail: "8 sub-searches, incomplete: 1 leaf still at the cap; add a dimension to split_by"},
		{name: "replace reruns the known tree", dims: []config.SplitDimension{dimIndustry, dimLevel}, replace: true,
			setup:  func(f *fixture, s *config.Search) { splitRan(f, s, t0.Add(-day), "B") },
			action: Rerun, reason: ReasonReplace, calls: 1 + 4 + 3, max: 1 + 4 + 3 + 3*3},
		{name: "split_by changed", dims: []config.SplitDimension{dimIndustry, dimLevel},
			setup:  func(f *fixture, s *config.Search) { splitRan(f, s, t0.Add(-day)) },
			mutate: func(s *config.Search) { s.SplitBy = []config.SplitDimension{dimLevel} },
			action: Rerun, reason: ReasonSplitChanged, calls: 1, max: 4},
		{name: "a catalog with new values", dims: []config.SplitDimension{dimIndustry},
			setup: func(f *fixture, s *config.Search) { splitRan(f, s, t0.Add(-day)) },
			mutate: func(s *config.Search) {
				s.SplitBy = []config.SplitDimension{{Attribute: "industry_filter", Param: "industryFilter", Values: []string{"A", "B", "C", "D", "E"}}}
			},
			action: Rerun, reason: ReasonSplitChanged, calls: 1, max: 6},
		{name: "a stopped run resumes", dims: []config.SplitDimension{dimIndustry, dimLevel},
			setup: func(f *fixture, s *config.Search) {
				body, _ := json.Marshal(s.Request)
				dims := SplitDimensions(s)
				for _, p := range [][]string{{}, {"A"}} {
					f.apply(state.Event{At: t0.Add(-time.Hour), Kind: state.EventSplit, Address: s.Address, Split: &state.SplitEvent{
						Hash: SplitHash(api.Gen1, s), Generation: api.Gen1, Request: body, Dimensions: dims, Path: p, Leads: make300()}})
				}
			},
			// The root and A ran, both at the cap: B, C, D and A's 3
			// children are certain; B, C and D may saturate (3 each).
			action: Run, reason: ReasonNew, calls: 3 + 3, max: 3 + 3 + 3*3, detail: "resumes a stopped run: 2 sub-searches done, 6 to run, up to 15"},
		{name: "a stopped refresh resumes", dims: []config.SplitDimension{dimIndustry, dimLevel},
			setup: func(f *fixture, s *config.Search) {
				splitRan(f, s, t0.Add(-day))
				body, _ := json.Marshal(s.Request)
				f.apply(state.Event{At: t0.Add(-time.Hour), Kind: state.EventSplit, Address: s.Address, Split: &state.SplitEvent{
					Hash: SplitHash(api.Gen1, s), Generation: api.Gen1, Request: body, Dimensions: SplitDimensions(s), Path: []string{}, Leads: make300()}})
			},
			// The known tree (root, A-D) minus the root; each of A-D may saturate.
			action: Refresh, reason: ReasonResume, calls: 4, max: 4 + 4*3, detail: "resumes a stopped run: 1 sub-search done, 4 to run, up to 16"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			s := f.search("search.eng", kw("Engineer"), splitBy(tt.dims...))
			if tt.setup != nil {
				tt.setup(f, s)
			}
			if tt.mutate != nil {
				tt.mutate(s)
			}
			o := f.opts()
			if tt.replace {
				o.Replace = []string{"search.eng"}
			}
			p := f.build(t, o)
			c := p.Change("search.eng")
			if c.Action != tt.action || c.Reason != tt.reason || c.Calls != tt.calls || c.CallsMax != tt.max {
				t.Errorf("%s %s %d..%d; want %s %s %d..%d (%s)", c.Action, c.Reason, c.Calls, c.CallsMax, tt.action, tt.reason, tt.calls, tt.max, c.Detail)
			}
			if tt.detail != "" && !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q lacks %q", c.Detail, tt.detail)
			}
			if c.Split == nil {
				t.Fatal("no split object")
			}
			if p.Totals.SearchesMax != c.CallsMax || p.Totals.Searches != c.Calls {
				t.Errorf("totals searches %d..%d, change %d..%d", p.Totals.Searches, p.Totals.SearchesMax, c.Calls, c.CallsMax)
			}
		})
	}
}

// TestPlanSplitQuota: the quota check counts the whole bound of a split
// search, not its one certain call.
func TestPlanSplitQuota(t *testing.T) {
	f := newFixture()
	f.search("search.eng", kw("Engineer"), splitBy(dimIndustry, dimLevel))
	o := f.opts()
	o.Usage = &api.Usage{RemainingRequests: 110}
	f.cfg.API.MinRemainingRequests = 100
	p, diags := Build(f.cfg, f.st, o)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "may make up to 17 calls") {
		t.Fatalf("want the quota refused for 17 calls at most; got %v", diags)
	}
	if p.Totals.CallsMax != 17 || p.Totals.Calls != 1 {
		t.Errorf("totals %d..%d", p.Totals.Calls, p.Totals.CallsMax)
	}
}

func make300() []person.Lead {
	out := make([]person.Lead, api.MaxResults)
	for i := range out {
		out[i] = lead(ids(i+1, 1)[0])
	}
	return out
}

// TestPlanForgetsAStoppedSplit: a split search removed from the
// configuration while a run of it was under way is forgotten (its run with
// it), like any search in state.
func TestPlanForgetsAStoppedSplit(t *testing.T) {
	f := newFixture()
	s := f.search("search.eng", kw("Engineer"), splitBy(dimIndustry))
	body, _ := json.Marshal(s.Request)
	f.apply(state.Event{At: t0.Add(-time.Hour), Kind: state.EventSplit, Address: s.Address, Split: &state.SplitEvent{
		Hash: SplitHash(api.Gen1, s), Generation: api.Gen1, Request: body, Dimensions: SplitDimensions(s), Path: []string{}, Leads: make300()}})
	f.cfg.Searches = nil
	c := f.build(t, f.opts()).Change("search.eng")
	if c == nil || c.Action != Forget || !strings.Contains(c.Detail, "split run stopped in the middle") {
		t.Fatalf("change %+v", c)
	}
	if err := f.st.Fold(state.Event{At: t0, Kind: state.EventForget, Address: "search.eng"}); err != nil {
		t.Fatal(err)
	}
	if f.st.Splits["search.eng"] != nil {
		t.Error("the run under way survived the forget")
	}
}
