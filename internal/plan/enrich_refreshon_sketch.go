package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// refresh_on beside a track of the enriched read in sketch
// (Reads.Sketched): the people a track of this run reads are read whole
// by the apply only, and by the plan in sketch. With refresh_on the
// whole state's plan takes each of them the block enriched, fresh, among
// those a read may show changed (mayChange), from bp.fresh, or from
// bp.formerFresh when its sources no longer hold them. The plan over the
// sketches takes them alike, by the index of their sketch
// (blockPeople.sketched, changing.sketched: no Person each), where it counts the people not
// read as a search may change them (freshUnread, formerUnread). None of
// them has a change since their enrichment: the people whose history
// holds one are read whole (refreshOnReads).

// forgetReads forgets what an earlier Build with f learned of the reads
// in sketch of its run: a Build learns them anew (builder.trackNow).
func (f *EnrichFacts) forgetReads() {
	if f != nil {
		f.trackedSketch, f.metSketch = nil, nil
	}
}

// readInSketch is the index of the sketch of the person of id whom a
// track of this run reads (builder.trackNow), -1 when none is.
func (v *env) readInSketch(id string) int {
	f := v.facts
	if f == nil || f.trackedSketch == nil {
		return -1
	}
	i := v.st.TrackSketches().Find(id)
	if i < 0 || !f.trackedSketch.has(i) {
		return -1
	}
	return i
}

// unreadFresh takes into bp an enriched member of e's sources not read
// whole who needs no enrichment: read in sketch by a track of this run,
// one a read may show changed (bp.sketched), else one a search that
// runs may show changed (freshUnread). A member held in sketch is met
// (metBy: not e's former).
func (v *env) unreadFresh(bp *blockPeople, e *config.Enrich, id string) {
	if f, sk := v.facts, v.st.TrackSketches(); f != nil && sk != nil {
		if i := sk.Find(id); i >= 0 {
			f.metBy(e, sk).set(i)
			if f.trackedSketch != nil && f.trackedSketch.has(i) {
				bp.sketchRead(f, i)
				return
			}
		}
	}
	bp.freshUnread++
	v.keepUnread(bp, id)
}

// metBy are the sketches of sk met among the members of e's sources not
// read whole (unreadFresh), by index. A mark stays true for the Build:
// the sources are the same at each collection of e (enrichClaims), and
// a member marked then read whole is known (eachFormerSketch skips it).
func (f *EnrichFacts) metBy(e *config.Enrich, sk *state.TrackSketches) marks {
	if f.metSketch == nil {
		f.metSketch = map[string]marks{}
	}
	met := f.metSketch[e.Address]
	if met == nil {
		met = newMarks(sk.Len())
		f.metSketch[e.Address] = met
	}
	return met
}

// sketchRead adds the sketch i to the people of bp's block a read of
// this run may show changed (sketched). Kept in bp, they are counted
// once per collection however often the plan collects the block.
// The first takes room for every person a track reads in sketch: at
// 900,000, growing by appends made 11 MB of garbage.
func (bp *blockPeople) sketchRead(f *EnrichFacts, i int) {
	if bp.sketched == nil {
		bp.sketched = make([]int32, 0, f.trackedSketch.count())
	}
	bp.sketched = append(bp.sketched, int32(i))
}

// formerSketched takes into bp.sketched, among the people of e a read
// may show changed, those e enriched whom a track of this run reads in
// sketch and its sources no longer hold, as collectFormer takes them
// into bp.formerFresh read whole.
func (v *env) formerSketched(bp *blockPeople, e *config.Enrich) {
	f := v.facts
	if f == nil || f.trackedSketch == nil {
		return
	}
	v.eachFormerSketch(e, f.trackedSketch.has, func(i int) { bp.sketchRead(f, i) })
}

// formerUnreadSketched lists formerUnread's people from the sketches
// when they hold e's enrichments (a track of e's people beside it: every
// one not held whole), without listing every enrichment of e; ok is
// false when they do not.
func (v *env) formerUnreadSketched(e *config.Enrich) (ids []string, ok bool) {
	sk := v.st.TrackSketches()
	if sk == nil || !sk.Holds(e.Address) {
		return nil, false
	}
	read := v.facts.trackedSketch
	v.eachFormerSketch(e, func(i int) bool { return read == nil || !read.has(i) }, func(i int) { ids = append(ids, sk.ID(i)) })
	return ids, true
}

// eachFormerSketch calls fn with the index of each sketch of a person e
// enriched, not held whole, whom its sources do not hold (none met among
// them: metBy) and of whom take is true. A sketch holds the enrichment's
// By, which for a copy from another workspace names that workspace: no
// copy is e's former here (formerUnread leaves them out).
func (v *env) eachFormerSketch(e *config.Enrich, take func(int) bool, fn func(int)) {
	f, sk := v.facts, v.st.TrackSketches()
	met := f.metSketch[e.Address]
	for i := range sk.Len() {
		if (met == nil || !met.has(i)) && take(i) && sk.By(i) == e.Address && !v.known(sk.ID(i)) {
			fn(i)
		}
	}
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
	sk := b.v.st.TrackSketches()
	var again []string
	for i := range sk.Len() {
		if f.trackedSketch.has(i) && sk.By(i) == e.Address && !b.v.known(sk.ID(i)) {
			again = append(again, sk.ID(i))
		}
	}
	if age == 0 || len(again) == 0 {
		return len(again)
	}
	// The store's counts hold the older ones already.
	ids, err := staleIDs(f.store, e.Address, b.now.Add(-age))
	if err != nil {
		f.fail(err)
		return 0
	}
	old := make(map[string]bool, len(ids))
	for _, id := range ids {
		old[id] = true
	}
	n := 0
	for _, id := range again {
		if !old[id] {
			n++
		}
	}
	return n
}
