package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

func TestSearchActions(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture)
		opts   func(o *Options)
		action Action
		reason Reason
		calls  int
		detail string // substring
	}{
		{name: "new", setup: func(f *fixture) {}, action: Run, reason: ReasonNew, calls: 1, detail: `keywords="CTO" city="Berlin"`},
		{name: "new after a failure", setup: func(f *fixture) {
			f.apply(failure("search.cto", t0.Add(-3*time.Hour), "400 Bad Request"))
		}, action: Run, reason: ReasonNew, calls: 1, detail: "last attempt 3 h ago failed: 400 Bad Request"},
		{name: "up to date", setup: func(f *fixture) { f.ran("search.cto", t0.Add(-2*day), ids(1, 3)...) },
			action: None, reason: ReasonUpToDate, detail: "ran 2 days ago, 3 leads kept"},
		{name: "same request formatted otherwise", setup: func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
			f.st.Searches["search.cto"].Request = json.RawMessage("{\n  \"city\": \"Berlin\",\n  \"keywords\": \"CTO\"\n}")
		}, action: None, reason: ReasonUpToDate},
		{name: "request changed", setup: func(f *fixture) {
			f.ranRequest("search.cto", t0.Add(-day), api.SearchRequest{Params: kw("CTO", "city", "Munich")}, 0, ids(1, 3)...)
		}, action: Rerun, reason: ReasonRequestChanged, calls: 1, detail: `city "Munich" -> "Berlin"`},
		{name: "filter added", setup: func(f *fixture) {
			f.ranRequest("search.cto", t0.Add(-day), api.SearchRequest{Params: kw("CTO")}, 0, ids(1, 3)...)
		}, action: Rerun, reason: ReasonRequestChanged, calls: 1, detail: "city added"},
		{name: "generation changed", setup: func(f *fixture) {
			f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
			f.cfg.API.Generation = api.Gen2
		}, action: Rerun, reason: ReasonGenerationChanged, calls: 1, detail: "generation changed: 1 -> 2"},
		{name: "replace", setup: func(f *fixture) { f.ran("search.cto", t0.Add(-day), ids(1, 3)...) },
			opts: func(o *Options) { o.Replace = []string{"search.cto"} }, action: Rerun, reason: ReasonReplace, calls: 1},
		{name: "refresh due", setup: func(f *fixture) {
			f.cfg.Searches[0].Refresh = 7 * day
			f.ran("search.cto", t0.Add(-9*day), ids(1, 3)...)
		}, action: Refresh, reason: ReasonRefresh, calls: 1, detail: "last run 9 days ago (refresh = 7d)"},
		{name: "refresh exactly due", setup: func(f *fixture) {
			f.cfg.Searches[0].Refresh = 7 * day
			f.ran("search.cto", t0.Add(-7*day), ids(1, 3)...)
		}, action: Refresh, reason: ReasonRefresh, calls: 1},
		{name: "refresh not due", setup: func(f *fixture) {
			f.cfg.Searches[0].Refresh = 7 * day
			f.ran("search.cto", t0.Add(-6*day), ids(1, 3)...)
		}, action: None, reason: ReasonUpToDate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.cto", kw("CTO", "city", "Berlin"))
			tt.setup(f)
			o := f.opts()
			if tt.opts != nil {
				tt.opts(&o)
			}
			p := f.build(t, o)
			c := p.Change("search.cto")
			if c.Action != tt.action || c.Reason != tt.reason || c.Calls != tt.calls || c.CallsMax != tt.calls {
				t.Errorf("got %s/%s calls %d..%d, want %s/%s calls %d", c.Action, c.Reason, c.Calls, c.CallsMax, tt.action, tt.reason, tt.calls)
			}
			if !strings.Contains(c.Detail, tt.detail) {
				t.Errorf("detail %q does not contain %q", c.Detail, tt.detail)
			}
		})
	}
}

func TestProfileActions(t *testing.T) {
	tests := []struct {
		name   string
		setup  func(f *fixture)
		action Action
		reason Reason
	}{
		{"new", func(f *fixture) {}, Read, ReasonNew},
		{"up to date", func(f *fixture) { f.read("profile.founder", t0.Add(-day)) }, None, ReasonUpToDate},
		{"changed", func(f *fixture) {
			f.read("profile.founder", t0.Add(-day))
			f.cfg.Profiles[0].Request.PageName = "Erika"
			f.cfg.Profiles[0].PageName = "Erika"
		}, Read, ReasonRequestChanged},
		{"stale", func(f *fixture) {
			f.read("profile.founder", t0.Add(-31*day))
			f.cfg.Profiles[0].Refresh = 30 * day
		}, Read, ReasonRefresh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.profile("profile.founder", "Max_Mustermann")
			tt.setup(f)
			c := f.build(t, f.opts()).Change("profile.founder")
			if c.Action != tt.action || c.Reason != tt.reason {
				t.Errorf("got %s/%s, want %s/%s", c.Action, c.Reason, tt.action, tt.reason)
			}
		})
	}
}

func TestEnrichCounts(t *testing.T) {
	tests := []struct {
		name            string
		setup           func(f *fixture)
		calls, callsMax int
		people          []string
	}{
		{name: "nothing run: bound from searches", setup: func(f *fixture) {
			f.enrich("e", []string{"search.a", "search.b"}, 0, 0)
		}, calls: 0, callsMax: 300 + 20},
		{name: "limit caps the bound", setup: func(f *fixture) {
			f.enrich("e", []string{"search.a", "search.b"}, 50, 0)
		}, calls: 0, callsMax: 50},
		{name: "known people exact; person in two searches once", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 5)...)
			f.ran("search.b", t0.Add(-day), ids(3, 5)...)
			f.enrich("e", []string{"search.a", "search.b"}, 0, 0)
		}, calls: 7, callsMax: 7, people: ids(1, 7)},
		{name: "enriched and fresh are skipped", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 5)...)
			f.enriched(ids(1, 1)[0], "enrich.other", t0.Add(-400*day))
			f.enrich("e", []string{"search.a"}, 0, 0)
		}, calls: 4, callsMax: 4, people: ids(2, 4)},
		{name: "stale enrichments are refreshed", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 5)...)
			f.enriched(ids(1, 1)[0], "enrich.e", t0.Add(-200*day))
			f.enriched(ids(2, 1)[0], "enrich.e", t0.Add(-100*day))
			f.enrich("e", []string{"search.a"}, 0, 180*day)
		}, calls: 4, callsMax: 4, people: append(ids(1, 1), ids(3, 3)...)},
		{name: "limit counts people already enriched by the block", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 10)...)
			f.enriched(ids(1, 1)[0], "enrich.e", t0.Add(-day))
			f.enriched(ids(2, 1)[0], "enrich.e", t0.Add(-day))
			f.enrich("e", []string{"search.a"}, 5, 0)
		}, calls: 3, callsMax: 3, people: ids(3, 3)},
		{name: "refreshing own people takes no place", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 10)...)
			f.enriched(ids(1, 1)[0], "enrich.e", t0.Add(-200*day))
			f.enriched(ids(2, 1)[0], "enrich.e", t0.Add(-day))
			f.enrich("e", []string{"search.a"}, 3, 180*day)
		}, calls: 2, callsMax: 2, people: append(ids(1, 1), ids(3, 1)...)},
		{name: "limit reached", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 10)...)
			for _, id := range ids(1, 3) {
				f.enriched(id, "enrich.e", t0.Add(-day))
			}
			f.enrich("e", []string{"search.a"}, 3, 0)
		}, calls: 0, callsMax: 0},
		// An enrichment whose outcome is unknown may have been charged: it
		// holds its place, so a limit of 3 with 2 enriched and 1 unknown
		// leaves no place for someone new; only the unknown one may be
		// enriched again (without it, person 1 would have been the 4th).
		{name: "an unknown outcome holds its place in the limit", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 10)...)
			f.enriched(ids(2, 1)[0], "enrich.e", t0.Add(-day))
			f.enriched(ids(3, 1)[0], "enrich.e", t0.Add(-day))
			f.apply(state.Event{At: t0.Add(-day), Kind: state.EventEnrichUnknown, Address: "enrich.e",
				Enrich: &state.EnrichEvent{PersonID: ids(4, 1)[0], Credits: 1}, Failure: &state.Failure{Message: "connection reset"}})
			f.enrich("e", []string{"search.a"}, 3, 0)
		}, calls: 1, callsMax: 1, people: ids(4, 1)},
		{name: "known plus searches that will run", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 12)...)
			f.enrich("e", []string{"search.a", "search.b"}, 50, 0)
		}, calls: 12, callsMax: 32, people: ids(1, 12)},
		{name: "leads of a search that reruns are not known", setup: func(f *fixture) {
			f.ranRequest("search.a", t0.Add(-day), api.SearchRequest{Params: kw("old")}, 0, ids(1, 12)...)
			f.enrich("e", []string{"search.a"}, 0, 0)
		}, calls: 0, callsMax: 300},
		{name: "max_results lowered keeps the first leads", setup: func(f *fixture) {
			f.ran("search.b", t0.Add(-day), ids(1, 30)...)
			f.enrich("e", []string{"search.b"}, 0, 0)
		}, calls: 20, callsMax: 20, people: ids(1, 20)},
		{name: "profile person", setup: func(f *fixture) {
			f.profile("profile.founder", "Max_Mustermann")
			f.read("profile.founder", t0.Add(-day))
			f.enrich("e", []string{"profile.founder"}, 0, 0)
		}, calls: 1, callsMax: 1, people: []string{"page:Max_Mustermann"}},
		{name: "person without page name cannot be enriched", setup: func(f *fixture) {
			f.ran("search.a", t0.Add(-day), ids(1, 3)...)
			f.st.People[ids(1, 1)[0]].Lead.PageName = ""
			f.enrich("e", []string{"search.a"}, 0, 0)
		}, calls: 2, callsMax: 3 /* search.b runs and may bring the page name */, people: ids(2, 2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.a", kw("a"))
			f.search("search.b", kw("b"), maxResults(20))
			tt.setup(f)
			p := f.build(t, f.opts())
			c := p.Change("enrich.e")
			if c.Calls != tt.calls || c.CallsMax != tt.callsMax {
				t.Errorf("calls %d..%d, want %d..%d (%s)", c.Calls, c.CallsMax, tt.calls, tt.callsMax, c.Detail)
			}
			if c.Credits != c.Calls || c.CreditsMax != c.CallsMax {
				t.Errorf("credits %d..%d for calls %d..%d at 1 credit each", c.Credits, c.CreditsMax, c.Calls, c.CallsMax)
			}
			// At 3 credits an enrichment, the same calls cost three times
			// as much, in the change and in the totals.
			f.cfg.API.CreditsPerEnrich, f.cfg.API.MaxCredits = 3, 10_000
			p3 := f.build(t, f.opts())
			c3 := p3.Change("enrich.e")
			if c3.Calls != c.Calls || c3.CallsMax != c.CallsMax || c3.Credits != 3*c.Calls || c3.CreditsMax != 3*c.CallsMax {
				t.Errorf("at 3 credits each: calls %d..%d, credits %d..%d; want calls %d..%d, credits %d..%d",
					c3.Calls, c3.CallsMax, c3.Credits, c3.CreditsMax, c.Calls, c.CallsMax, 3*c.Calls, 3*c.CallsMax)
			}
			if p3.Totals.Credits != c3.Credits || p3.Totals.CreditsMax != c3.CreditsMax {
				t.Errorf("at 3 credits each: totals %d..%d credits, want the change's %d..%d", p3.Totals.Credits, p3.Totals.CreditsMax, c3.Credits, c3.CreditsMax)
			}
			f.cfg.API.CreditsPerEnrich, f.cfg.API.MaxCredits = 1, 500
			if tt.people == nil {
				tt.people = []string{}
			}
			if diff := cmp.Diff(tt.people, c.PersonIDs); diff != "" {
				t.Errorf("people (-want +got):\n%s", diff)
			}
			// Apply's choice equals the plan's when nothing runs first.
			if c.CallsMax == c.Calls {
				todo, err := EnrichCandidatesClaimed(f.cfg, f.st, f.cfg.Enriches[0], t0, nil)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.people, append([]string{}, todo...)); diff != "" {
					t.Errorf("EnrichCandidatesClaimed differs from the plan (-plan +apply):\n%s", diff)
				}
			}
		})
	}
}

func TestEnrichWhere(t *testing.T) {
	useTestMatch(t)
	f := newFixture()
	f.search("search.a", kw("a"))
	f.search("search.b", kw("b"))
	f.ran("search.a", t0.Add(-day), ids(1, 10)...)
	f.ran("search.b", t0.Add(-2*day), ids(50, 2)...)
	for _, id := range ids(1, 4) {
		f.st.People[id].Lead.Company = ""
	}
	e := f.enrich("e", []string{"search.a"}, 0, 0)
	whereCompany(e)
	c := f.build(t, f.opts()).Change("enrich.e")
	if c.Calls != 6 || c.CallsMax != 6 {
		t.Errorf("nothing runs: calls %d..%d, want 6..6", c.Calls, c.CallsMax)
	}
	// Once a search runs, it may give the four without a company one.
	f.cfg.Searches[1].Refresh = day
	c = f.build(t, f.opts()).Change("enrich.e")
	if c.Calls != 6 || c.CallsMax != 10 {
		t.Errorf("search.b refreshes: calls %d..%d, want 6..10", c.Calls, c.CallsMax)
	}
}

func TestEnrichBlocksSharePeople(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("a"))
	f.ran("search.a", t0.Add(-day), ids(1, 10)...)
	f.enrich("first", []string{"search.a"}, 4, 0)
	f.enrich("second", []string{"search.a"}, 0, 0)
	p := f.build(t, f.opts())
	first, second := p.Change("enrich.first"), p.Change("enrich.second")
	if first.Calls != 4 || second.Calls != 6 {
		t.Errorf("calls first %d, second %d; want 4 and 6 (a person is enriched once)", first.Calls, second.Calls)
	}
	if p.Totals.Enrichments != 10 || p.Totals.EnrichmentsMax != 10 {
		t.Errorf("totals %d..%d, want 10..10", p.Totals.Enrichments, p.Totals.EnrichmentsMax)
	}
}

// TestEnrichOverlappingBlocks: blocks that read the same people, with
// nothing to run. A person goes to the first block in file order that
// wants them and takes none of the others' places; a place given back by
// another block's refresh is used in a second round. The plan is exact
// (calls = calls_max), and EnrichCandidatesClaimed, block by block, as
// apply calls it, chooses the same people.
func TestEnrichOverlappingBlocks(t *testing.T) {
	type block struct {
		name    string
		from    []string
		limit   int
		refresh time.Duration
	}
	tests := []struct {
		name   string
		blocks []block
		setup  func(f *fixture)
		want   map[string][]string // block -> people
	}{
		{name: "the second block goes on past the people of the first",
			blocks: []block{{"e1", []string{"search.a"}, 2, 0}, {"e2", []string{"search.b", "search.a"}, 2, 0}},
			setup: func(f *fixture) {
				f.ran("search.a", t0.Add(-day), ids(1, 4)...)
				f.ran("search.b", t0.Add(-day), ids(2, 1)[0], ids(1, 1)[0], ids(5, 1)[0], ids(6, 1)[0])
			},
			want: map[string][]string{"e1": ids(1, 2), "e2": ids(5, 2)}},
		{name: "a place given back by a refresh is used in a second round",
			blocks: []block{{"e1", []string{"search.a"}, 1, 0}, {"e2", []string{"search.a"}, 2, 5 * day}},
			setup: func(f *fixture) {
				f.ran("search.a", t0.Add(-day), ids(1, 4)...)
				f.ran("search.b", t0.Add(-day))
				f.enriched(ids(1, 1)[0], "enrich.e1", t0.Add(-10*day))
			},
			want: map[string][]string{"e1": ids(3, 1), "e2": ids(1, 2)}},
		{name: "a block that claimed first keeps its people in the second round",
			blocks: []block{{"e1", []string{"search.a"}, 1, 0}, {"e2", []string{"search.a"}, 1, 5 * day}, {"e3", []string{"search.a"}, 0, 0}},
			setup: func(f *fixture) {
				f.ran("search.a", t0.Add(-day), ids(1, 4)...)
				f.ran("search.b", t0.Add(-day))
				f.enriched(ids(1, 1)[0], "enrich.e1", t0.Add(-10*day))
			},
			want: map[string][]string{"e1": {}, "e2": ids(1, 1), "e3": ids(2, 3)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.a", kw("a"))
			f.search("search.b", kw("b"))
			for _, b := range tt.blocks {
				f.enrich(b.name, b.from, b.limit, b.refresh)
			}
			tt.setup(f)
			p := f.build(t, f.opts())
			total := 0
			for _, b := range tt.blocks {
				c := p.Change("enrich." + b.name)
				want := tt.want[b.name]
				total += len(want)
				if diff := cmp.Diff(want, c.PersonIDs); diff != "" {
					t.Errorf("%s: people (-want +got):\n%s", b.name, diff)
				}
				if c.Calls != len(want) || c.CallsMax != len(want) {
					t.Errorf("%s: calls %d..%d, want %d..%d (%s)", b.name, c.Calls, c.CallsMax, len(want), len(want), c.Detail)
				}
			}
			if p.Totals.Enrichments != total || p.Totals.EnrichmentsMax != total {
				t.Errorf("totals %d..%d, want %d..%d", p.Totals.Enrichments, p.Totals.EnrichmentsMax, total, total)
			}
			// Apply's rounds: every block claims in turn; then, once the
			// enrichments are made, again, until a round claims nobody.
			claims := Claims{}
			var queued []string
			got := map[string][]string{}
			for {
				for _, id := range queued {
					f.enriched(id, claims[id], t0)
				}
				queued = nil
				for _, e := range f.cfg.Enriches {
					todo, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, claims)
					if err != nil {
						t.Fatal(err)
					}
					for _, id := range todo {
						claims[id] = e.Address
						queued = append(queued, id)
						got[e.Name] = append(got[e.Name], id)
					}
				}
				if len(queued) == 0 {
					break
				}
			}
			for _, b := range tt.blocks {
				if diff := cmp.Diff(tt.want[b.name], append([]string{}, got[b.name]...)); diff != "" {
					t.Errorf("%s: apply's choice differs from the plan (-plan +apply):\n%s", b.name, diff)
				}
			}
		})
	}
}

func TestForgetAndExports(t *testing.T) {
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.export("marketing", "out/leads.xlsx", "search.cto")
	f.ran("search.cto", t0.Add(-day), ids(1, 3)...)
	f.wrote("export.marketing")
	p := f.build(t, f.opts())
	if p.HasChanges() {
		t.Fatalf("want no changes, got %+v", p.Changes)
	}
	f.ranRequest("search.old", t0.Add(-day), api.SearchRequest{Params: kw("old")}, 0, ids(10, 41)...)
	p = f.build(t, f.opts())
	if c := p.Change("search.old"); c == nil || c.Action != Forget || c.CallsMax != 0 || !strings.Contains(c.Detail, "its 41 leads") {
		t.Errorf("search.old: %+v", c)
	}
	if c := p.Change("export.marketing"); c.Action != Write || c.Reason != ReasonStateChanges {
		t.Errorf("export: %+v", c)
	}
	delete(f.exists, "/work/leads/out/leads.xlsx")
	delete(f.st.Searches, "search.old")
	p = f.build(t, f.opts())
	if c := p.Change("export.marketing"); c.Action != Write || c.Reason != ReasonFileMissing {
		t.Errorf("export with missing file: %+v", c)
	}
}

func TestTargets(t *testing.T) {
	f := newFixture()
	f.search(`search.cto["Berlin"]`, kw("CTO", "city", "Berlin"))
	f.search(`search.cto["Hamburg"]`, kw("CTO", "city", "Hamburg"))
	f.search("search.cfo", kw("CFO"))
	f.profile("profile.founder", "Max")
	f.enrich("cto", []string{`search.cto["Berlin"]`}, 0, 0)
	f.ranRequest("search.old", t0, api.SearchRequest{Params: kw("old")}, 0, ids(1, 2)...)
	f.ranRequest(`search.cto["Munich"]`, t0, api.SearchRequest{Params: kw("CTO", "city", "Munich")}, 0, ids(3, 4)...)
	// A record whose address does not parse (a state file edited by
	// hand), before the others in address order: named by its text
	// alone, it takes no other record's place in the index.
	f.ranRequest("search.a.b", t0, api.SearchRequest{Params: kw("ab")}, 0, ids(5, 6)...)
	addrs := func(p *Plan) []string {
		var out []string
		for _, c := range p.Changes {
			out = append(out, c.Address)
		}
		return out
	}
	tests := []struct {
		targets []string
		want    []string
	}{
		// The block names its instances of the state too: one the
		// configuration no longer has is forgotten.
		{[]string{"search.cto"}, []string{`search.cto["Berlin"]`, `search.cto["Hamburg"]`, `search.cto["Munich"]`}},
		{[]string{`search.cto["Hamburg"]`}, []string{`search.cto["Hamburg"]`}},
		{[]string{`search.cto["Munich"]`, `search.cto["Hamburg"]`}, []string{`search.cto["Hamburg"]`, `search.cto["Munich"]`}},
		{[]string{"enrich.cto"}, []string{`search.cto["Berlin"]`, "enrich.cto"}},
		{[]string{"search.old", "profile.founder"}, []string{"profile.founder", "search.old"}},
		{[]string{"search.a.b"}, []string{"search.a.b"}},
	}
	for _, tt := range tests {
		o := f.opts()
		o.Targets = tt.targets
		if diff := cmp.Diff(tt.want, addrs(f.build(t, o))); diff != "" {
			t.Errorf("targets %v (-want +got):\n%s", tt.targets, diff)
		}
	}
	for _, bad := range []struct {
		targets, replace []string
		msg              string
	}{
		{targets: []string{"search.nope"}, msg: `Unknown target "search.nope"`},
		// A typo gets the nearest address, of the configuration or of the
		// state, instance or block.
		{targets: []string{"search.cof"}, msg: `--target search.cof names nothing in the configuration or the state. Did you mean search.cfo?`},
		{targets: []string{`search.cto["Hamburgh"]`}, msg: `Did you mean search.cto["Hamburg"]?`},
		{targets: []string{"enrich.ctos"}, msg: `Did you mean enrich.cto?`},
		{targets: []string{"search.olf"}, msg: `Did you mean search.old?`},
		{replace: []string{"enrich.cto"}, msg: "Cannot replace enrich.cto"},
		{replace: []string{`search.cto["Paris"]`}, msg: "Unknown address to replace"},
	} {
		o := f.opts()
		o.Targets, o.Replace = bad.targets, bad.replace
		_, diags := Build(f.cfg, f.st, o)
		if !diags.HasErrors() || !strings.Contains(diags.Error(), bad.msg) {
			t.Errorf("%v %v: diags %q, want %q", bad.targets, bad.replace, diags.Error(), bad.msg)
		}
	}
}

func TestQuotaAndCredits(t *testing.T) {
	f := newFixture()
	for _, city := range []string{"A", "B", "C"} {
		f.search(`search.cto["`+city+`"]`, kw("CTO", "city", city))
	}
	f.enrich("all", []string{"search.cto"}, 0, 0)
	o := f.opts()
	_, diags := Build(f.cfg, f.st, o)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "more credits than max_credits") ||
		!strings.Contains(diags[0].Detail, "enrich.all: up to 900 credits") {
		t.Errorf("credits: %v", diags)
	}
	f.cfg.Enriches[0].Limit = 100
	o.Usage = &api.Usage{RemainingRequests: 150}
	p, diags := Build(f.cfg, f.st, o)
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "too few requests") ||
		!strings.Contains(diags[0].Detail, "search.cto (3 instances): 3 calls") {
		t.Errorf("quota: %v", diags)
	}
	if *p.Quota.After != 150-103 {
		t.Errorf("after %d", *p.Quota.After)
	}
	o.Usage = nil
	o.Offline = true
	p, diags = Build(f.cfg, f.st, o)
	if diags.HasErrors() || p.Quota.Checked || p.Quota.Note != "not checked (--offline)" {
		t.Errorf("offline: %v %+v", diags, p.Quota)
	}
}

func TestDurationMax(t *testing.T) {
	tests := []struct {
		searches, others int
		rate             float64
		par              int
		want             int
	}{
		{0, 0, 1, 4, 0},
		{1, 0, 1, 4, 31},
		{2, 50, 1, 4, 82},
		{4, 0, 1, 4, 34},
		{8, 0, 1, 4, 60}, // two batches of 4: the second starts after 30 s
		{5000, 0, 1, 4, 37500},
		{0, 10, 2, 4, 5},
	}
	for _, tt := range tests {
		if got := durationMax(tt.searches, tt.others, tt.rate, tt.par); got != tt.want {
			t.Errorf("durationMax(%d, %d, %g, %d) = %d, want %d", tt.searches, tt.others, tt.rate, tt.par, got, tt.want)
		}
	}
}

func TestRedactsSensitiveValues(t *testing.T) {
	f := newFixture()
	f.cfg.API.APIKey = "sk-secret-key"
	f.search("search.x", kw("sk-secret-key"))
	p := f.build(t, f.opts())
	var b strings.Builder
	if err := WriteJSON(&b, p); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "sk-secret-key") {
		t.Errorf("plan shows the key:\n%s", b.String())
	}
}

// TestEnrichUnknownOutcomeIsShown: the plan says that a person whose last
// enrichment had an unknown outcome is enriched again, and what it may cost.
func TestEnrichUnknownOutcomeIsShown(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("a"))
	f.ran("search.a", t0.Add(-day), ids(1, 3)...)
	f.enriched(ids(1, 1)[0], "enrich.e", t0.Add(-day))
	f.apply(state.Event{At: t0.Add(-day), Kind: state.EventEnrichUnknown, Address: "enrich.e",
		Enrich: &state.EnrichEvent{PersonID: ids(2, 1)[0], Credits: 1}, Failure: &state.Failure{Message: "timeout"}})
	f.enrich("e", []string{"search.a"}, 0, 0)
	c := f.build(t, f.opts()).Change("enrich.e")
	if c.UnknownOutcomes != 1 || c.Calls != 2 {
		t.Fatalf("unknown outcomes %d, calls %d; want 1 and 2", c.UnknownOutcomes, c.Calls)
	}
	const want = "1 enrichment with an unknown outcome from the last run: re-enriching may cost 1 more credit"
	if !strings.Contains(c.Detail, want) {
		t.Errorf("detail %q does not say %q", c.Detail, want)
	}
}

// TestQuotaCountsFirstGenerationOnly: the monthly quota applies to the
// first generation (the service's spec, section 8). Enrichments always use
// it; searches and profile reads only with generation = 1. The requests
// left after the plan, the refusal and its breakdown count those calls.
func TestQuotaCountsFirstGenerationOnly(t *testing.T) {
	tests := []struct {
		name       string
		gen        api.Generation
		enrich     bool // an enrich block with limit 10 over the searches
		rem, min   int
		quota      int // Totals.QuotaCalls
		quotaMax   int // Totals.QuotaCallsMax
		callsMax   int
		after      int
		refused    bool
		breakdown  string // in the refusal
		notInBreak string // not in the refusal
	}{
		{name: "first generation only", gen: api.Gen1, rem: 9114, min: 100,
			quota: 6, quotaMax: 6, callsMax: 6, after: 9108},
		{name: "first generation refused", gen: api.Gen1, rem: 105, min: 100,
			quota: 6, quotaMax: 6, callsMax: 6, after: 99, refused: true,
			breakdown: "search.cto (5 instances): 5 calls"},
		// The case of the review: five searches, 9,997 left, 9,997 kept.
		{name: "second generation only", gen: api.Gen2, rem: 9997, min: 9997,
			quota: 0, quotaMax: 0, callsMax: 6, after: 9997},
		{name: "mixed: enrichments use the quota", gen: api.Gen2, enrich: true, rem: 9114, min: 100,
			quota: 0, quotaMax: 10, callsMax: 16, after: 9104},
		{name: "mixed refused: only the enrichments count", gen: api.Gen2, enrich: true, rem: 109, min: 100,
			quota: 0, quotaMax: 10, callsMax: 16, after: 99, refused: true,
			breakdown: "enrich.all: up to 10 calls", notInBreak: "search.cto"},
		{name: "first generation with enrichments", gen: api.Gen1, enrich: true, rem: 9114, min: 100,
			quota: 6, quotaMax: 16, callsMax: 16, after: 9098},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.cfg.API.Generation, f.cfg.API.BaseURLV2 = tt.gen, "https://v2.example.com"
			f.cfg.API.MinRemainingRequests = tt.min
			for _, city := range []string{"A", "B", "C", "D", "E"} {
				f.search(`search.cto["`+city+`"]`, kw("CTO", "city", city))
			}
			f.profile("profile.founder", "Max_Mustermann")
			if tt.enrich {
				f.enrich("all", []string{"search.cto"}, 10, 0)
			}
			o := f.opts()
			o.Usage = &api.Usage{RemainingRequests: tt.rem}
			p, diags := Build(f.cfg, f.st, o)
			tot := p.Totals
			if tot.QuotaCalls != tt.quota || tot.QuotaCallsMax != tt.quotaMax || tot.CallsMax != tt.callsMax {
				t.Errorf("quota calls %d..%d of %d calls at most; want %d..%d of %d",
					tot.QuotaCalls, tot.QuotaCallsMax, tot.CallsMax, tt.quota, tt.quotaMax, tt.callsMax)
			}
			if p.Quota.After == nil || *p.Quota.After != tt.after {
				t.Errorf("after %v, want %d", p.Quota.After, tt.after)
			}
			if diags.HasErrors() != tt.refused {
				t.Fatalf("refused %v, want %v: %v", diags.HasErrors(), tt.refused, diags)
			}
			if !tt.refused {
				return
			}
			d := diags[0]
			if !strings.Contains(d.Summary, "too few requests") || !strings.Contains(d.Detail, tt.breakdown) ||
				(tt.notInBreak != "" && strings.Contains(d.Detail, tt.notInBreak)) {
				t.Errorf("refusal %q:\n%s\nwant it to list %q and not %q", d.Summary, d.Detail, tt.breakdown, tt.notInBreak)
			}
		})
	}
}

// TestCreditBalance: the plan compares its credits with the balance the
// last enrichment reported, shows it with its time, and warns (never
// refuses) when the plan's certain credits, or its bound, exceed it.
func TestCreditBalance(t *testing.T) {
	at := t0.Add(-2 * time.Hour)
	tests := []struct {
		name    string
		balance *int // nil: never reported
		noTime  bool // a balance without its time
		running bool // a search that runs adds up to 40 people to enrich
		after   *int
		warning string // the warning's summary; "" none
		detail  string
	}{
		{name: "unknown", balance: nil},
		{name: "known, enough", balance: ptr(100), after: ptr(95)},
		{name: "known, enough for the bound", balance: ptr(45), running: true, after: ptr(0)},
		{name: "bound exceeds it", balance: ptr(10), running: true, after: ptr(-35),
			warning: "The plan may need more credits than were left at the last enrichment",
			detail:  "The last enrichment, 2 h ago, left a balance of 10 credits; this plan may spend up to 45 credits (5 certain)."},
		{name: "certain credits exceed it", balance: ptr(3), after: ptr(-2),
			warning: "The plan needs more credits than were left at the last enrichment",
			detail:  "The last enrichment, 2 h ago, left a balance of 3 credits; this plan spends 5 credits."},
		{name: "certain and bound exceed it", balance: ptr(3), running: true, after: ptr(-42),
			warning: "The plan needs more credits than were left at the last enrichment",
			detail:  "left a balance of 3 credits; this plan spends at least 5 credits, up to 45."},
		{name: "zero is a warning too", balance: ptr(0), after: ptr(-5),
			warning: "The plan needs more credits than were left at the last enrichment",
			detail:  "If you have topped up the enrich credits since, apply as planned"},
		{name: "without its time", balance: ptr(1), noTime: true, after: ptr(-4),
			warning: "The plan needs more credits than were left at the last enrichment",
			detail:  "The last enrichment, at an unknown time, left a balance of 1 credit;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.known", kw("CTO"))
			f.ran("search.known", t0.Add(-day), ids(1, 5)...)
			from := []string{"search.known"}
			if tt.running {
				f.search("search.new", kw("CFO"), maxResults(40))
				from = append(from, "search.new")
			}
			f.enrich("all", from, 0, 0)
			f.st.Usage.CreditBalance = tt.balance
			if !tt.noTime {
				f.st.Usage.CreditBalanceAt = &at
			}
			p, diags := Build(f.cfg, f.st, f.opts())
			if diags.HasErrors() {
				t.Fatalf("refused: %v", diags)
			}
			c := p.Credits
			if !eqPtr(c.Balance, tt.balance) || !eqPtr(c.After, tt.after) {
				t.Errorf("balance %v after %v; want %v and %v", deref(c.Balance), deref(c.After), deref(tt.balance), deref(tt.after))
			}
			switch {
			case tt.balance == nil || tt.noTime:
				if c.CheckedAt != nil {
					t.Errorf("checked_at %v, want none", c.CheckedAt)
				}
			case c.CheckedAt == nil || !c.CheckedAt.Equal(at):
				t.Errorf("checked_at %v, want %v", c.CheckedAt, at)
			}
			var warnings []*hcl.Diagnostic
			for _, d := range diags {
				if d.Severity == hcl.DiagWarning {
					warnings = append(warnings, d)
				}
			}
			if tt.warning == "" {
				if len(warnings) != 0 {
					t.Errorf("unexpected warning: %v", warnings)
				}
				return
			}
			if len(warnings) != 1 || warnings[0].Summary != tt.warning || !strings.Contains(warnings[0].Detail, tt.detail) {
				t.Fatalf("warnings %v; want %q saying %q", warnings, tt.warning, tt.detail)
			}
			if len(p.Diagnostics) != 1 || p.Diagnostics[0].Severity != "warning" {
				t.Errorf("plan JSON diagnostics %+v; want the one warning", p.Diagnostics)
			}
		})
	}
}

// TestCreditBalanceWithoutEnrichments: a plan that enriches nobody shows
// the balance and never warns, even at 0.
func TestCreditBalanceWithoutEnrichments(t *testing.T) {
	f := newFixture()
	f.search("search.a", kw("CTO"))
	zero := 0
	f.st.Usage.CreditBalance = &zero
	p, diags := Build(f.cfg, f.st, f.opts())
	if len(diags) != 0 {
		t.Fatalf("diagnostics: %v", diags)
	}
	if p.Credits.Balance == nil || *p.Credits.Balance != 0 || p.Credits.After == nil || *p.Credits.After != 0 {
		t.Errorf("credits %+v; want balance 0, after 0", p.Credits)
	}
}

func ptr(n int) *int { return &n }

func eqPtr(a, b *int) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}
