package plan

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
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

// heldIn is an enrichment workspace ws made at the company of person id
// in the fixture (lead's "Co <id>", domain co-<id>.example).
func heldIn(ws string, at time.Time, email string, id string) state.Reusable {
	return heldAt(ws, at, email, lead(id).Company, "co-"+strings.ReplaceAll(id, ".", "-")+".example")
}

// heldAt is an enrichment workspace ws made while the person worked at
// company (domain).
func heldAt(ws string, at time.Time, email, company, domain string) state.Reusable {
	return state.Reusable{Workspace: ws, Enrichment: state.Enrichment{EnrichedAt: at, By: "enrich.all",
		Result: person.EnrichedProfile{Email: email, ValidationStatus: "valid", Company: company, CompanyDomain: domain}}}
}

func TestReusePlan(t *testing.T) {
	people := ids(1, 5)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	e := f.enrich("all", []string{"search.cto"}, 0, 30*day)
	f.enriched(people[4], "enrich.all", t0.Add(-40*day)) // stale here
	ew := &elsewhere{held: map[string]state.Reusable{
		"n:" + people[0]: heldIn("dach", t0.Add(-day), "a@x.example", people[0]),
		"n:" + people[1]: heldIn("uk", t0.Add(-2*day), "b@x.example", people[1]),
		"n:" + people[2]: heldIn("dach", t0.Add(-60*day), "c@x.example", people[2]), // too old for the refresh
		"n:" + people[4]: heldIn("dach", t0.Add(-3*day), "e@x.example", people[4]),  // newer than the stale one here
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
	// A copy was made by no call of the block, but holds one of its
	// places (TestReuseRespectsLimit).
	if v := newEnv(f.cfg, f.st, t0); v.ownedBy(e.Address) != 0 || v.ownedList(e.Address).copies != 3 {
		t.Errorf("the block owns %d and copied %d after the copies, want 0 and 3", v.ownedBy(e.Address), v.ownedList(e.Address).copies)
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

// TestReuseFormerEmployer: another workspace enriched a person at company
// A; they now work at B (their lead here says so). That e-mail is A's: it
// is not copied, the person is enriched (and the plan prices it). The
// company is compared by the domain this workspace's enrichments give it
// where they give one, else by name (legal forms and case aside).
func TestReuseFormerEmployer(t *testing.T) {
	people := ids(1, 4)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, 0, 0)
	// A colleague of person 4 at "Co 4.0004" enriched here: that company's
	// domain is co4.example.
	body, _ := json.Marshal(kw("removed"))
	f.apply(state.Event{At: t0.Add(-2 * time.Hour), Kind: state.EventSearch, Address: "search.old", Search: &state.SearchEvent{
		Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body),
		Leads: []person.Lead{{FullName: "Col League", Company: "Co 4.0004", NetworkID: "9.0009", PageName: "col"}}}})
	f.apply(state.Event{At: t0.Add(-2 * time.Hour), Kind: state.EventEnrich, Address: "enrich.other", Enrich: &state.EnrichEvent{
		PersonID: "9.0009", Result: person.EnrichedProfile{NetworkID: "9.0009", PageName: "col", Company: "Co 4.0004 GmbH", CompanyDomain: "www.co4.example", Email: "col@co4.example", ValidationStatus: "valid"}}})
	ew := &elsewhere{held: map[string]state.Reusable{
		// Enriched at their former employer.
		"n:" + people[0]: heldAt("dach", t0.Add(-day), "a@former.example", "Former AG", "former.example"),
		// At the same company, spelled with its legal form and in capitals.
		"n:" + people[1]: heldAt("dach", t0.Add(-day), "b@co2.example", "CO 2.0002 GmbH", "co2.example"),
		// No company known there: nothing says the e-mail is still theirs.
		"n:" + people[2]: heldAt("dach", t0.Add(-day), "c@somewhere.example", "", ""),
		// Here the current company's domain is known (co4.example): the
		// name matches, but the domain does not.
		"n:" + people[3]: heldAt("uk", t0.Add(-day), "d@co4-old.example", "Co 4.0004", "co4-old.example"),
	}}
	o := f.opts()
	o.Reuse = ew.lookup
	p := f.build(t, o)
	c := p.Change("enrich.all")
	if !slices.Equal(c.PersonIDs, []string{people[0], people[2], people[3]}) || c.Reuses != 1 {
		t.Errorf("enriched %v, reuses %d; want people 1, 3 and 4 paid, 2 copied", c.PersonIDs, c.Reuses)
	}
	if p.Savings.Reused.People != 1 {
		t.Errorf("savings %+v", p.Savings.Reused)
	}

	// The same domain as this workspace knows for the company: copied.
	ew.held["n:"+people[3]] = heldAt("uk", t0.Add(-day), "d@co4.example", "Co Four", "mail.co4.example")
	o.Reuse = ew.lookup
	p = f.build(t, o)
	if c := p.Change("enrich.all"); !slices.Equal(c.PersonIDs, []string{people[0], people[2]}) || c.Reuses != 2 {
		t.Errorf("enriched %v, reuses %d; want person 4 copied by domain", c.PersonIDs, c.Reuses)
	}
}

// TestReuseRespectsLimit: limit is the number of people the block holds,
// copies included: a copy is free, so copies take places first, in from
// order, at most the places left; the places left after them go to the
// people paid for, in from order. The saving shown is what the copies
// save, never more than the block could have spent; the next plan has
// nothing left to do, and another reusable person gets no place.
func TestReuseRespectsLimit(t *testing.T) {
	people := ids(1, 6)
	held := func(idx ...int) *elsewhere {
		ew := &elsewhere{held: map[string]state.Reusable{}}
		for _, i := range idx {
			ew.held["n:"+people[i]] = heldIn("dach", t0.Add(-day), "p"+people[i]+"@x.example", people[i])
		}
		return ew
	}
	for _, tc := range []struct {
		name     string
		limit    int
		reusable []int
		copies   []string // in from order
		paid     []string
	}{
		{"every person reusable, limit 3 of 6", 3, []int{0, 1, 2, 3, 4, 5}, people[:3], []string{}},
		{"two reusable, limit 3", 3, []int{1, 3}, []string{people[1], people[3]}, people[:1]},
		{"no limit", 0, []int{1, 3}, []string{people[1], people[3]}, []string{people[0], people[2], people[4], people[5]}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.cto", kw("CTO"))
			f.ran("search.cto", t0.Add(-time.Hour), people...)
			e := f.enrich("all", []string{"search.cto"}, tc.limit, 0)
			ew := held(tc.reusable...)
			o := f.opts()
			o.Reuse = ew.lookup
			p := f.build(t, o)
			c := p.Change("enrich.all")
			if c == nil || c.Reuses != len(tc.copies) || !slices.Equal(append([]string{}, c.PersonIDs...), tc.paid) {
				t.Fatalf("plan %+v; want %d copies, %v paid", c, len(tc.copies), tc.paid)
			}
			if rs := p.Savings.Reused; rs.People != len(tc.copies) || rs.Credits != len(tc.copies) {
				t.Errorf("reused saving %+v, want %d", rs, len(tc.copies))
			}
			// Apply: the copies first, then the claims.
			cands := NewCandidates(f.cfg, ew.lookup)
			reuses, err := cands.Reuses(f.st, e, t0)
			if err != nil {
				t.Fatal(err)
			}
			var copied []string
			for _, r := range reuses {
				copied = append(copied, r.PersonID)
				f.apply(state.Event{At: t0, Kind: state.EventReuse, Address: e.Address, Reuse: &state.ReuseEvent{PersonID: r.PersonID, Workspace: r.From.Workspace, Enrichment: r.From.Enrichment}})
			}
			if !slices.Equal(copied, tc.copies) {
				t.Errorf("copied %v, want %v", copied, tc.copies)
			}
			got, err := cands.Claimed(f.st, e, t0, nil)
			if err != nil || !slices.Equal(append([]string{}, got...), tc.paid) {
				t.Errorf("claimed %v %v, want %v", got, err, tc.paid)
			}
			for _, id := range got {
				f.enriched(id, e.Address, t0)
			}
			// The next plan: the block holds its places.
			ew.held["n:"+people[5]] = heldIn("uk", t0.Add(-day), "late@x.example", people[5])
			next := f.build(t, o).Change("enrich.all")
			if next != nil && (len(next.PersonIDs) != 0 || next.Reuses != 0) && tc.limit > 0 {
				t.Errorf("next plan %+v, want nothing to do", next)
			}
		})
	}
}
