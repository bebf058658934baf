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
	st      *state.State
	learned bool
}

func newExcluder(cfg *config.Config, st *state.State) *excluder {
	return &excluder{x: cfg.Exclusion(), st: st}
}

// excluded reports whether p leaves the exports.
func (e *excluder) excluded(p *state.Person) bool {
	if e == nil || e.x == nil {
		return false
	}
	if !e.learned {
		e.learned = true
		if e.x.NeedsColleagues() {
			for _, q := range e.st.People {
				if q.Enrichment != nil {
					e.x.LearnValues(valuesOf(q))
				}
			}
		}
	}
	return e.x.Match(valuesOf(p)) != nil
}

// valuesOf are what exclude blocks match p by.
func valuesOf(p *state.Person) config.PersonValues {
	var enr *person.EnrichedProfile
	if p.Enrichment != nil {
		enr = &p.Enrichment.Result
	}
	return config.ValuesOf(p.Lead, p.ID, enr)
}
