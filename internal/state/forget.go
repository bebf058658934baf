package state

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/person"
)

// Reasons a ForgetPeopleEvent removes people.
const (
	ForgetErasure   = "erasure"   // leadsync forget: removed and suppressed
	ForgetRetention = "retention" // not seen by any search for leadsync { retention }
)

// PeopleErased reports whether a forget_people event (leadsync forget,
// retention) removed someone since the state was loaded or last written
// (ErasureWritten). A copy of the state from before that, such as the
// local backend's backup, still holds them: a backend that keeps one
// must not keep it past the write that erases them.
func (s *State) PeopleErased() bool { return s.erased }

// ErasureWritten notes that the state without the people erased is
// written, and any copy of the state from before them is gone.
func (s *State) ErasureWritten() { s.erased = false }

// PeopleAddress is the address of events and plan changes about people as
// a whole (retention), which belong to no block.
const PeopleAddress = "people"

// SuppressionKey is the key a suppression list holds for one identifier of
// a person: "network:" and the hex SHA-256 of the networkId, or "page:" and
// the hex SHA-256 of the page name in lower case. Only the hash is kept, so
// that the list of people who asked to be erased does not itself name them;
// the identifiers are hashed the same way when results come in.
func SuppressionKey(kind, value string) string {
	if kind == "page" {
		value = strings.ToLower(value)
	}
	h := sha256.Sum256([]byte(kind + "\x00" + value))
	return kind + ":" + hex.EncodeToString(h[:])
}

// leadKeys returns the suppression keys of a lead's identifiers.
func leadKeys(l person.Lead) []string {
	var out []string
	if l.NetworkID != "" {
		out = append(out, SuppressionKey("network", l.NetworkID))
	}
	if l.PageName != "" {
		out = append(out, SuppressionKey("page", l.PageName))
	}
	return out
}

// PersonKeys returns the suppression keys of a person: their networkId (or
// their ID when it is one) and their page name.
func PersonKeys(p *Person) []string {
	l := p.Lead
	if l.NetworkID == "" && !strings.HasPrefix(p.ID, PagePrefix) && !strings.HasPrefix(p.ID, anonPrefix) {
		l.NetworkID = p.ID
	}
	if l.PageName == "" {
		if page, ok := strings.CutPrefix(p.ID, PagePrefix); ok {
			l.PageName = page
		}
	}
	return leadKeys(l)
}

// IdentifierKeys returns the suppression keys of what a user names a person
// by: a networkId, a page name or a profile URL (whose last path segment
// is the page name). Which of the first two it is cannot be told from the
// text, so both keys are returned: a key nobody has matches nothing.
func IdentifierKeys(s string) []string {
	s = strings.TrimSpace(s)
	if page := PageFromURL(s); page != "" {
		return []string{SuppressionKey("page", page)}
	}
	return []string{SuppressionKey("network", s), SuppressionKey("page", s)}
}

// PageFromURL returns the page name of a profile URL (its last path
// segment, unescaped), or "" when s is not an http(s) URL with a path.
func PageFromURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return ""
	}
	p := strings.TrimRight(u.Path, "/")
	if p == "" {
		return ""
	}
	return path.Base(p)
}

// FindPerson returns the person a user names by networkId, person ID, page
// name or profile URL, or by the address state list and state show print
// (person.<id>); nil when the state has none.
func (s *State) FindPerson(ident string) *Person {
	ident = strings.TrimSpace(ident)
	if ident == "" {
		return nil
	}
	if id, ok := strings.CutPrefix(ident, PersonAddressPrefix); ok {
		if p := s.Person(id); p != nil {
			return p
		}
	}
	if page := PageFromURL(ident); page != "" {
		ident = page
	} else if p := s.Person(ident); p != nil {
		return p
	}
	if p := s.People[s.byPage(ident)]; p != nil {
		return p
	}
	if p := s.People[PagePrefix+ident]; p != nil {
		return p
	}
	// Page names compared ignoring case, as the network does.
	for _, p := range s.People {
		if strings.EqualFold(p.Lead.PageName, ident) {
			return p
		}
	}
	return nil
}

// suppressedSet returns the suppression keys as a set; nil when there are
// none.
func (s *State) suppressedSet() map[string]bool {
	if len(s.Suppressed) == 0 {
		return nil
	}
	// Every search event asks; a journal replay of thousands of searches
	// must not rebuild the set each time.
	if s.sup != nil && s.supLen == len(s.Suppressed) {
		return s.sup
	}
	set := make(map[string]bool, 2*len(s.Suppressed))
	for _, e := range s.Suppressed {
		if e == nil {
			continue
		}
		for _, k := range e.Keys {
			set[k] = true
		}
	}
	s.sup, s.supLen = set, len(s.Suppressed)
	return set
}

// SuppressesAny reports whether any of keys is on the suppression list.
func (s *State) SuppressesAny(keys []string) bool {
	set := s.suppressedSet()
	for _, k := range keys {
		if set[k] {
			return true
		}
	}
	return false
}

// IsSuppressed reports whether a lead names a suppressed person.
func (s *State) IsSuppressed(l person.Lead) bool {
	return suppressedLead(s.suppressedSet(), l)
}

// suppressedID reports whether a person ID names a suppressed person.
func (s *State) suppressedID(id string) bool {
	set := s.suppressedSet()
	if set == nil {
		return false
	}
	for _, k := range PersonKeys(&Person{ID: id}) {
		if set[k] {
			return true
		}
	}
	return false
}

func suppressedLead(set map[string]bool, l person.Lead) bool {
	if set == nil {
		return false
	}
	for _, k := range leadKeys(l) {
		if set[k] {
			return true
		}
	}
	return false
}

// Expired returns the IDs of the people that no search or profile read has
// seen for longer than retention at now, sorted. Zero retention: none.
func (s *State) Expired(retention time.Duration, now time.Time) []string {
	if retention <= 0 {
		return nil
	}
	var out []string
	for id, p := range s.People {
		if p != nil && now.Sub(p.LastSeen) > retention {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// forgetPeople removes people and, for an erasure, adds their keys to the
// suppression list. Search records lose them from their lead lists (counted
// as suppressed for an erasure); profile records of them keep their address
// without a person for an erasure (so that the profile is not read again
// only to be dropped), and are dropped for retention (so that a profile the
// configuration still names is read again).
func (a *applier) forgetPeople(fe *ForgetPeopleEvent) {
	s := a.s
	erase := fe.Reason == ForgetErasure
	keys := append([]string(nil), fe.Keys...)
	// The packed lists the removal cuts (cutPacked), and whom it cuts.
	packed, cut := map[string]bool{}, map[string]bool{}
	for _, id := range fe.PersonIDs {
		p := s.Person(id)
		formOnly := p == nil
		if formOnly {
			p = s.removed(id) // read for the removal alone
		}
		if p == nil {
			continue
		}
		if erase {
			keys = append(keys, PersonKeys(p)...)
		}
		for _, addr := range p.FoundBy {
			if sr := s.Searches[addr]; sr != nil {
				sr.LeadIDs = removeID(sr.LeadIDs, p.ID) // nil when not read
				if sr.Packed != nil {
					packed[addr], cut[p.ID] = true, true
				}
				if erase {
					sr.Suppressed++
				}
				// Of someone removed in the removal form alone, the
				// store cuts the list (Changes.Cut): not written whole.
				if !formOnly || erase || !s.cutInStore(addr) {
					s.touchSearch(addr)
				}
			}
			if pr := s.Profiles[addr]; pr != nil && pr.PersonID == p.ID {
				if erase {
					pr.PersonID = ""
				} else {
					delete(s.Profiles, addr)
				}
				s.touchProfile(addr)
			}
			s.dropImported(addr, p.ID, erase)
		}
		s.countErased(p)
		if !formOnly { // else an ID of Changes.Removed (removedAll)
			s.removePerson(p.ID)
		}
		s.erased = true
		// An enrichment of theirs with an unknown outcome goes too: its
		// message may name them, and nobody is left to enrich again.
		s.resolveUnknown(id, p.ID)
	}
	s.removedAll()
	s.cutPacked(packed, cut)
	if erase && len(keys) > 0 {
		sort.Strings(keys)
		keys = dedupSorted(keys)
		have := s.suppressedSet()
		var add []string
		for _, k := range keys {
			if !have[k] {
				add = append(add, k)
			}
		}
		if len(add) > 0 {
			s.Suppressed = append(s.Suppressed, &Suppression{Keys: add, At: a.at})
			s.touchMeta()
		}
	}
}

// countErased keeps p's enrichment counting against the limit of the block
// that made it once p is gone (ErasedEnrichments): the one they hold, else
// one of unknown outcome (it may have been charged), as the plan counts a
// block's places (UnknownBy skips people who hold an enrichment).
func (s *State) countErased(p *Person) {
	by := ""
	if p.Enrichment != nil {
		by = p.Enrichment.By
	} else if u := s.UnknownEnrichments[p.ID]; u != nil {
		by = u.By
	}
	if by == "" {
		return
	}
	if s.ErasedEnrichments == nil {
		s.ErasedEnrichments = map[string]int{}
	}
	s.ErasedEnrichments[by]++
	s.touchMeta()
}

func dedupSorted(ss []string) []string {
	out := ss[:0]
	for i, x := range ss {
		if i == 0 || x != ss[i-1] {
			out = append(out, x)
		}
	}
	return out
}
