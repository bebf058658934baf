package plan

import (
	"runtime/debug"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// maxExpiredKept is the most people leadsync { retention } removes that a
// plan reads in the kept form (keptPerson) instead of every person: past
// maxExpiredRead, as in the first plan after retention is set on an old
// base. Each costs an ID and a small Person in memory; the reads go a
// page of the store at a time.
var maxExpiredKept = 20_000_000

// keptGCPercent is the collector's GOGC while ReadKept reads: the store's
// pass of 1,000,000 people makes a text a row (110 MB of garbage) beside
// the lead lists and sketches read before (155 MB). At GOGC 100 the heap
// grew to twice those, 470 MB in all; at 25, to 1.25 times.
var keptGCPercent = 25

// ReadKept notes, past maxExpiredRead people leadsync { retention }
// removes (Expired.Kept), those e lists in the kept form (keptGone): by
// ID, not as people of st. Someone among them who stays (seen just after
// the limit: a store keeps microseconds) is read whole into st, as Build
// asks each. Those st holds already stay as read. It is to be called
// after st is read as ReadsOf or EnrichReadsOf names, before
// EnrichFacts.Fill.
func (e *Expired) ReadKept(b *state.Base, st *state.State) error {
	if e == nil || !e.Kept {
		return nil
	}
	// The store's pass, or the fallback's pages, are garbage but for the
	// kept form: collected at keptGCPercent (a plan runs at 200:
	// cli.planGC), unless the collector is set lower or off.
	if old := debug.SetGCPercent(keptGCPercent); old < keptGCPercent {
		debug.SetGCPercent(old)
	} else {
		defer debug.SetGCPercent(old)
	}
	if e.gone == nil {
		e.gone = newKeptGone(e.IDs)
	}
	if done, err := e.keepAll(b, st); done || err != nil {
		return err
	}
	page := b.PageSize()
	ids := make([]string, 0, page)
	flush := func() error {
		err := e.keepPage(b, st, ids)
		ids = ids[:0]
		return err
	}
	for _, id := range e.IDs.All() {
		if st.People[id] != nil || e.gone.has(id) {
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

// keepAll notes in the kept form the people of e.IDs that st does not
// hold, in one pass of the store (Base.KeptExpired); those seen after the
// limit are read whole into st. done is false when the store cannot, or
// did not give each person of e.IDs: ReadKept reads by ID those not
// noted then.
func (e *Expired) keepAll(b *state.Base, st *state.State) (done bool, err error) {
	var stay []string
	met := 0
	asked, err := b.KeptExpired(e.retention, e.now, func(k state.KeptPerson) {
		i, listed := e.IDs.Search(k.ID)
		if !listed {
			return
		}
		switch met++; {
		case st.People[k.ID] != nil:
		case e.now.Sub(k.LastSeen) <= e.retention:
			stay = append(stay, e.IDs.At(i))
		default:
			// Noted by its place in the IDs listed, not by the store's
			// text: SQLite's is cut from the row it packed, which it would
			// keep (150 MB at 1,000,000).
			e.gone.add(i, k)
		}
	})
	if err != nil || !asked || met != e.IDs.Len() {
		return false, err // keepPage reads those not kept
	}
	return true, readStaying(b, st, stay) // seen just after the limit
}

// readStaying reads the people of ids whole into st: those listed who
// stay (seen just after the limit). A partial state an apply changes
// reads them itself (State.ReadPeople), so that it may write them.
func readStaying(b *state.Base, st *state.State, ids []string) error {
	if st.Partial() {
		return st.ReadPeople(ids)
	}
	read, err := b.People(ids)
	for _, p := range read {
		st.People[p.ID] = p
	}
	return err
}

// keepPage notes the people of ids in the kept form, as the store gives
// it (Base.KeptPeople: nobody decoded whole), else from the people read
// whole. Someone seen after the limit is read whole into st.
func (e *Expired) keepPage(b *state.Base, st *state.State, ids []string) error {
	var stay []string
	asked, err := b.KeptPeople(ids, func(k state.KeptPerson) {
		i, listed := e.IDs.Search(k.ID)
		switch {
		case !listed:
		case e.now.Sub(k.LastSeen) <= e.retention:
			stay = append(stay, e.IDs.At(i))
		default:
			e.gone.add(i, k)
		}
	})
	if err != nil {
		return err
	}
	if asked {
		return readStaying(b, st, stay) // seen just after the limit
	}
	read, err := b.People(ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		switch p := read[id]; {
		case p == nil:
		case e.now.Sub(p.LastSeen) <= e.retention:
			stay = append(stay, id) // seen just after the limit: stays, whole
		default:
			if i, listed := e.IDs.Search(id); listed {
				e.gone.add(i, keptOf(p))
			}
		}
	}
	return readStaying(b, st, stay)
}

// keptEnrichment is what a kept person's enrichment holds: its block,
// the block that copied it, and its time.
type keptEnrichment struct {
	by, copiedBy string
	at           time.Time
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
