package run

import (
	"slices"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// importsKeepColleagues reports whether the company domains the run
// learns for an exclude block by domain are the store's, read before the
// run (plan.Reads.ReadColleagues), with those of the people st holds as
// they are when first asked (plan.Candidates.WithColleagues). The engine
// asks after the first import is folded in (its count of the people it
// adopted that a block excludes), and the state read whole answers with
// every person as they are then. An import changes the company domain of
// the people its members find (a newer e-mail, a company filled in, a
// re-key): a pair only such a person held would be gone from the state
// then, and only every person tells whether a colleague keeps it. So it
// reports false when one of those people holds an enrichment of a domain
// a block lists: the apply then loads the state whole. (An import whose
// file is imported already is no change of the plan.) It reads them
// first, as the import's fold reads them (State.ReadRefs: by network ID,
// by ID, by page name in any letter case).
func importsKeepColleagues(st *state.State, cfg *config.Config, imports []string) (bool, error) {
	var ids []string
	pages := map[string]bool{}
	for _, im := range cfg.Imports {
		if !slices.Contains(imports, im.Address) || plan.ImportCurrent(im, st.Imports[im.Address]) {
			continue // not imported by this apply
		}
		for i := range im.People {
			l := im.People[i].Result.Lead()
			ids = append(ids, state.PersonID(l)) // the network ID when it has one
			if l.PageName != "" {
				ids = append(ids, state.PagePrefix+l.PageName)
				pages[state.PageKey(l.PageName)] = true
			}
		}
	}
	if err := st.ReadRefs(ids); err != nil {
		return false, err
	}
	named := map[string]bool{}
	for _, id := range ids {
		named[id] = true
	}
	x := cfg.Exclusion()
	for _, p := range st.People {
		found := named[p.ID] || (p.Lead.PageName != "" && pages[state.PageKey(p.Lead.PageName)])
		if found && p.Enrichment != nil && x.ListsDomain(p.Enrichment.Result.CompanyDomain) {
			return false, nil
		}
	}
	return true, nil
}
