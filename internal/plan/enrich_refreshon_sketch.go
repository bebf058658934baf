package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/config"
)

// refresh_on beside a track of the enriched read in sketch
// (Reads.Sketched): the people a track of this run reads are read whole
// by the apply only, and by the plan in sketch. With refresh_on the
// whole state's plan takes each of them the block enriched, fresh, among
// those a read may show changed (mayChange): a person of bp.fresh, or of
// bp.formerFresh when its sources no longer hold them. The plan over the
// sketches takes them alike, as their sketch (state.TrackSketches.Person:
// changedBy asks only the ID of a person read in sketch), where it counts
// the people not read as a search may change them (freshUnread,
// formerUnread). None of them has a change since their enrichment: the
// people whose history holds one are read whole (refreshOnReads).

// readInSketch is the index of the sketch of the person of id whom a
// track of this run reads (builder.trackNow), -1 when none is.
func (v *env) readInSketch(id string) int {
	f := v.facts
	if f == nil || f.trackedSketch == nil {
		return -1
	}
	i := v.st.TrackSketches().Find(id)
	if i < 0 || !f.trackedSketch[i] {
		return -1
	}
	return i
}

// unreadFresh takes into bp an enriched member of its sources not read
// whole who needs no enrichment: read in sketch by a track of this run,
// a person of bp.fresh (and met: formerSketched), else one a search
// that runs may show changed (freshUnread).
func (v *env) unreadFresh(bp *blockPeople, id string) {
	if i := v.readInSketch(id); i >= 0 {
		sk := v.st.TrackSketches()
		if v.facts.metSketch == nil {
			v.facts.metSketch = make([]bool, sk.Len())
		}
		v.facts.metSketch[i] = true
		bp.fresh = append(bp.fresh, sk.Person(i))
		return
	}
	bp.freshUnread++
	v.keepUnread(bp, id)
}

// formerSketched takes into bp.formerFresh the people e enriched whom a
// track of this run reads in sketch and its sources no longer hold (none
// met: unreadFresh), as collectFormer takes them read whole; a copy from
// another workspace is not e's former (formerUnread). It forgets who
// was met, for the next block.
func (v *env) formerSketched(bp *blockPeople, e *config.Enrich) error {
	f := v.facts
	if f == nil || f.trackedSketch == nil {
		return nil
	}
	met := f.metSketch
	f.metSketch = nil
	sk := v.st.TrackSketches()
	var former []int
	for i, read := range f.trackedSketch {
		if read && (met == nil || !met[i]) && sk.By(i) == e.Address && !v.known(sk.ID(i)) {
			former = append(former, i)
		}
	}
	if len(former) == 0 {
		return nil
	}
	copied, err := f.store.CopiedBy(e.Address)
	if err != nil {
		return err
	}
	isCopy := make(map[string]bool, len(copied))
	for _, id := range copied {
		isCopy[id] = true
	}
	for _, i := range former {
		if !isCopy[sk.ID(i)] {
			bp.formerFresh = append(bp.formerFresh, sk.Person(i))
		}
	}
	return nil
}

// sketchedAgain counts, for ownedCapOn, the people e enriched whom a
// track of this run reads in sketch and whose enrichment is younger than
// age (every one with age 0): the store's counts take them as people no
// read reads, whom only their age makes due, where the whole state's
// plan counts each once (ownedCapRead: a read of this run may show them
// changed, for e's refresh_on or another block's).
func (b *builder) sketchedAgain(e *config.Enrich, age time.Duration) int {
	f := b.v.facts
	if f == nil || f.trackedSketch == nil {
		return 0
	}
	var old map[string]bool
	if age > 0 {
		ids, err := staleIDs(f.store, e.Address, b.now.Add(-age))
		if err != nil {
			f.fail(err)
			return 0
		}
		old = make(map[string]bool, len(ids))
		for _, id := range ids {
			old[id] = true
		}
	}
	sk, n := b.v.st.TrackSketches(), 0
	for i, read := range f.trackedSketch {
		if read && sk.By(i) == e.Address && !b.v.known(sk.ID(i)) && !old[sk.ID(i)] {
			n++
		}
	}
	return n
}
