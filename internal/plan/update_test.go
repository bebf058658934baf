package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// A lowered max_results is an update without a call: the plan shows it,
// and apply cuts the kept leads in state (state.EventTrim), which the
// exports then follow. A rerun of the search applies the new max_results
// itself, so a search that runs anyway is no update.
func TestMaxResultsLowered(t *testing.T) {
	tests := []struct {
		name    string
		max     int // max_results configured now
		setup   func(f *fixture)
		replace bool
		action  Action
		reason  Reason
		calls   int
		detail  string // substring
	}{
		{name: "all kept, lowered", max: 3, setup: func(f *fixture) { f.ranMax("search.eng", 0, 7, 7) },
			action: Update, reason: ReasonMaxResultsLowered, detail: "keep 3 of 7 leads (max_results lowered; no call)"},
		{name: "max_results kept them all, lowered", max: 3, setup: func(f *fixture) { f.ranMax("search.eng", 7, 7, 7) },
			action: Update, reason: ReasonMaxResultsLowered, detail: "keep 3 of 7 leads"},
		{name: "some dropped by the last run, lowered further", max: 3, setup: func(f *fixture) { f.ranMax("search.eng", 5, 7, 5) },
			action: Update, reason: ReasonMaxResultsLowered, detail: "keep 3 of 5 leads"},
		{name: "lowered to what was kept", max: 7, setup: func(f *fixture) { f.ranMax("search.eng", 0, 7, 7) },
			action: None, reason: ReasonUpToDate, detail: "7 leads kept"},
		{name: "lowered below max_results but not below the results", max: 10, setup: func(f *fixture) { f.ranMax("search.eng", 20, 7, 7) },
			action: None, reason: ReasonUpToDate, detail: "7 leads kept"},
		{name: "raised after a drop", max: 7, setup: func(f *fixture) { f.ranMax("search.eng", 5, 7, 5) },
			action: Rerun, reason: ReasonMaxResultsRaised, calls: 1},
		{name: "cut already: up to date", max: 3, setup: func(f *fixture) {
			f.ranMax("search.eng", 0, 7, 7)
			f.apply(state.Event{At: t0.Add(-time.Hour), Kind: state.EventTrim, Address: "search.eng", Trim: &state.TrimEvent{MaxResults: 3}})
		}, action: None, reason: ReasonUpToDate, detail: "3 leads kept"},
		{name: "cut, then raised: the search runs again", max: 5, setup: func(f *fixture) {
			f.ranMax("search.eng", 0, 7, 7)
			f.apply(state.Event{At: t0.Add(-time.Hour), Kind: state.EventTrim, Address: "search.eng", Trim: &state.TrimEvent{MaxResults: 3}})
		}, action: Rerun, reason: ReasonMaxResultsRaised, calls: 1, detail: "kept 3 of 7 results, 5 allowed now"},
		{name: "refresh due: the rerun keeps 3", max: 3, setup: func(f *fixture) {
			f.cfg.Searches[0].Refresh = day
			f.ranMax("search.eng", 0, 7, 7)
		}, action: Refresh, reason: ReasonRefresh, calls: 1},
		{name: "request changed: the rerun keeps 3", max: 3, setup: func(f *fixture) {
			f.ranRequest("search.eng", t0.Add(-2*day), api.SearchRequest{Params: kw("Old")}, 0, ids(1, 7)...)
		}, action: Rerun, reason: ReasonRequestChanged, calls: 1},
		{name: "replace", max: 3, setup: func(f *fixture) { f.ranMax("search.eng", 0, 7, 7) },
			replace: true, action: Rerun, reason: ReasonReplace, calls: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.eng", kw("Engineer"), maxResults(tt.max))
			f.export("x", "out/x.csv", "search.eng")
			tt.setup(f)
			f.wrote("export.x")
			o := f.opts()
			if tt.replace {
				o.Replace = []string{"search.eng"}
			}
			p := f.build(t, o)
			c := p.Change("search.eng")
			if c.Action != tt.action || c.Reason != tt.reason || c.Calls != tt.calls || c.CallsMax != tt.calls {
				t.Errorf("got %s/%s calls %d..%d, want %s/%s calls %d (%s)", c.Action, c.Reason, c.Calls, c.CallsMax, tt.action, tt.reason, tt.calls, c.Detail)
			}
			if !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", c.Detail, tt.detail)
			}
			// An update is a change: plan --detailed-exitcode exits 2,
			// and the exports are written again.
			if got, want := p.HasChanges(), tt.action != None; got != want {
				t.Errorf("HasChanges = %v, want %v", got, want)
			}
			if x := p.Change("export.x"); (x.Action == Write) != (tt.action != None) {
				t.Errorf("export: %s/%s", x.Action, x.Reason)
			}
			if tt.action == Update && (p.Totals.Updates != 1 || p.Totals.CallsMax != 0 || p.Totals.Searches != 0) {
				t.Errorf("totals %+v: want 1 update and no call", p.Totals)
			}
		})
	}
}

// An enrich block reads the leads a lowered max_results keeps, in the plan
// and in apply, before and after the cut.
func TestMaxResultsLoweredEnrich(t *testing.T) {
	f := newFixture()
	f.search("search.eng", kw("Engineer"), maxResults(3))
	f.ranMax("search.eng", 0, 7, 7)
	e := f.enrich("e", []string{"search.eng"}, 0, 0)
	want := ids(1, 3)
	c := f.build(t, f.opts()).Change("enrich.e")
	if c.Calls != 3 || c.CallsMax != 3 || !cmp.Equal(c.PersonIDs, want) {
		t.Errorf("plan enriches %d..%d %v, want the first 3", c.Calls, c.CallsMax, c.PersonIDs)
	}
	for _, when := range []string{"before the cut", "after the cut"} {
		todo, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(todo, want) {
			t.Errorf("%s: apply enriches %v, want %v", when, todo, want)
		}
		f.apply(state.Event{At: t0, Kind: state.EventTrim, Address: "search.eng", Trim: &state.TrimEvent{MaxResults: 3}})
	}
	// The people cut off stay in state, no longer found by the search.
	if p := f.st.People[ids(4, 1)[0]]; p == nil || len(p.FoundBy) != 0 {
		t.Errorf("person cut off: %+v", p)
	}
}

// ranMax records a run of the configured search addr with max_results mr
// that returned n results (people 1..n) and kept the first kept.
func (f *fixture) ranMax(addr string, mr, n, kept int) {
	var s *config.Search
	for _, x := range f.cfg.Searches {
		if x.Address == addr {
			s = x
		}
	}
	f.ranRequest(addr, t0.Add(-2*day), s.Request, mr, ids(1, n)...)
	if rec := f.st.Searches[addr]; len(rec.LeadIDs) != kept {
		panic("ranMax: kept " + strings.Join(rec.LeadIDs, ","))
	}
}

// A profile block whose person another profile block reads needs no call:
// one read in the run is recorded under both addresses, and a fresh read
// state holds is shared.
func TestProfileSharedRead(t *testing.T) {
	type want struct {
		action Action
		reason Reason
		sameAs string
		detail string // substring
	}
	tests := []struct {
		name  string
		setup func(f *fixture, o *Options)
		want  map[string]want
	}{
		{name: "both new, same page in another case: read once", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.profile(`profile.founder["erika"]`, "erika_musterfrau")
		}, want: map[string]want{
			"profile.advisor":          {Read, ReasonNew, "", ""},
			`profile.founder["erika"]`: {Update, ReasonSamePerson, "profile.advisor", "same person as profile.advisor: read once (no call)"},
		}},
		{name: "profile_url and page_name of the same page", setup: func(f *fixture, o *Options) {
			p := f.profile("profile.advisor", "Erika_Musterfrau")
			p.Request = api.PageRequest{ProfileURL: "https://network.example/profile/Erika_Musterfrau"}
			f.profile(`profile.founder["erika"]`, "Erika_Musterfrau")
		}, want: map[string]want{
			"profile.advisor":          {Read, ReasonNew, "", ""},
			`profile.founder["erika"]`: {Update, ReasonSamePerson, "profile.advisor", ""},
		}},
		{name: "other pages: two reads", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.profile(`profile.founder["max"]`, "Max_Mustermann")
		}, want: map[string]want{
			"profile.advisor":        {Read, ReasonNew, "", ""},
			`profile.founder["max"]`: {Read, ReasonNew, "", ""},
		}},
		{name: "a fresh read in state is shared", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-2*day))
			f.profile(`profile.founder["erika"]`, "ERIKA_MUSTERFRAU")
		}, want: map[string]want{
			"profile.advisor":          {None, ReasonUpToDate, "", ""},
			`profile.founder["erika"]`: {Update, ReasonSamePerson, "profile.advisor", "same person as profile.advisor, read 2 days ago: no call"},
		}},
		{name: "a stale own read, another fresh one in state", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			b := f.profile("profile.b", "Erika_Musterfrau")
			b.Refresh = 30 * day
			f.read("profile.b", t0.Add(-31*day))
			f.read("profile.advisor", t0.Add(-day))
		}, want: map[string]want{
			"profile.advisor": {None, ReasonUpToDate, "", ""},
			"profile.b":       {Update, ReasonSamePerson, "profile.advisor", "read 24 h ago"},
		}},
		{name: "the read in state is older than this block's refresh", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-31*day))
			b := f.profile("profile.b", "Erika_Musterfrau")
			b.Refresh = 30 * day
		}, want: map[string]want{
			"profile.advisor": {None, ReasonUpToDate, "", ""},
			"profile.b":       {Read, ReasonNew, "", ""},
		}},
		{name: "without refresh any read in state will do", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-400*day))
			f.profile("profile.b", "Erika_Musterfrau")
		}, want: map[string]want{
			"profile.b": {Update, ReasonSamePerson, "profile.advisor", "read 400 days ago"},
		}},
		{name: "replace reads, even with a fresh read in state", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-day))
			f.profile("profile.b", "Erika_Musterfrau")
			o.Replace = []string{"profile.b"}
		}, want: map[string]want{
			"profile.advisor": {None, ReasonUpToDate, "", ""},
			"profile.b":       {Read, ReasonNew, "", ""},
		}},
		{name: "replacing both reads once", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.profile("profile.b", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-day))
			f.read("profile.b", t0.Add(-day))
			o.Replace = []string{"profile.advisor", "profile.b"}
		}, want: map[string]want{
			"profile.advisor": {Read, ReasonReplace, "", ""},
			"profile.b":       {Update, ReasonSamePerson, "profile.advisor", "read once"},
		}},
		{name: "a read of an address the configuration no longer has is not shared", setup: func(f *fixture, o *Options) {
			f.profile("profile.old", "Erika_Musterfrau")
			f.read("profile.old", t0.Add(-day))
			f.cfg.Profiles = nil
			f.profile("profile.b", "Erika_Musterfrau")
		}, want: map[string]want{
			"profile.old": {Forget, ReasonRemoved, "", ""},
			"profile.b":   {Read, ReasonNew, "", ""},
		}},
		{name: "a read of another generation is not shared", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-day))
			f.st.Profiles["profile.advisor"].Generation = api.Gen2
			f.profile("profile.b", "Erika_Musterfrau")
			o.Targets = []string{"profile.b"}
		}, want: map[string]want{
			"profile.b": {Read, ReasonNew, "", ""},
		}},
		{name: "a read whose person retention removes first is not shared", setup: func(f *fixture, o *Options) {
			f.cfg.Settings.Retention = 30 * day
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-40*day))
			f.profile("profile.b", "Erika_Musterfrau")
		}, want: map[string]want{
			"people":          {Forget, ReasonRetention, "", ""},
			"profile.advisor": {None, ReasonUpToDate, "", ""},
			"profile.b":       {Read, ReasonNew, "", ""},
		}},
		{name: "targeted: a read in state of a block not targeted is shared", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.read("profile.advisor", t0.Add(-day))
			f.profile("profile.b", "Erika_Musterfrau")
			o.Targets = []string{"profile.b"}
		}, want: map[string]want{
			"profile.b": {Update, ReasonSamePerson, "profile.advisor", ""},
		}},
		{name: "targeted: a read of this run must be planned to be shared", setup: func(f *fixture, o *Options) {
			f.profile("profile.advisor", "Erika_Musterfrau")
			f.profile("profile.b", "Erika_Musterfrau")
			o.Targets = []string{"profile.b"}
		}, want: map[string]want{
			"profile.b": {Read, ReasonNew, "", ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			o := f.opts()
			tt.setup(f, &o)
			p := f.build(t, o)
			reads, updates := 0, 0
			for addr, w := range tt.want {
				c := p.Change(addr)
				if c == nil {
					t.Fatalf("no change for %s", addr)
				}
				if c.Action != w.action || c.Reason != w.reason || c.SameAs != w.sameAs || !strings.Contains(c.Detail, w.detail) {
					t.Errorf("%s: got %s/%s same_as %q (%s), want %s/%s same_as %q (%s)", addr, c.Action, c.Reason, c.SameAs, c.Detail, w.action, w.reason, w.sameAs, w.detail)
				}
				switch w.action {
				case Read:
					reads++
				case Update:
					updates++
					if c.Calls != 0 || c.CallsMax != 0 {
						t.Errorf("%s: an update with calls %d..%d", addr, c.Calls, c.CallsMax)
					}
				}
			}
			if p.Totals.Profiles != reads || p.Totals.Updates != updates {
				t.Errorf("totals: %d profile reads, %d updates; want %d and %d", p.Totals.Profiles, p.Totals.Updates, reads, updates)
			}
		})
	}
}

// An enrich block that reads a profile sharing a read counts its person:
// known when the read is in state, up to one when it is made in the run.
// Apply, once the share is recorded, chooses the same people.
func TestProfileSharedReadEnrich(t *testing.T) {
	f := newFixture()
	f.profile("profile.advisor", "Erika_Musterfrau")
	f.read("profile.advisor", t0.Add(-day))
	b := f.profile("profile.b", "Erika_Musterfrau")
	e := f.enrich("e", []string{"profile.b"}, 0, 0)
	c := f.build(t, f.opts()).Change("enrich.e")
	person := f.st.Profiles["profile.advisor"].PersonID
	if c.Calls != 1 || c.CallsMax != 1 || !cmp.Equal(c.PersonIDs, []string{person}) {
		t.Errorf("shared from state: enrich %d..%d %v, want 1..1 [%s]", c.Calls, c.CallsMax, c.PersonIDs, person)
	}
	body, _ := json.Marshal(b.Request)
	f.apply(state.Event{At: t0, Kind: state.EventProfileShare, Address: "profile.b", Share: &state.ProfileShareEvent{
		From: "profile.advisor", Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body)}})
	todo, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, nil)
	if err != nil || !cmp.Equal(todo, []string{person}) {
		t.Errorf("apply after the share enriches %v (%v), want [%s]", todo, err, person)
	}
	if p := f.build(t, f.opts()).Change("profile.b"); p.Action != None {
		t.Errorf("after the share profile.b is %s/%s (%s), want up to date", p.Action, p.Reason, p.Detail)
	}

	// Both read in this run: the person is not known yet.
	g := newFixture()
	g.profile("profile.advisor", "Erika_Musterfrau")
	g.profile("profile.b", "Erika_Musterfrau")
	g.enrich("e", []string{"profile.b"}, 0, 0)
	if c := g.build(t, g.opts()).Change("enrich.e"); c.Calls != 0 || c.CallsMax != 1 {
		t.Errorf("shared in the run: enrich %d..%d, want 0..1", c.Calls, c.CallsMax)
	}
}
