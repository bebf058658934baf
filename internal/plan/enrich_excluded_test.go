package plan

import (
	"fmt"
	"math/rand/v2"

	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// excludeWorld gives some worlds exclude blocks of every kind, naming
// some people by company, page name, network ID, e-mail or domain; some
// people share a company, some enrichments give a company domain (a
// colleague's, which a block by domain names the company's people by)
// or an e-mail of their own.
func excludeWorld(rng *rand.Rand, f *fixture) {
	if rng.IntN(2) == 0 {
		return
	}
	ids := sortedPeople(f.st)
	if len(ids) == 0 {
		return
	}
	some := func() *state.Person { return f.st.People[ids[rng.IntN(len(ids))]] }
	for range rng.IntN(len(ids)/2 + 1) {
		p := some()
		k := rng.IntN(3)
		p.Lead.Company = fmt.Sprintf("Acme %d", k)
		if p.Enrichment != nil && rng.IntN(2) == 0 {
			p.Enrichment.Result.CompanyDomain = fmt.Sprintf("acme%d.com", k)
			p.Enrichment.Result.Email = fmt.Sprintf("%s@acme%d.com", p.ID, k)
		}
		if rng.IntN(4) == 0 {
			p.Lead.NetworkID = fmt.Sprintf("%d.ab", rng.IntN(20))
		}
	}
	values := func(of func(p *state.Person) string) []string {
		var out []string
		for range 1 + rng.IntN(3) {
			if v := of(some()); v != "" {
				out = append(out, v)
			}
		}
		return append(out, "nobody.example")
	}
	for i := range 1 + rng.IntN(3) {
		name := fmt.Sprintf("x%d", i)
		switch rng.IntN(5) {
		case 0:
			f.exclude(name, listfile.Company, values(func(p *state.Person) string { return p.Lead.Company })...)
		case 1:
			f.exclude(name, listfile.PageName, values(func(p *state.Person) string { return p.Lead.PageName })...)
		case 2:
			f.exclude(name, listfile.NetworkID, "7.ab", fmt.Sprintf("%d.ab", rng.IntN(20)))
		case 3:
			f.exclude(name, listfile.Email, "x@example.com", fmt.Sprintf("%s@acme%d.com", ids[rng.IntN(len(ids))], rng.IntN(3)))
		default:
			f.exclude(name, listfile.Domain, fmt.Sprintf("acme%d.com", rng.IntN(3)), "example.com")
		}
	}
}

func (m memStore) PeopleValues(fn func(id, company, pageName, networkID []byte)) error {
	return state.NewBase(m.st).PeopleValues(fn)
}

func (m memStore) EnrichmentValues(fn func(id, company, email, domain []byte)) error {
	return state.NewBase(m.st).EnrichmentValues(fn)
}

func (m memStore) EnrichmentCompanies(fn func(company, domain []byte)) error {
	return state.NewBase(m.st).EnrichmentCompanies(fn)
}
