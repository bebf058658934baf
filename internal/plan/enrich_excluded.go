package plan

import (
	"unsafe"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// An enrich block's plan with exclude blocks, over a state read in part
// (EnrichReadsOf): the plan reads whole every person an exclude block
// may name (excludedReads), so that a person not read is never excluded.
// The people read are matched where they are met, as over the whole
// state; the places walk and the census count the others as people no
// block names. The colleagues who teach a block by domain their company's
// domain are among the people read (their own domain is listed), so the
// plan and an apply learn every company domain the whole state gives.

// valueStore is what excludedReads asks of a store: the people's values
// and the company domains of the enrichments (state.Base gives both).
type valueStore interface {
	state.ValueLister
	CompanyDomainsOf(keep func(domain string) bool) ([]state.CompanyDomain, error)
}

// excludedReads are the IDs of the people an exclude block of cfg may
// name, in no order, from the values the store lists: those whose lead
// (company, page name, network ID or ID) a block names, with the
// company domains of every enrichment learned, and those whose
// enrichment's company, e-mail or domain a block names. Each person's
// values are a part of those Match is given over the whole state, and
// every part a block may name is asked about: a superset of the people
// excluded. ok is false when the store lists no values, or when a person
// read in sketch (state.Sketch) would be named by what the sketch says.
func excludedReads(cfg *config.Config, ix EnrichStore) (ids []string, ok bool, err error) {
	x := cfg.Exclusion()
	if x == nil {
		return nil, true, nil
	}
	vs, listed := ix.(valueStore)
	if !listed || x.Match(config.PersonValues{PageName: state.PageUnread}) != nil {
		return nil, false, nil
	}
	if b := baseOf(ix); b != nil && !b.ValuesListed() {
		return nil, false, nil
	}
	byPeople, byEnrichments, err := listsAsked(cfg, x, vs)
	if err != nil {
		return nil, false, err
	}
	texts := map[string]string{} // companies and domains, each kept once
	keep := func(b []byte) string {
		if s, ok := texts[string(b)]; ok {
			return s
		}
		s := string(b)
		texts[s] = s
		return s
	}
	enrichments, people := vs.EnrichmentValues, vs.PeopleValues
	if !byEnrichments {
		enrichments = func(func(a, b, c, d []byte)) error { return nil }
	}
	if !byPeople {
		people = func(func(a, b, c, d []byte)) error { return nil }
	}
	err = enrichments(func(id, company, email, domain []byte) {
		v := config.PersonValues{Company: keep(company), Email: string(email), Domain: keep(domain)}
		if x.Match(v) != nil {
			ids = append(ids, string(id))
		}
	})
	if err != nil {
		return nil, false, err
	}
	err = people(func(id, company, page, nid []byte) {
		// Match keeps no page name nor network ID (its memos are of
		// companies and domains): they are looked at in place.
		v := config.PersonValues{Company: keep(company), PageName: view(page), NetworkID: view(nid)}
		if v.NetworkID == "" {
			v.NetworkID = view(id)
		}
		named := x.Match(v) != nil
		if !named && v.NetworkID != view(id) {
			// A sketch's network ID is the person's ID.
			named = x.Match(config.PersonValues{NetworkID: view(id)}) != nil
		}
		if named {
			ids = append(ids, string(id))
		}
	})
	if err != nil {
		return nil, false, err
	}
	return ids, true, nil
}

// listsAsked says which of the store's lists excludedReads asks (what
// each can tell: the people's, a company, page name or network ID, or a
// colleague's domain; the enrichments', a company, e-mail or domain),
// having taught x the company domains of the enrichments when a block
// matches by domain.
func listsAsked(cfg *config.Config, x *config.Exclusion, vs valueStore) (byPeople, byEnrichments bool, err error) {
	for _, b := range cfg.Excludes {
		byPeople = byPeople || b.By != listfile.Email && b.By != listfile.Domain
		byEnrichments = byEnrichments || b.By == listfile.Company || b.By == listfile.Email || b.By == listfile.Domain
	}
	if x.NeedsColleagues() {
		known, err := vs.CompanyDomainsOf(x.ListsDomain)
		if err != nil {
			return false, false, err
		}
		for _, c := range known {
			x.Learn(c.Company, c.Domain)
		}
		byPeople = byPeople || len(known) > 0
	}
	return byPeople, byEnrichments, nil
}

// view is b as a string, without a copy: valid while b is.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
