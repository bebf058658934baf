package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestSummaryCountsOnlyPeopleAnExclusionKeptFromEnrichment: the Summary's
// "People not enriched: on an exclude list" counts the people an exclude
// list kept from an enrich block, as plan and apply count them, not every
// person it takes out of the export: of the four an exclude list names,
// Ann counts; Bob was enriched (and paid for) before the list named him,
// Dan was found by a search no enrich block reads, Gus fails the enrich
// block's where. The row says what each saved, in credits_per_enrich.
func TestSummaryCountsOnlyPeopleAnExclusionKeptFromEnrichment(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.leads.hcl": `
api {
  sandbox            = true
  credits_per_enrich = 2
}
search "cto" {
  keywords = "CTO"
}
search "other" {
  keywords = "CEO"
}
enrich "ctos" {
  from  = [search.cto]
  where = lead.title == "CTO"
}
exclude "customers" {
  file   = "customers.csv"
  column = "Company"
  by     = "company"
}
export "people" {
  path = "out/leads.csv"
  sheet "Leads" {
    from = [search.cto, search.other]
  }
}
`,
		"customers.csv": "Company\nAcme GmbH\nGlobex\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	lead := func(page, title, company string) person.Lead {
		return person.Lead{NetworkID: "n-" + page, PageName: page, FullName: page, Title: title, Company: company}
	}
	st := state.New()
	for _, e := range []state.Event{
		{At: t0, Kind: state.EventSearch, Address: "search.cto", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`),
			Leads: []person.Lead{lead("ann", "CTO", "ACME"), lead("bob", "CTO", "Acme AG"), lead("cleo", "CTO", "Initech"), lead("gus", "CIO", "Globex")}}},
		{At: t0, Kind: state.EventSearch, Address: "search.other", Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"CEO"}`),
			Leads: []person.Lead{lead("dan", "CEO", "Globex")}}},
		{At: t0, Kind: state.EventEnrich, Address: "enrich.ctos", Enrich: &state.EnrichEvent{PersonID: "n-bob", Credits: 2,
			Result: person.EnrichedProfile{PageName: "bob", NetworkID: "n-bob", Email: "bob@acme.example", ValidationStatus: person.StatusValid}}},
	} {
		if err := st.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "leads.summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "People not enriched: on an exclude list,") {
			row = l
		}
	}
	if !strings.HasPrefix(row, "People not enriched: on an exclude list,1,") {
		t.Errorf("row %q, want 1 person (Ann)", row)
	}
	if !strings.Contains(row, "which saved 2 credits each") || strings.Contains(row, "credits_per_enrich") {
		t.Errorf("row %q, want the credits each saved: 2", row)
	}
}
