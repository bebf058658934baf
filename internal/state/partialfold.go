package state

import (
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/person"
)

// What folding an event into a partial state reads first (foldable), so
// that the fold changes the people it would change in the state read
// whole: the people the event's leads resolve to (by networkId, by the ID
// a lead without one is kept under, by page name in any letter case:
// Paged), what a re-key of one of them changes (the lead lists of the
// searches that found them), the search's lead list and leads before the
// call, a split run's people, a profile read's person before it, an
// enrichment's (or a copy's) person, a track read's person, an import's
// people: those its file names, and those of the block's import before;
// for a retention removal, the people not read in the form the removal
// needs alone (removal.go), and the lead lists of the searches that
// found them.

// PageFinder is a PeopleStore that finds people by page name: a partial
// state folds a search or a profile read only with one.
type PageFinder interface {
	// Paged are the IDs of the people whose page name, in lower case
	// (PageKey), is one of keys, in no order: those a page name finds
	// (State.Resolve).
	Paged(keys []string) ([]string, error)
}

// readFor reads what folding e into a partial state changes. An event of
// a kind not listed (none that Validate lets through) is refused: nothing
// is changed.
func (s *State) readFor(e *Event) error {
	switch e.Kind {
	case EventTrack:
		// The person read, as State.Person finds them: a track read
		// changes no one else (its answer carries no networkId or page
		// name to re-key by).
		return s.readPersonRef(e.Track.PersonID)
	case EventImport:
		return s.readImport(e.Address, e.Import)
	case EventEnrich:
		// The person named, then the one the result's networkId or
		// page name finds (it may be another, or a re-key of them).
		if err := s.readPersonRef(e.Enrich.PersonID); err != nil {
			return err
		}
		return s.readLeads([]person.Lead{e.Enrich.Result.Lead()})
	case EventReuse:
		return s.readPersonRef(e.Reuse.PersonID)
	case EventEnrichUnknown, EventEnrichPending, EventEnrichVoid:
		return nil // the records' alone: the unknown enrichments, the usage
	case EventForget:
		return s.ReadRecord(e.Address)
	case EventMove:
		from := make([]string, len(e.Move.Moves))
		for i, m := range e.Move.Moves {
			from[i] = m.From
		}
		return s.ReadMoving(from)
	case EventForgetPeople:
		if e.People.Reason == ForgetRetention {
			return s.readRemoval(e.People.PersonIDs)
		}
		return s.ReadForgetting(e.People.PersonIDs)
	case EventBilling, EventFailure:
		return nil // the records' alone
	case EventSearch:
		if err := s.readSearch(e.Address); err != nil {
			return err
		}
		return s.readLeads(e.Search.Leads)
	case EventSplit:
		return s.readSplit(e.Address, e.Split.Leads)
	case EventTrim:
		return s.readSearch(e.Address)
	case EventProfile:
		if err := s.readProfile(e.Address); err != nil {
			return err
		}
		return s.readLeads([]person.Lead{{PageName: profilePage(e.Profile)}})
	case EventProfileShare:
		if err := s.readProfile(e.Address); err != nil {
			return err
		}
		return s.readProfile(e.Share.From)
	}
	return fmt.Errorf("a %s event cannot be folded into a state read in part: nothing was changed", e.Kind)
}

// ReadRefs reads the people of ids as State.Person finds them: an ID of
// a page name ("page:") reads every person that page name finds in any
// letter case (readPersonRef), so that a person re-keyed since is found.
// Nothing for a state read whole.
func (s *State) ReadRefs(ids []string) error {
	if s.partial == nil {
		return nil
	}
	var plain []string
	var pages []person.Lead
	for _, id := range ids {
		if page, ok := strings.CutPrefix(id, PagePrefix); ok {
			pages = append(pages, person.Lead{PageName: page})
		} else {
			plain = append(plain, id)
		}
	}
	if err := s.ReadPeople(plain); err != nil || len(pages) == 0 {
		return err
	}
	return s.readLeads(pages)
}

// readImport reads what an import of the block at addr changes: the
// people its file's members resolve to (readLeads, as a search's leads:
// a member may re-key a person known by page name), and the people of the
// block's import before, who lose it when the file names them no more.
func (s *State) readImport(addr string, ie *ImportEvent) error {
	if rec := s.Imports[addr]; rec != nil {
		if err := s.ReadPeople(rec.PersonIDs); err != nil {
			return err
		}
	}
	leads := make([]person.Lead, len(ie.People))
	for i := range ie.People {
		leads[i] = ie.People[i].Result.Lead()
	}
	return s.readLeads(leads)
}

// readPersonRef reads the person an enrichment names by id (State.Person):
// the person of that ID, or, for an ID of a page name ("page:"), every
// person that page name finds in any letter case and what re-keying them
// changes (readLeads).
func (s *State) readPersonRef(id string) error {
	if page, ok := strings.CutPrefix(id, PagePrefix); ok {
		return s.readLeads([]person.Lead{{PageName: page}})
	}
	if id == "" {
		return nil
	}
	return s.ReadPeople([]string{id})
}

// readSearch reads the lead list of the search at addr and its people.
func (s *State) readSearch(addr string) error {
	if err := s.ReadLeads(addr); err != nil {
		return err
	}
	if sr := s.Searches[addr]; sr != nil {
		return s.ReadPeople(sr.LeadIDs)
	}
	return nil
}

// readProfile reads the person of the profile read at addr.
func (s *State) readProfile(addr string) error {
	if pr := s.Profiles[addr]; pr != nil && pr.PersonID != "" {
		return s.ReadPeople([]string{pr.PersonID})
	}
	return nil
}

// readSplit reads what a sub-search of the search at addr changes: its
// leads, and for the run it may complete the people of the run so far
// and the search's lead list and people.
func (s *State) readSplit(addr string, leads []person.Lead) error {
	if err := s.readSearch(addr); err != nil {
		return err
	}
	if t := s.Splits[addr]; t != nil {
		for _, n := range t.Nodes {
			if err := s.ReadPeople(n.LeadIDs); err != nil {
				return err
			}
		}
	}
	return s.readLeads(leads)
}

// readLeads reads the people leads resolve to (State.Resolve, upsert):
// by networkId, by the ID a lead is kept under without one (PersonID:
// "page:" and the page name as given, or the anonymous hash), every
// person a page name finds in any letter case; then what re-keying one
// known by page name only changes: the lead lists of the searches that
// found them.
func (s *State) readLeads(leads []person.Lead) error {
	pt := s.partial
	var ids, keys []string
	seen := map[string]bool{}
	for _, l := range leads {
		if l.NetworkID != "" {
			ids = append(ids, l.NetworkID)
		}
		ids = append(ids, PersonID(l))
		if l.PageName == "" {
			continue
		}
		ids = append(ids, PagePrefix+l.PageName)
		if k := PageKey(l.PageName); !pt.pages[k] && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		pf, ok := pt.store.(PageFinder)
		if !ok {
			return fmt.Errorf("this state's store cannot find people by page name")
		}
		paged, err := pf.Paged(keys)
		if err != nil {
			return err
		}
		ids = append(ids, paged...)
	}
	if err := s.ReadPeople(ids); err != nil {
		return err
	}
	// Known once their people are read: after a failed read, the next
	// fold asks again.
	for _, k := range keys {
		pt.pages[k] = true
	}
	return s.readRekeyed()
}

// readRekeyed reads the lead lists of the searches that found a person
// read who is known by page name only (a re-key replaces the person's ID
// in them): those read since the last time (partial.pageOnly). A person
// a fold adds or finds again is found by searches whose lead lists were
// read before it.
func (s *State) readRekeyed() error {
	pt := s.partial
	var addrs []string
	for id := range pt.pageOnly {
		if p := s.People[id]; p != nil {
			addrs = append(addrs, p.FoundBy...)
		}
	}
	// One question for all their searches' lead lists (ReadLeadsOf).
	if err := s.ReadLeadsOf(addrs); err != nil {
		return err
	}
	clear(pt.pageOnly)
	return nil
}
