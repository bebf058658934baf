package plan

import (
	"runtime/debug"
	"slices"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// maxExpiredKept is the most people leadsync { retention } removes that a
// plan reads in the kept form (keptPerson) instead of every person: past
// maxExpiredRead, as in the first plan after retention is set on an old
// base. Each costs an ID and a small Person in memory; the reads go a
// page of the store at a time.
var maxExpiredKept = 20_000_000

// ReadKept puts into st, read as ReadsOf or EnrichReadsOf names, the
// people e lists in the kept form (keptPerson) when there are more than
// maxExpiredRead of them (Expired.Kept): a page of the store at a time,
// each page let go once kept. Someone among them who stays (seen just
// after the limit: a store keeps microseconds) is kept whole, as Build
// asks each. Those st holds already stay as read. It is
// to be called before EnrichFacts.Fill, whose sketches hold less.
func (e *Expired) ReadKept(b *state.Base, st *state.State) error {
	if e == nil || !e.Kept {
		return nil
	}
	// Each page is decoded whole and little of it kept: mostly garbage,
	// collected at GOGC 100 (a plan runs at 200: cli.planGC), unless the
	// collector is set lower or off.
	if old := debug.SetGCPercent(100); old < 100 {
		debug.SetGCPercent(old)
	} else {
		defer debug.SetGCPercent(old)
	}
	shared := map[keptEnrichment]*state.Enrichment{}
	if done, err := e.keepAll(b, st, shared); done || err != nil {
		return err
	}
	page := b.PageSize()
	ids := make([]string, 0, page)
	flush := func() error {
		err := e.keepPage(b, st, ids, shared)
		ids = ids[:0]
		return err
	}
	for _, id := range e.IDs {
		if st.People[id] != nil {
			continue
		}
		if ids = append(ids, id); len(ids) == page {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if len(ids) == 0 {
		return nil
	}
	return flush()
}

// keepAll puts into st in the kept form the people of e.IDs that st does
// not hold, in one pass of the store (Base.KeptExpired); those seen after
// the limit are read whole. done is false when the store cannot, or did
// not give each person of e.IDs: ReadKept reads by ID those st does not
// hold then.
func (e *Expired) keepAll(b *state.Base, st *state.State, shared map[keptEnrichment]*state.Enrichment) (done bool, err error) {
	var slab []state.Person
	var stay []string
	met := 0
	asked, err := b.KeptExpired(e.retention, e.now, func(k state.KeptPerson) {
		i, listed := slices.BinarySearch(e.IDs, k.ID)
		if !listed {
			return
		}
		// The ID listed, not the store's text: SQLite's is cut from the
		// row it packed, which it would keep (150 MB at 1,000,000).
		k.ID = e.IDs[i]
		switch met++; {
		case st.People[k.ID] != nil:
		case e.now.Sub(k.LastSeen) <= e.retention:
			stay = append(stay, k.ID)
		default:
			if len(slab) == cap(slab) {
				slab = make([]state.Person, 0, 4096) // pointers into it stay
			}
			p := state.Person{ID: k.ID, LastSeen: k.LastSeen}
			if k.Enriched {
				p.Enrichment = sharedEnrichment(keptEnrichment{k.By, k.CopiedBy, k.EnrichedAt}, shared)
			}
			slab = append(slab, p)
			st.People[k.ID] = &slab[len(slab)-1]
		}
	})
	if err != nil || !asked || met != len(e.IDs) {
		return false, err // keepPage reads those not kept
	}
	read, err := b.People(stay) // seen just after the limit: stay, whole
	for _, p := range read {
		st.People[p.ID] = p
	}
	return true, err
}

// keepPage puts the people of ids into st in the kept form, as the store
// gives it (Base.KeptPeople: nobody decoded whole), else from the people
// read whole. Someone seen after the limit is read whole.
func (e *Expired) keepPage(b *state.Base, st *state.State, ids []string, shared map[keptEnrichment]*state.Enrichment) error {
	slab := make([]state.Person, 0, len(ids))
	var stay []string
	asked, err := b.KeptPeople(ids, func(k state.KeptPerson) {
		if e.now.Sub(k.LastSeen) <= e.retention {
			stay = append(stay, k.ID)
			return
		}
		p := state.Person{ID: k.ID, LastSeen: k.LastSeen}
		if k.Enriched {
			p.Enrichment = sharedEnrichment(keptEnrichment{k.By, k.CopiedBy, k.EnrichedAt}, shared)
		}
		slab = append(slab, p)
		st.People[k.ID] = &slab[len(slab)-1]
	})
	if err != nil {
		return err
	}
	if asked {
		ids = stay // seen just after the limit: stays, whole
	}
	read, err := b.People(ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		switch p := read[id]; {
		case p == nil:
		case e.now.Sub(p.LastSeen) <= e.retention:
			st.People[id] = p // seen just after the limit: stays, whole
		default:
			slab = append(slab, keptPerson(p, shared))
			st.People[id] = &slab[len(slab)-1]
		}
	}
	return nil
}

// keptPerson is what a plan asks of someone retention removes, read in
// the kept form: the ID, when last seen (who goes: builder.expired), and
// what they count in (their enrichment's block, copy and time: erasedBy,
// lessGone). Every plan of them but that skips them (env.gone). People
// whose enrichments are alike share one (shared): nothing changes it.
func keptPerson(p *state.Person, shared map[keptEnrichment]*state.Enrichment) state.Person {
	k := state.Person{ID: p.ID, LastSeen: p.LastSeen}
	if e := p.Enrichment; e != nil {
		k.Enrichment = sharedEnrichment(keptEnrichment{e.By, e.CopiedBy, e.EnrichedAt}, shared)
	}
	return k
}

// sharedEnrichment is the kept enrichment of key, one for all alike.
func sharedEnrichment(key keptEnrichment, shared map[keptEnrichment]*state.Enrichment) *state.Enrichment {
	e := shared[key]
	if e == nil {
		e = &state.Enrichment{By: key.by, CopiedBy: key.copiedBy, EnrichedAt: key.at}
		shared[key] = e
	}
	return e
}

// keptEnrichment is what a kept person's enrichment holds: its block,
// the block that copied it, and its time.
type keptEnrichment struct {
	by, copiedBy string
	at           time.Time
}

// ReadWhole is e for an apply, which removes the people and writes what
// it read: every one read whole (ReadsOf names them), however many.
func (e *Expired) ReadWhole() *Expired {
	if e == nil || !e.Kept {
		return e
	}
	return &Expired{IDs: e.IDs, retention: e.retention, now: e.now}
}

// SetMaxExpiredRead makes a plan read the people retention removes in the
// kept form past n of them (maxExpiredRead), for the tests of the
// packages that read a state for a plan (run, backendtest), until the
// function it returns restores the limit. Not for concurrent use.
func SetMaxExpiredRead(n int) (restore func()) {
	was := maxExpiredRead
	maxExpiredRead = n
	return func() { maxExpiredRead = was }
}
