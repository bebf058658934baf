package state

import (
	"errors"
	"slices"
	"strings"
	"unicode"
)

// What an erasure (leadsync forget) reads of a partial state before it
// folds: the people a user's identifiers may name (ReadNamed, as
// FindPerson finds them, and as the erasure record's keys name them:
// PersonKeys), then what removing them changes (readForgetting: the
// people and the lead lists of the searches that found them). Their
// profile reads, imports, unknown enrichments and the suppression list
// are records, read already.

// maxFoldedKeys bounds the page keys ReadNamed asks for one page name:
// the letter-case variants FindPerson matches (strings.EqualFold) grow
// twofold with each letter of two lower cases ("s" and "ſ").
const maxFoldedKeys = 256

// ErrTooManyCases is ReadNamed's answer for a page name with more
// letter-case variants than it asks a store for (maxFoldedKeys): the
// caller reads the state whole instead.
var ErrTooManyCases = errors.New("the page name has too many letter-case variants to ask for")

// ReadNamed reads into a partial state every person FindPerson may find
// by one of idents, and every person whose suppression keys (PersonKeys)
// one of their identifiers' keys may be: by ID (a network ID is the ID of
// the person it names), by "page:" and the page name as given, and by
// page name in any letter case (PageFinder). Nothing for a state read
// whole.
func (s *State) ReadNamed(idents []string) error {
	pt := s.partial
	if pt == nil {
		return nil
	}
	var ids, pages []string
	for _, v := range idents {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if id, ok := strings.CutPrefix(v, PersonAddressPrefix); ok {
			ids = append(ids, id)
			if page, ok := strings.CutPrefix(id, PagePrefix); ok {
				pages = append(pages, page)
			}
		}
		if page := PageFromURL(v); page != "" {
			v = page
		} else {
			ids = append(ids, v)
			if page, ok := strings.CutPrefix(v, PagePrefix); ok {
				pages = append(pages, page)
			}
		}
		ids = append(ids, PagePrefix+v)
		pages = append(pages, v)
	}
	keys, err := foldedKeys(pages)
	if err != nil {
		return err
	}
	var want []string
	for _, k := range keys {
		if !pt.pages[k] {
			want = append(want, k)
		}
	}
	if len(want) > 0 {
		pf, ok := pt.store.(PageFinder)
		if !ok {
			return errors.New("this state's store cannot find people by page name")
		}
		paged, err := pf.Paged(want)
		if err != nil {
			return err
		}
		ids = append(ids, paged...)
	}
	if err := s.ReadPeople(ids); err != nil {
		return err
	}
	for _, k := range want {
		pt.pages[k] = true
	}
	return nil
}

// ReadNamedByID is ReadNamed for FindPerson alone: the people named by
// ID are read first, and only the identifiers that name nobody by ID
// (FindPerson's first steps) are looked for by page name.
func (s *State) ReadNamedByID(idents []string) error {
	if s.partial == nil {
		return nil
	}
	var ids []string
	for _, v := range idents {
		if id, ok := namingID(v); ok {
			ids = append(ids, id)
		}
	}
	if err := s.ReadPeople(ids); err != nil {
		return err
	}
	var rest []string
	for _, v := range idents {
		if id, ok := namingID(v); !ok || s.People[id] == nil {
			rest = append(rest, v)
		}
	}
	return s.ReadNamed(rest)
}

// namingID is the ID FindPerson first finds ident by (person.<id>, or
// ident itself when it is no profile URL); ok is false for a URL.
func namingID(ident string) (string, bool) {
	v := strings.TrimSpace(ident)
	if id, ok := strings.CutPrefix(v, PersonAddressPrefix); ok {
		return id, true
	}
	return v, v != "" && PageFromURL(v) == ""
}

// foldedKeys are the page keys (PageKey) of every page name that
// strings.EqualFold finds equal to one of pages, each once.
func foldedKeys(pages []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, page := range pages {
		keys := []string{""}
		for _, r := range page {
			var lower []rune
			for x := r; ; {
				if l := unicode.ToLower(x); !slices.Contains(lower, l) {
					lower = append(lower, l)
				}
				if x = unicode.SimpleFold(x); x == r {
					break
				}
			}
			if len(keys)*len(lower) > maxFoldedKeys {
				return nil, ErrTooManyCases
			}
			next := make([]string, 0, len(keys)*len(lower))
			for _, k := range keys {
				for _, l := range lower {
					next = append(next, k+string(l))
				}
			}
			keys = next
		}
		for _, k := range keys {
			if k != "" && !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// ReadForgetting reads into a partial state what removing the people of
// ids (a forget_people event) changes: the people, and the lead lists of
// the searches that found them. Nothing for a state read whole.
func (s *State) ReadForgetting(ids []string) error {
	if s.partial == nil {
		return nil
	}
	if err := s.ReadPeople(ids); err != nil {
		return err
	}
	var found []string
	for _, id := range ids {
		if p := s.People[id]; p != nil {
			found = append(found, p.FoundBy...)
		}
	}
	return s.ReadLeadsOf(found)
}
