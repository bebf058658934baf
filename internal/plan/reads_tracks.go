package plan

import (
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// trackReads adds to r what the selected tracks read of people
// (trackPeople): the lead lists and people of their sources' searches
// (Sources), the people of the imports they watch (the record's; a file
// to import is importReads'), and the people each read before (Tracks).
// For an enrich block they watch, the lead lists of its sources'
// searches, and only the people it enriched or holding an enrichment no
// credit was spent on (Enriched: trackPeople takes no one else of them).
// The persons of the profile reads are read for every plan (ReadsOf). An
// exclude block by domain learns the company domains of the state's
// enrichments from the store (Colleagues), not from every person.
func (b *builder) trackReads(r *Reads) {
	for _, t := range b.cfg.Tracks {
		if !b.selected(t.Address) {
			continue
		}
		r.Colleagues = r.Colleagues || b.learnsColleagues()
		r.Tracks = append(r.Tracks, t.Address)
		for _, ref := range t.From {
			e := b.cfg.Enrich(ref)
			refs := []string{ref}
			if e != nil {
				refs = e.From
				r.Enriched = append(r.Enriched, e.Address)
			}
			for _, addr := range b.cfg.Resolve(refs) {
				switch {
				case b.st.Searches[addr] != nil && e != nil:
					r.Searches = append(r.Searches, addr)
					r.EnrichedFrom = append(r.EnrichedFrom, addr)
				case b.st.Searches[addr] != nil:
					r.Sources = append(r.Sources, addr)
				case b.st.Imports[addr] != nil:
					r.Persons = append(r.Persons, b.st.Imports[addr].PersonIDs...)
				}
			}
		}
	}
	for _, xs := range []*[]string{&r.Sources, &r.Searches, &r.Enriched, &r.EnrichedFrom} {
		slices.Sort(*xs)
		*xs = slices.Compact(*xs)
	}
}

// EnrichedIDs are the people r reads for the enrich blocks its tracks
// watch (Enriched): those each block enriched or copied, and those
// holding an enrichment by an import or copied from another workspace
// (Enrichment.Unpaid), from the store's index. A store without that index
// gives the people of the lead lists of EnrichedFrom instead (from st,
// which holds those lists).
func (r Reads) EnrichedIDs(b *state.Base, st *state.State) ([]string, error) {
	if len(r.Enriched) == 0 {
		return nil, nil
	}
	var ids []string
	if !b.EnrichIndexed() {
		for _, addr := range r.EnrichedFrom {
			ids = st.Searches[addr].Leads().AppendTo(ids)
		}
		return ids, nil
	}
	by, err := b.Enrichers()
	if err != nil {
		return nil, err
	}
	by = slices.DeleteFunc(by, func(a string) bool {
		return !state.IsImport(a) && !strings.HasPrefix(a, state.ReusedPrefix)
	})
	for _, addr := range append(by, r.Enriched...) {
		found, err := b.Enriched(addr)
		if err != nil {
			return nil, err
		}
		ids = append(ids, found...)
	}
	return ids, nil
}

// trackSources are the source instances whose people t watches: those
// its from names, and for an enrich block there, the block's sources.
func (b *builder) trackSources(t *config.Track) []string {
	var refs []string
	for _, ref := range t.From {
		if e := b.cfg.Enrich(ref); e != nil {
			refs = append(refs, e.From...) // the people it enriched of them
		} else {
			refs = append(refs, ref)
		}
	}
	return b.cfg.Resolve(refs)
}

// importReads adds to r the selected imports. An import's plan reads no
// person (its change counts the file's members against the records'
// suppression list); a selected track watching a file to import reads
// the people its members resolve to (importPeople, State.Resolve): by
// network ID, or by the ID a member without a page name is kept under.
// A member known by page name only is named in Pages: the state's
// people of that page name, in any letter case, are found by an index of
// page names in lower case (an apply's State.ReadRefs; Read reads every
// person for them). An exclude block by domain, which
// importText matches every member against, learns the company domains
// from the store (Colleagues).
func (b *builder) importReads(r *Reads) {
	watched := map[string]bool{}
	for _, t := range b.cfg.Tracks {
		if b.selected(t.Address) {
			for _, addr := range b.trackSources(t) {
				watched[addr] = true
			}
		}
	}
	for _, im := range b.cfg.Imports {
		if !b.selected(im.Address) {
			continue
		}
		r.Colleagues = r.Colleagues || b.learnsColleagues()
		r.Imports = append(r.Imports, im.Address)
		if !watched[im.Address] || ImportCurrent(im, b.st.Imports[im.Address]) {
			continue
		}
		for i := range im.People {
			l := im.People[i].Result.Lead()
			if l.NetworkID == "" && l.PageName != "" {
				r.Pages = append(r.Pages, l.PageName)
				continue
			}
			r.Persons = append(r.Persons, state.PersonID(l))
		}
	}
}

// learnsColleagues reports whether an exclude block matches by company
// domain: it learns the domains of every person's enrichment first.
func (b *builder) learnsColleagues() bool {
	x := b.cfg.Exclusion()
	return x != nil && x.NeedsColleagues()
}

// ReadColleagues asks b for the companies and company domains of the
// state's enrichments when the plan of cfg learns them (Colleagues), of
// the domains its exclude blocks list only (what Learn keeps): the
// Options.Colleagues of a plan over Read's state; nil when it does not.
func (r Reads) ReadColleagues(b *state.Base, cfg *config.Config) (*Colleagues, error) {
	if !r.Colleagues {
		return nil, nil
	}
	known, err := b.CompanyDomainsOf(cfg.Exclusion().ListsDomain)
	if err != nil {
		return nil, err
	}
	return &Colleagues{Known: known}, nil
}

// Read is the state as far as a plan reads it (r is ReadsOf's, People
// false) from b: Base.Reading of r's searches and persons, the store's
// counts of the lead lists of Counted (Base.CountLeads), then the
// people of the lead lists of r's sources and those r's tracks read
// before (the store's Tracked), a page of the store at a time. The page
// names of Pages, and an ID kept by page name ("page:") that names
// nobody, are followed to every person of that page name in any letter
// case (State.Person): through the store's index of page keys
// (Base.Paged), or, for a store without one, by reading every person.
func (r Reads) Read(b *state.Base) (*state.State, error) {
	st, err := b.Reading(append(slices.Clone(r.Searches), r.Sources...), r.Persons)
	if err != nil {
		return nil, err
	}
	b.CountLeads(st, r.Counted)
	if len(r.Sources)+len(r.Tracks)+len(r.Pages)+len(r.Enriched) == 0 {
		return st, nil
	}
	ids, sketch, err := r.enrichedOrSketched(b, st, func(ids []string) error { return readMore(b, st, ids) }, unpackInto(st))
	if err != nil {
		return nil, err
	}
	for _, addr := range r.Sources {
		ids = st.Searches[addr].Leads().AppendTo(ids)
	}
	for _, addr := range r.Tracks {
		tracked, _, err := b.BlockPeople(kind.Track, addr)
		if err != nil {
			return nil, err
		}
		ids = append(ids, tracked...)
	}
	if err := readMore(b, st, ids); err != nil {
		return nil, err
	}
	if err := sketch(); err != nil {
		return nil, err
	}
	pages := slices.Clone(r.Pages)
	for _, id := range append(ids, r.Persons...) {
		if page, ok := strings.CutPrefix(id, state.PagePrefix); ok && st.People[id] == nil {
			pages = append(pages, page)
		}
	}
	switch {
	case len(pages) == 0:
		return st, nil
	case !b.FindsPages():
		return st, b.EachPerson(func(p *state.Person) error { st.People[p.ID] = p; return nil })
	}
	paged, err := b.Paged(pages)
	if err != nil {
		return nil, err
	}
	return st, readMore(b, st, paged)
}

// readMore reads into st the people of ids it does not hold yet.
func readMore(b *state.Base, st *state.State, ids []string) error {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.DeleteFunc(slices.Compact(ids), func(id string) bool { return st.People[id] != nil })
	more, err := b.People(ids)
	if err != nil {
		return err
	}
	for id, p := range more {
		st.People[id] = p
	}
	return nil
}
