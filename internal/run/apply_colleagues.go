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
// a block lists: the apply then reads every holder of a listed domain
// (readDomainHolders). (An import whose
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

// readDomainHolders reads into st every person holding an enrichment of
// a domain an exclude block of cfg lists, found by one pass over the
// store's enrichments (state.ValueLister), when importsKeepColleagues
// cannot keep the store's pairs. The pairs the run learns are then those
// of st's people as they are when first asked, as over the whole state:
// no person left unread holds a listed domain. ok is false when the store
// lists no values (the state is then loaded whole).
func readDomainHolders(b *state.Base, st *state.State, cfg *config.Config) (ok bool, err error) {
	if !b.ValuesListed() {
		return false, nil
	}
	x := cfg.Exclusion()
	var ids []string
	err = b.EnrichmentValues(func(id, _, _, domain []byte) {
		if len(domain) > 0 && x.ListsDomain(string(domain)) {
			ids = append(ids, string(id))
		}
	})
	if err != nil {
		return false, err
	}
	return true, st.ReadPeople(ids)
}
