package local

import (
	"iter"
	"maps"
	"slices"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseOnce = (*Workspace)(nil)

// maxOnceKeys is the most lookup keys ElsewhereOnce keeps the answers of
// (a variable for tests). A plan past 400,000 keys reads every person
// and asks about each: the other workspaces are then read again rather
// than held.
var maxOnceKeys = 1 << 19

// otherRead is one other workspace as ElsewhereOnce read it: of one read
// whole, per lookup key, the newest enrichment it holds; of a database
// listed narrowly, nothing held (held nil): the lookup asks it.
type otherRead struct {
	name string
	held map[string]state.Reusable
}

// ElsewhereOnce lists the lookup keys of the people each other workspace
// holds an enrichment of, as EnrichedKeysElsewhere does (eachOtherKeys).
// Of a workspace read whole (a state file, or a database holding calls
// not folded in) it keeps, per lookup key, the newest enrichment it holds
// (collectReusable over every key). Of a database read in part the keys
// are listed narrowly, no person read whole. The lookup answers as
// EnrichmentsElsewhere would: from the answers kept, and from the
// databases listed narrowly, asked about the keys alone (keyedPeople).
// It is nil when every other workspace is such a database (the caller
// then asks EnrichmentsElsewhere, which reads them the same way), or when
// more than maxOnceKeys answers would be kept.
func (ws *Workspace) ElsewhereOnce() ([]string, func([]string) (map[string]state.Reusable, error), error) {
	var reads []otherRead
	var keys []string
	kept, narrow := 0, false
	err := ws.eachOtherKeys(func(name string, listed []string, whole map[string]*state.Person) {
		keys = append(keys, listed...)
		if whole == nil {
			narrow = true
			reads = append(reads, otherRead{name: name})
			return
		}
		held := map[string]state.Reusable{}
		collectReusable(maps.Values(whole), name, nil, held)
		kept += len(held)
		reads = append(reads, otherRead{name: name, held: held})
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if kept == 0 && narrow || kept > maxOnceKeys {
		return keys, nil, nil
	}
	return keys, ws.onceLookup(reads), nil
}

// onceLookup answers, for the keys asked about, the newest enrichment
// the other workspaces of reads hold, taken in their order as
// EnrichmentsElsewhere takes them: from the answers kept of those read
// whole, and by reading the databases listed narrowly again.
func (ws *Workspace) onceLookup(reads []otherRead) func([]string) (map[string]state.Reusable, error) {
	return func(keys []string) (map[string]state.Reusable, error) {
		out := map[string]state.Reusable{}
		if len(keys) == 0 {
			return out, nil
		}
		want, read := wantedKeys(keys)
		for _, r := range reads {
			if r.held != nil {
				for _, k := range keys {
					if found, ok := r.held[k]; ok {
						keepNewer(out, k, found)
					}
				}
				continue
			}
			err := ws.otherPeople(r.name, read, func(people iter.Seq[*state.Person]) {
				collectReusable(people, r.name, want, out)
			})
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// eachOtherKeys gives do, for each other workspace, the lookup keys of
// the people it holds an enrichment of: of a database, listed narrowly
// (enrichedKeys: one read transaction) with whole nil; of a state file,
// or of a database OpenBase reads whole (calls not folded in, erasures
// not honoured), every person as whole, whose keys listed holds.
func (ws *Workspace) eachOtherKeys(do func(name string, listed []string, whole map[string]*state.Person)) error {
	return ws.eachOtherBase(func(name string, b *state.Base) error {
		if s, ok := b.Whole(); ok {
			do(name, enrichedKeysOf(s.People), s.People)
			return nil
		}
		keys, err := enrichedKeys(b)
		if err != nil {
			return err
		}
		do(name, keys, nil)
		return nil
	})
}

// enrichedKeysOf are the lookup keys of the people holding an enrichment
// among people.
func enrichedKeysOf(people map[string]*state.Person) []string {
	var keys []string
	for _, p := range people {
		if p != nil && p.Enrichment != nil {
			keys = append(keys, state.LookupKeys(p)...)
		}
	}
	return keys
}

// enrichedKeys lists the lookup keys of the people of b holding an
// enrichment, without reading a person whole: their page names and
// network IDs alone, a page of enrichedAsk people at a time
// (state.Base.EnrichedLeadsAfter). Of 600,000 enriched people of another
// workspace this held 1.47 GB read whole. Their IDs listed, then the two
// fields read by a list of IDs, 2,200,000 people took 4.7 s of CPU.
func enrichedKeys(b *state.Base) ([]string, error) {
	var keys []string
	for after := ""; ; {
		n, err := b.EnrichedLeadsAfter(after, enrichedAsk, func(p *state.Person) {
			keys = state.AppendLookupKeys(keys, p)
			after = p.ID
		})
		if err != nil {
			return nil, err
		}
		if n < enrichedAsk {
			return keys, nil
		}
	}
}

// eachOtherBase gives do, for each other workspace, its Base (withOther).
func (ws *Workspace) eachOtherBase(do func(name string, b *state.Base) error) error {
	others, err := ws.OtherWorkspaces()
	if err != nil {
		return err
	}
	for _, name := range others {
		if err := ws.withOther(name, func(b *state.Base) error { return do(name, b) }); err != nil {
			return err
		}
	}
	return nil
}

// withOther gives do the Base of the other workspace name: a database's
// as OpenBase opens it (one read transaction, closed when do returns), a
// state file's loaded whole (loadSettled).
func (ws *Workspace) withOther(name string, do func(b *state.Base) error) error {
	sib, err := ws.set.Open(name)
	if err != nil {
		return err
	}
	return sib.withBase(do)
}

// withBase gives do the Base of ws's settled state: a database's
// (OpenBase), or its state file loaded whole (loadSettled).
func (ws *Workspace) withBase(do func(b *state.Base) error) error {
	if !ws.Store.ReadsPeopleOnRequest() {
		s, err := ws.loadSettled()
		if err != nil {
			return err
		}
		return do(state.NewBase(s))
	}
	b, err := ws.OpenBase()
	if err != nil {
		return err
	}
	defer b.Close()
	return do(b)
}

// eachOther gives do, for each other workspace, the people otherPeople
// gives of it.
func (ws *Workspace) eachOther(read peopleReader, do func(name string, people iter.Seq[*state.Person])) error {
	others, err := ws.OtherWorkspaces()
	if err != nil {
		return err
	}
	for _, name := range others {
		if err := ws.otherPeople(name, read, func(people iter.Seq[*state.Person]) { do(name, people) }); err != nil {
			return err
		}
	}
	return nil
}

// otherPeople gives do the people read reads of the other workspace
// name's database (one read transaction), a page at a time, or every
// person of a state file or of a database OpenBase reads whole.
func (ws *Workspace) otherPeople(name string, read peopleReader, do func(people iter.Seq[*state.Person])) error {
	return ws.withOther(name, func(b *state.Base) error {
		if s, ok := b.Whole(); ok {
			do(maps.Values(s.People))
			return nil
		}
		return read(b, do)
	})
}

// enrichedAsk is how many IDs of enriched people enrichedPeople and
// enrichedKeys ask b for at once.
const enrichedAsk = 1 << 16

// enrichedPeople gives do the people of b holding an enrichment, a page
// at a time, each holding its keys' fields and its enrichment alone
// (readKeyed): all of b's people when it holds them (Base.Whole).
func enrichedPeople(b *state.Base, do func(iter.Seq[*state.Person])) error {
	if s, ok := b.Whole(); ok {
		do(maps.Values(s.People))
		return nil
	}
	var ids []string
	for after := ""; ; {
		var err error
		if ids, err = b.AppendEnrichedAfter(ids[:0], after, enrichedAsk); err != nil {
			return err
		}
		if err := readKeyed(b, ids, do); err != nil {
			return err
		}
		if len(ids) < enrichedAsk {
			return nil
		}
		after = ids[len(ids)-1]
	}
}
