package local

import (
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.ReuseOnce = (*Workspace)(nil)

// maxOnceKeys is the most lookup keys ElsewhereOnce keeps the answers of
// (a variable for tests). A plan past 400,000 keys reads every person
// and asks about each: the other workspaces are then read again rather
// than held.
var maxOnceKeys = 1 << 19

// ElsewhereOnce reads the people each other workspace holds an
// enrichment of (eachOtherEnriched), as EnrichedKeysElsewhere does, and
// keeps, per lookup key, the
// newest enrichment one of them holds (collectReusable over every key):
// the answers EnrichmentsElsewhere would give from that read.
func (ws *Workspace) ElsewhereOnce() ([]string, func([]string) map[string]state.Reusable, error) {
	held := map[string]state.Reusable{}
	err := ws.eachOtherEnriched(func(name string, people map[string]*state.Person) {
		collectReusable(people, name, nil, held)
	})
	if err != nil {
		return nil, nil, err
	}
	keys := make([]string, 0, len(held))
	for k := range held {
		keys = append(keys, k)
	}
	if len(keys) > maxOnceKeys {
		return keys, nil, nil
	}
	lookup := func(want []string) map[string]state.Reusable {
		out := map[string]state.Reusable{}
		for _, k := range want {
			if r, ok := held[k]; ok {
				out[k] = r
			}
		}
		return out
	}
	return keys, lookup, nil
}

// eachOtherEnriched gives do, for each other workspace, the people it
// holds an enrichment of, as its settled state holds them. A database is
// read once (its Base: one read transaction): the IDs of its enrichments
// (EnrichedAfter), then those people by ID, not every person. OpenBase
// reads it whole when it holds calls not folded in or erasures not
// honoured. A state file is loaded whole (loadSettled).
func (ws *Workspace) eachOtherEnriched(do func(name string, people map[string]*state.Person)) error {
	return ws.eachOther(enrichedPeople, do)
}

// eachOther gives do, for each other workspace, the people read reads
// of its database (one read transaction), or every person of a state
// file or of a database OpenBase reads whole (eachOtherEnriched).
func (ws *Workspace) eachOther(read func(*state.Base) (map[string]*state.Person, error), do func(name string, people map[string]*state.Person)) error {
	others, err := ws.OtherWorkspaces()
	if err != nil {
		return err
	}
	for _, name := range others {
		sib, err := ws.set.Open(name)
		if err != nil {
			return err
		}
		if !sib.Store.ReadsPeopleOnRequest() {
			s, err := sib.loadSettled()
			if err != nil {
				return err
			}
			do(name, s.People)
			continue
		}
		b, err := sib.OpenBase()
		if err != nil {
			return err
		}
		people, err := read(b)
		b.Close()
		if err != nil {
			return err
		}
		do(name, people)
	}
	return nil
}

// enrichedAsk is how many IDs of enriched people enrichedPeople asks b
// for at once.
const enrichedAsk = 1 << 16

// enrichedPeople are the people of b holding an enrichment, read whole:
// all of b's people when it holds them (Base.Whole).
func enrichedPeople(b *state.Base) (map[string]*state.Person, error) {
	if s, ok := b.Whole(); ok {
		return s.People, nil
	}
	var ids []string
	for after := ""; ; {
		n := len(ids)
		var err error
		if ids, err = b.AppendEnrichedAfter(ids, after, enrichedAsk); err != nil {
			return nil, err
		}
		if len(ids)-n < enrichedAsk {
			break
		}
		after = ids[len(ids)-1]
	}
	return b.People(ids)
}
