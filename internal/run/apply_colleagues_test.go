package run

import (
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// importsKeepColleagues reports false (the apply loads the state whole)
// when a person an import of this apply may find holds an enrichment of
// a domain a block by domain lists: found by network ID, or by page name
// in any letter case when keyed otherwise (re-keyed since). Others, and
// an import this apply does not run, keep the store's pairs (true).
func TestImportsKeepColleagues(t *testing.T) {
	listed := listfile.NewSet(listfile.Domain)
	if !listed.Add("rival.example") {
		t.Fatal("rival.example is no domain")
	}
	cfg := &config.Config{Excludes: []*config.Exclude{{Address: "exclude.rivals", Name: "rivals", By: listfile.Domain, Keys: listed, Column: "Domain"}}}
	st := state.New()
	for _, p := range []struct{ id, page, domain string }{
		{"123.abc", "jane-doe", "rival.example"}, // keyed by network ID, found by page name
		{"456.abc", "", "rival.example"},
		{"789.abc", "max-roe", "other.example"},
	} {
		st.People[p.id] = &state.Person{ID: p.id, Lead: person.Lead{NetworkID: p.id, PageName: p.page},
			Enrichment: &state.Enrichment{By: "enrich.e", Result: person.EnrichedProfile{CompanyDomain: p.domain}}}
	}
	for _, c := range []struct {
		name   string
		member person.EnrichedProfile
		ran    bool
		want   bool
	}{
		{"by page name in another case", person.EnrichedProfile{PageName: "Jane-Doe"}, true, false},
		{"by network ID", person.EnrichedProfile{NetworkID: "456.abc"}, true, false},
		{"a domain not listed", person.EnrichedProfile{PageName: "max-roe"}, true, true},
		{"someone new", person.EnrichedProfile{NetworkID: "999.abc", PageName: "new-one"}, true, true},
		{"an import this apply does not run", person.EnrichedProfile{NetworkID: "456.abc"}, false, true},
	} {
		cfg.Imports = []*config.Import{{Address: "import.crm", Name: "crm", People: []config.ImportPerson{{Line: 2, Result: c.member}}}}
		var imports []string
		if c.ran {
			imports = []string{"import.crm"}
		}
		got, err := importsKeepColleagues(st, cfg, imports)
		if err != nil || got != c.want {
			t.Errorf("%s: importsKeepColleagues = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
