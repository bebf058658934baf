package state

import (
	"slices"
	"strings"
	"time"
)

// TrackSketcher is a store that reads the people holding an enrichment
// made by one address (Enrichment.By: an enrich block, an import, or a
// copy's "reused:" address) as a TrackSketch: the plan of a track of the
// enriched asks it instead of reading them whole (plan.Reads.Read). The
// SQL stores give it, from the index enrichments_by and the people's
// primary key.
type TrackSketcher interface {
	// TrackSketchEach calls fn with each person holding an enrichment
	// whose By is by, in no order; fn's error stops it.
	TrackSketchEach(by string, fn func(TrackSketch) error) error
}

// TrackSketch is what a plan of a track reads of a person of an enrich
// block it watches (plan.trackPeople, plan.track): the ID, the page
// name, the status, when a read last looked at them (Person.Checked,
// zero for never), and the enrichment's By. Nothing else of them is
// read: a plan that asks more (an exclude block, an import, retention,
// moves) reads them whole.
type TrackSketch struct {
	ID, PageName, Status, By string
	Checked                  time.Time
}

// SketchOf is p's TrackSketch.
func SketchOf(p *Person) TrackSketch {
	s := TrackSketch{ID: p.ID, PageName: p.Lead.PageName, Status: p.Status}
	if at := p.Checked(); at != nil {
		s.Checked = *at
	}
	if p.Enrichment != nil {
		s.By = p.Enrichment.By
	}
	return s
}

// TrackSketches are many TrackSketch packed: the IDs and page names in
// chunks of texts (textChunks: without ends when of one length), or
// whether each has a page name as a bit, the statuses and Bys as small
// numbers, the times as Unix nanoseconds (sparseTimes: those never read
// hold none), each list in chunks; the i-th (ID, Find) is the i-th by
// ID. At 2,700,000 people they took about 65 MB, where a state.Person
// each took 352 bytes and a map; about 46 MB when nine in ten were never
// read.
type TrackSketches struct {
	ids, pages    textChunks
	paged         []uint64 // when pageless: a bit a sketch, set for a page name
	status, by    Chunks[uint8]
	statuses, bys []string
	checked       sparseTimes // UnixNano; never: noTime
	// order are the indexes of the sketches as added, by ID (Done); nil
	// when they were added in the order of their IDs, each once, as
	// SQLite reads them (sqlstate.SelectTrackSketched).
	order []int32
	// pageless: paged says who has a page name (HasPage); pages is empty.
	pageless bool
	// of are the blocks whose enrichments they were read for (ReadOf).
	of []string
}

const noTime = -1 << 63

// TrackSketchesOf packs ss (each ID once: the first kept), sorting them.
func TrackSketchesOf(ss []TrackSketch) *TrackSketches {
	var k TrackSketchBuilder
	for _, s := range ss {
		k.Add(s)
	}
	return k.Done()
}

// TrackSketchBuilder packs sketches as they come (Add), then sorts them
// (Done): no TrackSketch is held per person meanwhile.
type TrackSketchBuilder struct {
	// Pageless keeps whether each has a page name, not the name
	// (TrackSketches.Pageless): a plan without a profile read asks no more.
	Pageless bool
	t        TrackSketches
	n        int
	unsorted bool // an ID added not after the one before
}

// Add packs s.
func (k *TrackSketchBuilder) Add(s TrackSketch) {
	t := &k.t
	if k.n > 0 && !k.unsorted && s.ID <= t.ids.at(k.n-1) {
		k.unsorted = true
	}
	t.ids.add(s.ID)
	switch {
	case !k.Pageless:
		t.pages.add(s.PageName)
	case k.n%64 == 0:
		t.paged = append(t.paged, 0)
	}
	if k.Pageless && s.PageName != "" {
		t.paged[k.n/64] |= 1 << (k.n % 64) // has one
	}
	k.n++
	t.status.Add(smallIndex(&t.statuses, s.Status))
	t.by.Add(smallIndex(&t.bys, s.By))
	at := int64(noTime)
	if !s.Checked.IsZero() {
		at = s.Checked.UnixNano()
	}
	t.checked.Add(at)
}

// smallIndex is the index of v in *table, added when missing. More than
// 255 distinct values (never: a handful of statuses, the Bys of a
// track's blocks) would wrap: Done then gives nil.
func smallIndex(table *[]string, v string) uint8 {
	i := slices.Index(*table, v)
	if i < 0 {
		i = len(*table)
		*table = append(*table, v)
	}
	return uint8(i)
}

// Done sorts what was added by ID (each ID once: the first added kept),
// in an order of indexes beside the packed sketches, not a copy of them,
// unless they came in that order; nil when they cannot be packed (over
// 255 statuses or Bys, or over 4 GB of IDs or page names in a chunk):
// read them whole then.
func (k *TrackSketchBuilder) Done() *TrackSketches {
	t := &k.t
	if len(t.statuses) > 255 || len(t.bys) > 255 || t.ids.tooLong() || t.pages.tooLong() {
		return nil
	}
	t.pageless = k.Pageless
	if !k.unsorted {
		return t
	}
	t.order = make([]int32, k.n)
	for i := range t.order {
		t.order[i] = int32(i)
	}
	id := func(i int32) string { return t.ids.at(int(i)) }
	slices.SortStableFunc(t.order, func(a, b int32) int { return strings.Compare(id(a), id(b)) })
	t.order = slices.CompactFunc(t.order, func(a, b int32) bool { return id(a) == id(b) })
	return t
}

// Len is how many people t holds.
func (t *TrackSketches) Len() int {
	switch {
	case t == nil:
		return 0
	case t.order == nil:
		return t.ids.n
	}
	return len(t.order)
}

// added is the place, as added, of the i-th person by ID.
func (t *TrackSketches) added(i int) int {
	if t.order == nil {
		return i
	}
	return int(t.order[i])
}

// ID is the ID of the i-th person (by ID).
func (t *TrackSketches) ID(i int) string { return t.ids.at(t.added(i)) }

// PageName is the i-th person's page name; "" for all when Pageless.
func (t *TrackSketches) PageName(i int) string {
	if t.pageless {
		return ""
	}
	return t.pages.at(t.added(i))
}

// HasPage reports whether the i-th person has a page name.
func (t *TrackSketches) HasPage(i int) bool {
	k := t.added(i)
	if t.pageless {
		return t.paged[k/64]&(1<<(k%64)) != 0
	}
	return t.pages.at(k) != ""
}

// Pageless reports whether t keeps whether each has a page name, not the
// name (TrackSketchBuilder.Pageless).
func (t *TrackSketches) Pageless() bool { return t.pageless }

// ReadOf records that t holds every person holding an enrichment of a
// block of addrs who was not held whole when t was read (Holds).
func (t *TrackSketches) ReadOf(addrs []string) { t.of = slices.Clone(addrs) }

// Holds reports whether t holds every person holding an enrichment of
// the block at addr whom the state did not hold whole when t was read
// (ReadOf).
func (t *TrackSketches) Holds(addr string) bool { return slices.Contains(t.of, addr) }

// Status is the i-th person's Status.
func (t *TrackSketches) Status(i int) string { return t.statuses[t.status.At(t.added(i))] }

// By is the By of the i-th person's enrichment.
func (t *TrackSketches) By(i int) string { return t.bys[t.by.At(t.added(i))] }

// Checked is when a read last looked at the i-th person (Person.Checked),
// the zero time for never; in UTC. A value, not a pointer: a track asks it
// of each of 2,700,000 people, and a pointer each was 65 MB of garbage.
func (t *TrackSketches) Checked(i int) time.Time {
	n := t.checked.At(t.added(i))
	if n == noTime {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Find is the index of the person of id, -1 when t holds none.
func (t *TrackSketches) Find(id string) int {
	n := t.Len()
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.ID(m) < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < n && t.ID(lo) == id {
		return lo
	}
	return -1
}

// Sketch is the i-th person's TrackSketch.
func (t *TrackSketches) Sketch(i int) TrackSketch {
	return TrackSketch{ID: t.ID(i), PageName: t.PageName(i), Status: t.Status(i), By: t.By(i), Checked: t.Checked(i)}
}

// Person is the i-th person as a Person holding only what its sketch
// says (its Checked time as CheckedAt).
func (t *TrackSketches) Person(i int) *Person {
	p := &Person{ID: t.ID(i), Status: t.Status(i)}
	if at := t.Checked(i); !at.IsZero() {
		p.CheckedAt = &at
	}
	p.Lead.PageName = t.PageName(i)
	p.Enrichment = &Enrichment{By: t.By(i)}
	return p
}

// TrackSketches are the people s holds in sketch (SetTrackSketches), nil
// when none.
func (s *State) TrackSketches() *TrackSketches { return s.sketches }

// SetTrackSketches gives s the people of t in sketch, besides the people
// it holds whole: a plan asks People first (plan.Reads.Read).
func (s *State) SetTrackSketches(t *TrackSketches) { s.sketches = t }

// TrackSketches reports whether b reads people as TrackSketch keeps
// them: a state in memory does, a store when it gives them.
func (b *Base) TrackSketches() bool {
	if b.store == nil {
		return true
	}
	_, ok := b.store.(TrackSketcher)
	return ok
}

// TrackSketchEach: see TrackSketcher; a state in memory sketches its own
// people.
func (b *Base) TrackSketchEach(by string, fn func(TrackSketch) error) error {
	if s, ok := b.store.(TrackSketcher); ok {
		return s.TrackSketchEach(by, fn)
	}
	for _, p := range b.mem {
		if p.Enrichment != nil && p.Enrichment.By == by {
			if err := fn(SketchOf(p)); err != nil {
				return err
			}
		}
	}
	return nil
}
