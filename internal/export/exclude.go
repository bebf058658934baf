package export

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// excluder tells which people the exclude blocks take out of the exports:
// they leave every sheet, whatever found them. A person is matched by what
// the state knows of them now (an e-mail or a domain once an enrichment or
// an import gave it; a domain also by a colleague's).
type excluder struct {
	x       *config.Exclusion
	base    *state.Base
	learned bool
}

func newExcluder(cfg *config.Config, b *state.Base) *excluder {
	return &excluder{x: cfg.Exclusion(), base: b}
}

// excluded reports whether p leaves the exports. The first time, when a
// block matches by domain, it learns the company domains of the people's
// enrichments from the store (Base.CompanyDomainsOf the domains a block
// lists), not by reading them.
func (e *excluder) excluded(p *state.Person) (bool, error) {
	if e == nil || e.x == nil {
		return false, nil
	}
	if !e.learned {
		e.learned = true
		if e.x.NeedsColleagues() {
			known, err := e.base.CompanyDomainsOf(e.x.ListsDomain)
			if err != nil {
				return false, err
			}
			for _, c := range known {
				e.x.Learn(c.Company, c.Domain)
			}
		}
	}
	return e.x.Match(valuesOf(p)) != nil, nil
}

// valuesOf are what exclude blocks match p by.
func valuesOf(p *state.Person) config.PersonValues {
	var enr *person.EnrichedProfile
	if p.Enrichment != nil {
		enr = &p.Enrichment.Result
	}
	return config.ValuesOf(p.Lead, p.ID, enr)
}
