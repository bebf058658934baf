package backendtest

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// testEnrichmentCompanies checks a Base's pairs of company and company
// domain of the enrichments (state.CompanyLister, what a plan copying
// from another workspace reads): those of the state read whole, each
// once, though two enrichments name one pair, and none with either
// missing.
func testEnrichmentCompanies(t *testing.T, k Kind) {
	open := k.New(t)
	Apply(t, open("", Alice), append(Events(), sameCompanyEvents()...))
	whole, err := loadOnce(open("", Bob))
	must(t, err, "load")
	got, err := backend.OpenBase(open("", Alice))
	must(t, err, "open base")
	defer got.Close()
	if _, stored := got.Whole(); stored || !got.ValuesListed() {
		t.Skip("the backend reads its state whole: it answers from memory")
	}
	named := map[string]int{}
	for _, p := range whole.People {
		if e := p.Enrichment; e != nil && e.Result.Company != "" && e.Result.CompanyDomain != "" {
			named[e.Result.Company+"|"+e.Result.CompanyDomain]++
		}
	}
	if named["Acme|acme.example"] < 2 || named["Acme|acme.io"] != 1 {
		t.Fatalf("the fixture's pairs %v: want Acme|acme.example twice and Acme|acme.io once", named)
	}
	var want, pairs []string
	for pair := range named {
		want = append(want, pair)
	}
	err = got.EnrichmentCompanies(func(company, domain []byte) {
		pairs = append(pairs, string(company)+"|"+string(domain))
	})
	must(t, err, "the enrichments' companies")
	slices.Sort(want)
	slices.Sort(pairs)
	if d := cmp.Diff(want, pairs); d != "" {
		t.Fatalf("the pairs of company and domain differ (-whole, each once +base):\n%s", d)
	}
}

// sameCompanyEvents enrich three people of Events at one company: two at
// one domain, one at another, and a fourth with no company.
func sameCompanyEvents() []state.Event {
	enrich := func(min int, id, page, company, domain string) state.Event {
		return state.Event{At: At(min), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1,
			Result: person.EnrichedProfile{NetworkID: id, PageName: page, Company: company, CompanyDomain: domain, Email: page + "@" + domain}}}
	}
	return []state.Event{
		enrich(27, "n1", "anna", "Acme", "acme.example"),
		enrich(28, "n2", "ben", "Acme", "acme.example"),
		enrich(29, "n8", "ivy", "Acme", "acme.io"),
		enrich(30, "n7", "hal", "", "hal.example"),
	}
}

var _ state.CompanyLister = (*state.Base)(nil)
