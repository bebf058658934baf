package plan

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// importBlock declares an import whose file names these people: lead
// i of ids (with an e-mail when email[i]), enriched at at.
func (f *fixture) importBlock(name, digest string, at time.Time, ids []string, email []bool) *config.Import {
	im := &config.Import{Address: "import." + name, Addr: typed("import." + name), Name: name, Columns: map[string]string{"network_id": "ID", "email": "Email"},
		ListFile: config.ListFile{File: name + ".csv", Rows: len(ids), Digest: digest}}
	for i, id := range ids {
		l := lead(id)
		r := person.EnrichedProfile{NetworkID: l.NetworkID, PageName: l.PageName, FullName: l.FullName}
		if email[i] {
			r.Email = "p" + id + "@example.com"
		}
		im.People = append(im.People, config.ImportPerson{Line: i + 2, Result: r, EnrichedAt: at})
	}
	f.cfg.Imports = append(f.cfg.Imports, im)
	return im
}

// imported records the import of im in the state, as apply does.
func (f *fixture) imported(im *config.Import, at time.Time) {
	f.apply(state.Event{At: at, Kind: state.EventImport, Address: im.Address, Import: im.Event()})
}

func TestImportPlan(t *testing.T) {
	people := ids(1, 6)
	yes, no := true, false
	t.Run("an import planned now: its people with an e-mail are not enriched", func(t *testing.T) {
		f := newFixture()
		f.search("search.cto", kw("CTO"))
		f.ran("search.cto", t0.Add(-time.Hour), people...)
		f.enrich("all", []string{"search.cto"}, 0, 0)
		f.importBlock("crm", "d1", t0.Add(-10*day), people[:3], []bool{yes, yes, no})
		p := f.build(t, f.opts())
		c := p.Change("import.crm")
		if c == nil || c.Action != Import || c.Reason != ReasonNew || c.Calls != 0 ||
			c.Detail != "3 rows: 3 people (2 with an e-mail, enriched at no credit), 0 calls" {
			t.Fatalf("import change %+v", c)
		}
		if e := p.Change("enrich.all"); !slices.Equal(e.PersonIDs, people[2:]) {
			t.Errorf("enriched %v, want %v", e.PersonIDs, people[2:])
		}
		if s := p.Savings.Imported; s.People != 2 || s.Credits != 2 || p.Savings.CreditsMax != 2 {
			t.Errorf("savings %+v", p.Savings)
		}
		if p.Totals.Imports != 1 {
			t.Errorf("totals %+v", p.Totals)
		}
		// Once imported, the next plan counts the same.
		f.imported(f.cfg.Imports[0], t0)
		p = f.build(t, f.opts())
		if c := p.Change("import.crm"); c.Action != None {
			t.Errorf("after the import: %+v", c)
		}
		if e := p.Change("enrich.all"); !slices.Equal(e.PersonIDs, people[2:]) || p.Savings.Imported.People != 2 {
			t.Errorf("after the import: %v %+v", e.PersonIDs, p.Savings)
		}
	})
	t.Run("refresh re-verifies imported e-mails once older", func(t *testing.T) {
		f := newFixture()
		f.search("search.cto", kw("CTO"))
		f.ran("search.cto", t0.Add(-time.Hour), people[:2]...)
		f.enrich("all", []string{"search.cto"}, 0, 30*day)
		im := f.importBlock("crm", "d1", t0.Add(-40*day), people[:1], []bool{yes})
		im.People = append(im.People, config.ImportPerson{Result: person.EnrichedProfile{NetworkID: people[1], Email: "x@y.example"}, EnrichedAt: t0.Add(-5 * day)})
		f.imported(im, t0.Add(-time.Hour))
		p := f.build(t, f.opts())
		if e := p.Change("enrich.all"); !slices.Equal(e.PersonIDs, people[:1]) || p.Savings.Imported.People != 1 {
			t.Errorf("enriched %v, savings %+v; want the stale one only", e.PersonIDs, p.Savings)
		}
	})
	t.Run("an import as a source: its people without an e-mail, within the bound", func(t *testing.T) {
		f := newFixture()
		f.enrich("more", []string{"import.crm"}, 0, 0)
		im := f.importBlock("crm", "d1", time.Time{}, people, []bool{yes, no, no, yes, no, yes})
		p := f.build(t, f.opts())
		e := p.Change("enrich.more")
		if e.Calls != 0 || e.CallsMax != 3 {
			t.Errorf("before the import: calls %d..%d, want 0..3", e.Calls, e.CallsMax)
		}
		f.imported(im, t0)
		p = f.build(t, f.opts())
		e = p.Change("enrich.more")
		if !slices.Equal(e.PersonIDs, []string{people[1], people[2], people[4]}) || e.CallsMax != 3 {
			t.Errorf("after the import: %v (max %d)", e.PersonIDs, e.CallsMax)
		}
	})
	t.Run("a changed file, and an import block removed", func(t *testing.T) {
		f := newFixture()
		im := f.importBlock("crm", "d1", time.Time{}, people[:2], []bool{yes, yes})
		f.imported(im, t0.Add(-day))
		im.Digest = "d2"
		p := f.build(t, f.opts())
		if c := p.Change("import.crm"); c.Action != Import || c.Reason != ReasonFileChanged {
			t.Errorf("changed: %+v", c)
		}
		f.cfg.Imports = nil
		p = f.build(t, f.opts())
		if c := p.Change("import.crm"); c == nil || c.Action != Forget || c.Kind != kind.Import {
			t.Errorf("removed: %+v", c)
		}
	})
}

// TestImportPageNameCase: a page name is the shorthand name of a profile
// (the last segment of its URL), which the network serves in any letter
// case. An import row naming a known person by their page name in other
// capitals is that person: no duplicate, and no paid enrichment of them
// (the person here is enriched already).
func TestImportPageNameCase(t *testing.T) {
	people := ids(1, 2)
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enriched(people[0], "enrich.all", t0.Add(-2*day))
	f.enrich("all", []string{"search.cto"}, 0, 0)
	f.enrich("imported", []string{"import.legacy"}, 0, 0)
	upper := strings.ToUpper(lead(people[0]).PageName)
	im := &config.Import{Address: "import.legacy", Addr: typed("import.legacy"), Name: "legacy", Columns: map[string]string{"page_name": "Page"},
		ListFile: config.ListFile{File: "legacy.csv", Rows: 1, Digest: "d"},
		People:   []config.ImportPerson{{Line: 2, Result: person.EnrichedProfile{PageName: upper}}}}
	f.cfg.Imports = append(f.cfg.Imports, im)
	p := f.build(t, f.opts())
	if c := p.Change("import.legacy"); c == nil || c.Detail != "1 row: 1 person, 0 calls" {
		t.Fatalf("import change %+v", c)
	}
	if e := p.Change("enrich.imported"); e != nil && len(e.PersonIDs) != 0 {
		t.Errorf("the import's person (%s, known as %s) is enriched again: %v", upper, lead(people[0]).PageName, e.PersonIDs)
	}
	f.imported(im, t0)
	if n := len(f.st.People); n != 2 {
		t.Errorf("%d people after the import, want 2 (%s is %s)", n, upper, people[0])
	}
	if got := f.st.People[people[0]].FoundBy; !slices.Contains(got, "import.legacy") {
		t.Errorf("%s found by %v", people[0], got)
	}
	p = f.build(t, f.opts())
	if e := p.Change("enrich.imported"); e != nil && len(e.PersonIDs) != 0 {
		t.Errorf("after the import, %v are enriched", e.PersonIDs)
	}
}

// TestImportLineCountsSuppressedAndExcluded: the import line counts the
// people an import adopts, not the file's: one erased with leadsync
// forget is not imported (suppressed), one an exclude block names is
// adopted but never enriched nor exported, and neither's e-mail is a
// saving.
func TestImportLineCountsSuppressedAndExcluded(t *testing.T) {
	people := ids(1, 4)
	yes := true
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people[0])
	f.apply(state.Event{At: t0.Add(-time.Minute), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
		People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{people[0]}}})
	f.exclude("dnc", listfile.PageName, lead(people[1]).PageName)
	f.importBlock("crm", "d1", time.Time{}, people, []bool{yes, yes, yes, yes})
	p := f.build(t, f.opts())
	want := "4 rows: 3 people (2 with an e-mail, enriched at no credit), 1 excluded, 1 suppressed (erased: not imported), 0 calls"
	if c := p.Change("import.crm"); c == nil || c.Detail != want {
		t.Fatalf("import change %+v\nwant detail %q", c, want)
	}
}

// TestExcludedImportsAreNoImportedSaving: people an import gives an
// e-mail whom an exclude block names (by page name, or by the e-mail the
// import brings) would not be enriched anyway: their e-mail is no saving
// of the import, whether the import is planned now or recorded already.
func TestExcludedImportsAreNoImportedSaving(t *testing.T) {
	people := ids(1, 5)
	yes := true
	for _, recorded := range []bool{false, true} {
		f := newFixture()
		f.search("search.cto", kw("CTO"))
		f.ran("search.cto", t0.Add(-time.Hour), people...)
		f.enrich("all", []string{"search.cto"}, 0, 0)
		f.exclude("dnc", listfile.PageName, lead(people[0]).PageName)
		f.exclude("bounced", listfile.Email, "p"+people[1]+"@example.com")
		im := f.importBlock("crm", "d1", t0.Add(-10*day), people[:4], []bool{yes, yes, yes, yes})
		if recorded {
			f.imported(im, t0.Add(-time.Minute))
		}
		p := f.build(t, f.opts())
		if s := p.Savings.Imported; s.People != 2 || s.Credits != 2 {
			t.Errorf("import recorded %v: imported saving %+v, want the 2 people no exclude block names", recorded, s)
		}
		if e := p.Change("enrich.all"); e == nil || !slices.Equal(e.PersonIDs, people[4:]) {
			t.Errorf("import recorded %v: enrich %+v, want %v", recorded, e, people[4:])
		}
	}
}

// TestSavingsWithinLimit: a block saves at most what it could have spent,
// the places left under its limit once the people it pays for took
// theirs: with limit 4 and two people paid for, four imported e-mails save
// 2 credits; with limit 4 and one paid for, five people excluded save up
// to 3. The people are counted all the same.
func TestSavingsWithinLimit(t *testing.T) {
	people := ids(1, 6)
	yes := true
	f := newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, 4, 0)
	im := f.importBlock("crm", "d1", t0.Add(-10*day), people[:4], []bool{yes, yes, yes, yes})
	f.imported(im, t0.Add(-time.Minute))
	p := f.build(t, f.opts())
	if s := p.Savings.Imported; s.People != 4 || s.Credits != 2 || p.Savings.CreditsMax != 2 {
		t.Errorf("imported saving %+v (in all %d), want 4 people, 2 credits", s, p.Savings.CreditsMax)
	}

	f = newFixture()
	f.search("search.cto", kw("CTO"))
	f.ran("search.cto", t0.Add(-time.Hour), people...)
	f.enrich("all", []string{"search.cto"}, 4, 0)
	var pages []string
	for _, id := range people[:5] {
		pages = append(pages, lead(id).PageName)
	}
	f.exclude("dnc", listfile.PageName, pages...)
	p = f.build(t, f.opts())
	if ex := p.Savings.Excluded; ex.People != 5 || ex.CreditsMax != 3 || p.Savings.CreditsMax != 3 {
		t.Errorf("excluded saving %+v (in all %d), want 5 people, up to 3 credits", ex, p.Savings.CreditsMax)
	}
}
