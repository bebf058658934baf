package plan

import (
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// Enrich blocks planned with a track or an import, over a state read in
// part (EnrichReadsOf: one block or several, a where or none, other
// workspaces to copy from or none): their plans meet the blocks' where a
// track reads someone (changedBy: a read of this run may change them) and
// where an import gives someone an e-mail (importGives), names them
// (importNames) or frees a place (env.replaced). The track's people are
// read as its plan alone reads them (trackReads), so every person it
// reads in this run is read whole. The import's members are read whole
// too (meetImports): every person a member's network ID, ID or page name
// in any letter case finds, the people importGives and importNames ask
// about. The places walks, the censuses (a where's included) and the
// copies from other workspaces then meet only people neither touches, as
// without them: a person read whole is one person to every block
// (readWhole), and the people other workspaces may give an enrichment of
// are read whole by their keys (reuseReads), whether a track reads them
// or not.

// meetImports adds to r the members of the selected imports the plan
// imports (not current): by network ID and ID (Persons), and by page
// name in any letter case (Pages), whether known by network ID or not,
// since an import's e-mail goes to the people of its page name too
// (pendingFor).
func (b *builder) meetImports(r *Reads) {
	for _, im := range b.cfg.Imports {
		if !b.selected(im.Address) || ImportCurrent(im, b.st.Imports[im.Address]) {
			continue
		}
		for i := range im.People {
			l := im.People[i].Result.Lead()
			if l.NetworkID != "" {
				r.Persons = append(r.Persons, l.NetworkID)
			}
			if id := state.PersonID(l); !strings.HasPrefix(id, state.PagePrefix) {
				r.Persons = append(r.Persons, id)
			}
			if l.PageName != "" {
				r.Pages = append(r.Pages, l.PageName)
			}
		}
	}
	slices.Sort(r.Persons)
	r.Persons = slices.Compact(r.Persons)
	slices.Sort(r.Pages)
	r.Pages = slices.Compact(r.Pages)
}

// pageRefs makes the plan over a state read in part need everyone when a
// lead list of e's sources holds an ID kept by page name ("page:") that
// names nobody read, nor anyone in the store (state.Base.Absent): a
// person re-keyed since, whom the places walk and the census, which take
// people by ID, would not find (State.Person). The others are found by
// that ID, as the whole state's plan finds them. When the store cannot
// answer, Err says why.
func (f *EnrichFacts) pageRefs(st *state.State, e *config.Enrich, sources []source) {
	var unread []string
	seen := map[string]bool{}
	for _, src := range sources {
		for _, id := range src.ids.All() {
			if strings.HasPrefix(id, state.PagePrefix) && st.People[id] == nil && !seen[id] {
				seen[id] = true
				unread = append(unread, id)
			}
		}
	}
	if len(unread) == 0 {
		return
	}
	absent := unread // an apply's passes (partialFacts): no store to ask
	var err error
	if f.store != nil {
		absent, err = f.store.Absent(unread)
	}
	switch {
	case err != nil:
		f.fail(err)
	case len(absent) > 0:
		f.needsEveryone = true
		f.undecide(e.Address)
	}
}
