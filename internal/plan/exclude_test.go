package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// exclude declares an exclude block whose list holds values.
func (f *fixture) exclude(name string, by listfile.Kind, values ...string) *config.Exclude {
	set := listfile.NewSet(by)
	for _, v := range values {
		if !set.Add(v) {
			panic("not a " + by.String() + ": " + v)
		}
	}
	x := &config.Exclude{Address: "exclude." + name, Addr: typed("exclude." + name), Name: name, By: by, Keys: set, Column: "Value",
		ListFile: config.ListFile{File: name + ".csv", Rows: len(values)}}
	f.cfg.Excludes = append(f.cfg.Excludes, x)
	return x
}

// enrichedWith records an enrichment of id giving e-mail and domain.
func (f *fixture) enrichedWith(id, by string, at time.Time, email, domain string) {
	l := f.st.People[id].Lead
	f.apply(state.Event{At: at, Kind: state.EventEnrich, Address: by, Enrich: &state.EnrichEvent{
		PersonID: id, Credits: 1, Result: person.EnrichedProfile{NetworkID: l.NetworkID, PageName: l.PageName,
			FullName: l.FullName, Company: l.Company, Email: email, CompanyDomain: domain, ValidationStatus: "valid", CreditBalance: 400},
	}})
}

func TestExcludeBlocks(t *testing.T) {
	people := ids(1, 6) // 1.0001 .. 6.0006; companies "Co 1.0001", ...
	tests := []struct {
		name     string
		setup    func(f *fixture)
		enriched []string // the people the plan enriches
		excluded map[string]int
		timing   string
	}{
		{
			name: "by company, whatever the legal form",
			setup: func(f *fixture) {
				f.exclude("customers", listfile.Company, "  CO 1.0001 GmbH", "Co 3.0003, Inc.")
			},
			enriched: []string{people[1], people[3], people[4], people[5]},
			excluded: map[string]int{"exclude.customers": 2},
			timing:   TimingBeforeSpending,
		},
		{
			name: "by profile URL and by network ID; a person named twice counts for the first block",
			setup: func(f *fixture) {
				f.exclude("urls", listfile.ProfileURL, "https://www.network.example/profile/PAGE-2.0002/cv?x=1", "network.example/in/page-6.0006")
				f.exclude("ids", listfile.NetworkID, "2.0002", "5.0005")
			},
			enriched: []string{people[0], people[2], people[3]},
			excluded: map[string]int{"exclude.urls": 2, "exclude.ids": 1},
			timing:   TimingBeforeSpending,
		},
		{
			name: "by e-mail: only where an e-mail is known (a stale enrichment to refresh)",
			setup: func(f *fixture) {
				f.enrichedWith(people[0], "enrich.all", t0.Add(-40*day), "Max@Co1.example", "co1.example")
				f.exclude("dnc", listfile.Email, "max@co1.example", "someone@co2.example")
			},
			enriched: []string{people[1], people[2], people[3], people[4], people[5]},
			excluded: map[string]int{"exclude.dnc": 1},
			timing:   TimingOnceKnown,
		},
		{
			name: "by domain: a sub-domain in the list, a colleague's domain",
			setup: func(f *fixture) {
				// People 1 and 2 work for the same company; 1's enrichment
				// gives its domain, so 2 is excluded before spending.
				f.st.People[people[1]].Lead.Company = "Co 1.0001 AG"
				f.enrichedWith(people[0], "enrich.other", t0.Add(-time.Hour), "a@co1.example", "www.co1.example")
				f.exclude("competitors", listfile.Domain, "mail.co1.example")
			},
			enriched: []string{people[2], people[3], people[4], people[5]},
			excluded: map[string]int{"exclude.competitors": 1},
			timing:   TimingOnceKnown,
		},
	}
	// With a limit, the plan counts the people each block owns in the
	// background, in the same pass that learns the colleagues' domains.
	for _, limit := range []int{0, 100} {
		for _, tt := range tests {
			t.Run(fmt.Sprintf("%s, limit %d", tt.name, limit), func(t *testing.T) {
				testExcludeBlock(t, people, limit, tt.setup, tt.enriched, tt.excluded, tt.timing)
			})
		}
	}
}

// testExcludeBlock plans six people of a search with an enrich block of
// limit limit, after setup, and checks whom it enriches, whom each exclude
// block removes and when.
func testExcludeBlock(t *testing.T, people []string, limit int, setup func(*fixture), enriched []string, excluded map[string]int, timing string) {
	t.Helper()
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, limit, 30*day)
	setup(f)
	p := f.build(t, f.opts())
	c := p.Change("enrich.all")
	if diff := cmp.Diff(enriched, c.PersonIDs); diff != "" {
		t.Errorf("enriched (-want +got):\n%s", diff)
	}
	ex := p.Savings.Excluded
	total := 0
	for _, b := range ex.Blocks {
		if b.People != excluded[b.Address] {
			t.Errorf("%s removes %d, want %d", b.Address, b.People, excluded[b.Address])
		}
		if b.Timing != timing {
			t.Errorf("%s timing %s, want %s", b.Address, b.Timing, timing)
		}
		total += b.People
	}
	// The candidates are every person of the block's sources, enriched
	// or not: the same state gives the same count before and after apply.
	if ex.People != total || ex.Candidates != len(people) || ex.CreditsMax != total || p.Savings.CreditsMax != total {
		t.Errorf("savings %+v", p.Savings)
	}
	// Apply chooses alike: EnrichCandidatesClaimed leaves them out.
	got, err := EnrichCandidatesClaimed(f.cfg, f.st, f.cfg.Enriches[0], t0, nil)
	if err != nil || !slices.Equal(got, enriched) {
		t.Errorf("candidates %v %v, want %v", got, err, enriched)
	}
}

func TestCandidatesLearnColleagues(t *testing.T) {
	// A person enriched during the run gives their company's domain: a
	// colleague met later is excluded by it, as apply goes.
	f := newFixture()
	people := ids(1, 2)
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.st.People[people[1]].Lead.Company = f.st.People[people[0]].Lead.Company
	e := f.enrich("all", []string{"search.cto"}, 0, 0)
	f.exclude("competitors", listfile.Domain, "co1.example")
	c := NewCandidates(f.cfg, nil)
	got, err := c.Claimed(f.st, e, t0, nil)
	if err != nil || len(got) != 2 {
		t.Fatalf("before: %v %v", got, err)
	}
	f.enrichedWith(people[0], "enrich.all", t0, "a@co1.example", "co1.example")
	c.Learn(f.st.People[people[0]])
	got, err = c.Claimed(f.st, e, t0, Claims{people[0]: "enrich.all"})
	if err != nil || len(got) != 0 {
		t.Errorf("after: %v %v, want nobody", got, err)
	}
}

// TestImportedAndExcludedCountOnce: a person an import gives an e-mail and
// an exclude block names counts once, as excluded (their import saves
// nothing, nor does their exclusion: no credit), in the enrich change, the
// import change and the savings, before and after the import is recorded;
// the candidates are every person of the blocks' sources, each once, also
// over two blocks that share people.
func TestImportedAndExcludedCountOnce(t *testing.T) {
	people := ids(1, 6)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, 0, 0)
	f.enrich("again", []string{"search.cto"}, 0, 0)
	im := f.importBlock("crm", "d1", t0.Add(-10*day), people[:3], []bool{true, true, true})
	f.exclude("dnc", listfile.NetworkID, people[2], people[3])
	for _, when := range []string{"planned", "recorded"} {
		if when == "recorded" {
			f.imported(im, t0)
		}
		p := f.build(t, f.opts())
		if c := p.Change("import.crm"); when == "planned" && c.Detail != "3 rows: 3 people (2 with an e-mail, enriched at no credit), 1 excluded, 0 calls" {
			t.Errorf("%s: import change %q", when, c.Detail)
		}
		if c := p.Change("enrich.all"); !slices.Equal(c.PersonIDs, people[4:]) || !strings.HasSuffix(c.Detail, "; 2 excluded") {
			t.Errorf("%s: enrich.all %v %q", when, c.PersonIDs, c.Detail)
		}
		ex, imp := p.Savings.Excluded, p.Savings.Imported
		if ex.Candidates != 6 || ex.People != 2 || ex.CreditsMax != 1 || ex.Blocks[0].People != 2 || imp.People != 2 || imp.Credits != 2 {
			t.Errorf("%s: savings %+v", when, p.Savings)
		}
	}
}
