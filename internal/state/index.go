package state

import (
	"sort"
	"strings"
)

// index finds a person by page name without scanning People. It is built on
// first use and kept current by Fold; people counts that differ from
// len(People) reveal changes made behind Fold's back, and the index is
// rebuilt then.
//
// Page names are compared ignoring letter case: a page name is the
// shorthand name of a profile, the last segment of its URL, and the
// network serves a profile under any case of it (Max_M and max_m are one
// member), so the index is keyed by the page name in lower case.
type index struct {
	byPage map[string]string // page name in lower case -> person ID
	people int               // len(People) the index was last in sync with
}

// index returns the page-name index, rebuilding it when stale.
func (s *State) index() *index {
	if s.idx == nil || s.idx.people != len(s.People) {
		s.rebuildIndex()
	}
	return s.idx
}

func (s *State) rebuildIndex() {
	ix := &index{byPage: make(map[string]string, len(s.People)), people: len(s.People)}
	for id, p := range s.People {
		if p == nil || p.Lead.PageName == "" {
			continue
		}
		k := pageIndexKey(p.Lead.PageName)
		if cur, ok := ix.byPage[k]; !ok || preferID(id, cur) {
			ix.byPage[k] = id
		}
	}
	s.idx = ix
}

// preferID decides, deterministically, which of two people sharing a page
// name the name finds: one keyed by networkId beats a "page:" one, then the
// smaller ID wins.
func preferID(a, b string) bool {
	ap, bp := strings.HasPrefix(a, PagePrefix), strings.HasPrefix(b, PagePrefix)
	if ap != bp {
		return bp
	}
	return a < b
}

// pageIndexKey is the key of a page name in the index: in lower case
// (without a copy when it is already).
func pageIndexKey(page string) string { return strings.ToLower(page) }

// PageKey is the key a page name is found by, in any letter case: the
// page name in lower case (strings.ToLower). A store's
// PageFinder.Paged finds people by it.
func PageKey(page string) string { return pageIndexKey(page) }

// byPage returns the ID of the person with page name page (in any letter
// case), or "".
func (s *State) byPage(page string) string {
	if page == "" {
		return ""
	}
	k := pageIndexKey(page)
	id := s.index().byPage[k]
	if p := s.People[id]; id != "" && (p == nil || !strings.EqualFold(p.Lead.PageName, page)) {
		// Someone edited People directly; trust nothing and rebuild.
		s.rebuildIndex()
		id = s.idx.byPage[k]
	}
	if id == "" {
		if p := s.People[PagePrefix+page]; p != nil {
			return PagePrefix + page
		}
	}
	return id
}

// addPerson stores a new person and indexes it.
func (s *State) addPerson(p *Person) {
	ix := s.index()
	s.People[p.ID] = p
	ix.people = len(s.People)
	s.indexPage(p)
	s.touchPerson(p.ID)
}

// removePerson deletes a person and its index entry.
func (s *State) removePerson(id string) {
	ix := s.index()
	p := s.People[id]
	delete(s.People, id)
	ix.people = len(s.People)
	s.touchPerson(id)
	// A person made again under this ID before the next write (a search
	// finds them again) starts a history of their own: written whole.
	s.touchHistory(id, -1)
	if p != nil && ix.byPage[pageIndexKey(p.Lead.PageName)] == id {
		delete(ix.byPage, pageIndexKey(p.Lead.PageName))
	}
}

// indexPage points the person's page name at it unless a preferred person
// already holds the name.
func (s *State) indexPage(p *Person) {
	if p.Lead.PageName == "" {
		return
	}
	ix := s.index()
	k := pageIndexKey(p.Lead.PageName)
	cur, ok := ix.byPage[k]
	if !ok || cur == p.ID || s.People[cur] == nil || !strings.EqualFold(s.People[cur].Lead.PageName, p.Lead.PageName) || preferID(p.ID, cur) {
		ix.byPage[k] = p.ID
	}
}

// setPageName changes a person's page name and keeps the index right.
func (s *State) setPageName(p *Person, page string) {
	if p.Lead.PageName == page {
		return
	}
	ix := s.index()
	if k := pageIndexKey(p.Lead.PageName); ix.byPage[k] == p.ID {
		delete(ix.byPage, k)
	}
	p.Lead.PageName = page
	s.indexPage(p)
}

// addFoundBy adds addr to the sorted FoundBy list of p. The list is never
// changed in place: the loader shares identical lists between people.
func addFoundBy(p *Person, addr string) {
	i := sort.SearchStrings(p.FoundBy, addr)
	if i < len(p.FoundBy) && p.FoundBy[i] == addr {
		return
	}
	out := make([]string, 0, len(p.FoundBy)+1)
	out = append(out, p.FoundBy[:i]...)
	out = append(out, addr)
	p.FoundBy = append(out, p.FoundBy[i:]...)
}

// removeFoundBy removes addr from the FoundBy list of p (nil-safe), without
// changing the list in place.
func removeFoundBy(p *Person, addr string) {
	if p == nil {
		return
	}
	i := sort.SearchStrings(p.FoundBy, addr)
	if i < len(p.FoundBy) && p.FoundBy[i] == addr {
		out := make([]string, 0, len(p.FoundBy)-1)
		out = append(out, p.FoundBy[:i]...)
		p.FoundBy = append(out, p.FoundBy[i+1:]...)
	}
}
