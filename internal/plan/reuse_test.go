package plan

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// elsewhere is a ReuseLookup over enrichments other workspaces hold, by
// network ID; it records the keys asked about.
type elsewhere struct {
	held  map[string]state.Reusable
	asked []string
}

func (e *elsewhere) lookup(keys []string) (map[string]state.Reusable, error) {
	e.asked = append(e.asked, keys...)
	out := map[string]state.Reusable{}
	for _, k := range keys {
		if r, ok := e.held[k]; ok {
			out[k] = r
		}
	}
	return out, nil
}

func heldIn(ws string, at time.Time, email string) state.Reusable {
	return state.Reusable{Workspace: ws, Enrichment: state.Enrichment{EnrichedAt: at, By: "enrich.all",
		Result: api.EnrichedProfile{Email: email, ValidationStatus: "valid"}}}
}

func TestReusePlan(t *testing.T) {
	people := ids(1, 5)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	e := f.enrich("all", []string{"search.cto"}, 0, 30*day)
	f.enriched(people[4], "enrich.all", t0.Add(-40*day)) // stale here
	ew := &elsewhere{held: map[string]state.Reusable{
		"n:" + people[0]: heldIn("dach", t0.Add(-day), "a@x.example"),
		"n:" + people[1]: heldIn("uk", t0.Add(-2*day), "b@x.example"),
		"n:" + people[2]: heldIn("dach", t0.Add(-60*day), "c@x.example"), // too old for the refresh
		"n:" + people[4]: heldIn("dach", t0.Add(-3*day), "e@x.example"),  // newer than the stale one here
	}}
	o := f.opts()
	o.Reuse = ew.lookup
	p := f.build(t, o)
	c := p.Change("enrich.all")
	if !slices.Equal(c.PersonIDs, []string{people[2], people[3]}) || c.Reuses != 3 {
		t.Errorf("enriched %v, reuses %d; want people 3 and 4 paid, 3 copied", c.PersonIDs, c.Reuses)
	}
	if want := "2 people; reuses 2 enrichments from workspace dach, 1 enrichment from workspace uk (0 credits)"; c.Detail != want {
		t.Errorf("detail %q\nwant   %q", c.Detail, want)
	}
	rs := p.Savings.Reused
	if rs.People != 3 || rs.Credits != 3 || len(rs.Workspaces) != 2 || rs.Workspaces[0] != (WorkspaceReuse{"dach", 2}) {
		t.Errorf("savings %+v", rs)
	}
	// Everyone needing an enrichment was asked about once.
	if len(ew.asked) != 5*2 {
		t.Errorf("asked %v", ew.asked)
	}

	// Apply copies them first (Reuses), then claims the others.
	cands := NewCandidates(f.cfg, ew.lookup)
	reuses, err := cands.Reuses(f.st, e, t0)
	if err != nil || len(reuses) != 3 {
		t.Fatalf("reuses %v %v", reuses, err)
	}
	for _, r := range reuses {
		f.apply(state.Event{At: t0, Kind: state.EventReuse, Address: e.Address, Reuse: &state.ReuseEvent{PersonID: r.PersonID, Workspace: r.From.Workspace, Enrichment: r.From.Enrichment}})
	}
	got, err := cands.Claimed(f.st, e, t0, nil)
	if err != nil || !slices.Equal(got, []string{people[2], people[3]}) {
		t.Errorf("claimed %v %v", got, err)
	}
	if p0 := f.st.People[people[0]]; p0.Enrichment.ReusedFrom() != "dach" || !p0.Enrichment.EnrichedAt.Equal(t0.Add(-day)) || f.st.Usage.CreditsSpent != 1 {
		t.Errorf("copied: %+v, credits %d", p0.Enrichment, f.st.Usage.CreditsSpent)
	}
	// A copy takes no place under the block's limit here.
	if n := newEnv(f.cfg, f.st, t0).ownedBy(e.Address); n != 0 {
		t.Errorf("the block owns %d after the copies", n)
	}

	// A lookup that fails stops the plan.
	o.Reuse = func([]string) (map[string]state.Reusable, error) { return nil, errors.New("connection refused") }
	f2 := newFixture()
	f2.search("search.cto", kw("CTO"))
	f2.ran("search.cto", t0.Add(-time.Hour), people...)
	f2.enrich("all", []string{"search.cto"}, 0, 0)
	if _, diags := Build(f2.cfg, f2.st, o); !diags.HasErrors() {
		t.Error("a failed lookup was ignored")
	}
}
