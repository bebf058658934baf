package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// A track of the enriched planned on its own reads the block's people in
// sketch (Reads.Sketched): packed (state.TrackSketches, no Person each),
// those held whole aside. trackPeople gives each person a track watches
// as a trackee: held whole, or the index of their sketch.

// trackee is a person a track watches: p when held whole, else the
// sketch at index i of the state's TrackSketches.
type trackee struct {
	p *state.Person
	i int32
}

// sketchOf is the trackee of the person of id held in sketch by v's
// state, ok false when none is.
func (v *env) sketchOf(id string) (trackee, bool) {
	sk := v.st.TrackSketches()
	if sk == nil {
		return trackee{}, false
	}
	i := sk.Find(id)
	return trackee{i: int32(i)}, i >= 0
}

// trackee is the trackee of the person of id: in sketch when the state
// holds them so, else held whole (ok false: neither). The sketch comes
// first: the people an enrich block's plan reads beside it (its stale
// enrichments, EnrichFacts.Fill; those it reads whole while it plans)
// were not held whole when the sketches were read, so the sketch says
// all a track asks of them, where an enrichment's sketch (state.Sketch)
// knows no page name, status nor read.
func (v *env) trackee(id string) (trackee, bool) {
	if tp, ok := v.sketchOf(id); ok {
		return tp, true
	}
	p := v.person(id)
	return trackee{p: p}, p != nil
}

// trackeeSketch is what a track asks of t: whether it has a page name,
// the name (none from sketches kept Pageless: the plan then reads no
// profile, which asks it), the status and the last read (zero for none).
func (v *env) trackeeSketch(t trackee) (paged bool, page, status string, checked time.Time) {
	if t.p != nil {
		if at := t.p.Checked(); at != nil {
			checked = *at
		}
		return t.p.Lead.PageName != "", t.p.Lead.PageName, t.p.Status, checked
	}
	sk, i := v.st.TrackSketches(), int(t.i)
	return sk.HasPage(i), sk.PageName(i), sk.Status(i), sk.Checked(i)
}

// enrichedBy reports whether t holds an enrichment the block at by made,
// or one no credit was spent on (Enrichment.Unpaid).
func (v *env) enrichedBy(t trackee, by string) bool {
	e := (*state.Enrichment)(nil)
	if t.p != nil {
		e = t.p.Enrichment
	} else {
		e = &state.Enrichment{By: v.st.TrackSketches().By(int(t.i))}
	}
	return e != nil && (e.By == by || e.Unpaid())
}

// dueList lists the people a track reads, in order, without a string
// each: a sketch by its index, a person held whole by ID. Appended to
// one by one, a list of 900,000 IDs took 84 MB in all and twice its size
// at its last growth, the plan's peak. A list holding sketches is the
// change's until its IDs are asked (Change.People) or written: 2,430,000
// IDs as strings took 37 MB more (ids). Its indexes sit in chunks
// (state.Chunks): grown by append, 2,430,000 took 10 MB, and 18 MB at the
// last growth.
type dueList struct {
	sketches *state.TrackSketches // the state's, whose indexes at holds
	at       state.Chunks[int32]  // a sketch's index, or -1-i for whole[i]
	whole    []string
}

// inSketch reports whether d lists a person by sketch.
func (d *dueList) inSketch() bool { return len(d.whole) < d.at.Len() }

// add lists t.
func (d *dueList) add(t trackee) {
	if t.p == nil {
		d.at.Add(t.i)
		return
	}
	d.at.Add(int32(-1 - len(d.whole)))
	d.whole = append(d.whole, t.p.ID)
}

// ids are the IDs of the people listed, in order (never nil).
func (d *dueList) ids() []string { return d.idsIn(0, d.at.Len()) }

// idsIn are the IDs of the people listed from the from-th to before the
// to-th, in order (never nil).
func (d *dueList) idsIn(from, to int) []string {
	out := make([]string, to-from)
	for k := range out {
		if i := d.at.At(from + k); i < 0 {
			out[k] = d.whole[-1-i]
		} else {
			out[k] = d.sketches.ID(int(i))
		}
	}
	return out
}

// Listed are the people a change lists (Change.People), taken a page at
// a time (Next): a track's people due in sketch make no string until
// their page is taken. The engine queues the reads of 2,430,000 people
// due so, not from a list of their IDs (37 MB).
type Listed struct {
	ids      []string // the change's PersonIDs, when it holds them
	due      *dueList // else its people due in sketch
	from, to int      // the people left
}

// Listed are the people of c (People), to take a page at a time.
func (c *Change) Listed() Listed {
	if c.due != nil {
		return Listed{due: c.due, to: c.due.at.Len()}
	}
	return Listed{ids: c.PersonIDs, to: len(c.PersonIDs)}
}

// Len is how many people are left in l.
func (l Listed) Len() int { return l.to - l.from }

// Next are the IDs of the first n people left in l (all of them when
// fewer are left), in order, and the people left after them.
func (l Listed) Next(n int) ([]string, Listed) {
	end := l.from + min(max(n, 0), l.Len())
	var ids []string
	if l.due != nil {
		ids = l.due.idsIn(l.from, end)
	} else {
		ids = l.ids[l.from:end]
	}
	l.from = end
	return ids, l
}

// trackSeen marks the people a track's sources give it, each once: those
// held whole by pointer, those in sketch by index.
type trackSeen struct {
	whole  map[*state.Person]bool
	sketch marks
}

// add marks t, false when it was marked already.
func (s *trackSeen) add(v *env, t trackee) bool {
	if t.p != nil {
		if s.whole[t.p] {
			return false
		}
		s.whole[t.p] = true
		return true
	}
	if s.sketch == nil {
		s.sketch = newMarks(v.st.TrackSketches().Len())
	}
	if s.sketch.has(int(t.i)) {
		return false
	}
	s.sketch.set(int(t.i))
	return true
}

// trackedNow reports whether an earlier track of this run reads t
// (builder.tracked; those in sketch: trackedSketch).
func (b *builder) trackedNow(t trackee) bool {
	if t.p != nil {
		return b.tracked[t.p] != ""
	}
	return b.trackedSketch != nil && b.trackedSketch.has(int(t.i))
}

// trackedSketchOf reports whether a track of this run reads the person
// of id held in sketch: the enrich blocks' plans ask it of the people
// they read (readNow), who are other objects than the sketches.
func (b *builder) trackedSketchOf(id string) bool {
	if b.trackedSketch == nil {
		return false
	}
	i := b.v.st.TrackSketches().Find(id)
	return i >= 0 && b.trackedSketch.has(i)
}

// trackNow records that the track at addr reads t in this run.
func (b *builder) trackNow(t trackee, addr string) {
	if t.p != nil {
		b.tracked[t.p] = addr
		return
	}
	if b.trackedSketch == nil {
		b.trackedSketch = newMarks(b.v.st.TrackSketches().Len())
		if b.v.facts != nil {
			b.v.facts.trackedSketch = b.trackedSketch // refresh_on asks (readInSketch)
		}
	}
	b.trackedSketch.set(int(t.i))
}

// trackSketchGCPeople is the people in sketch from which a plan lowers
// GOGC (pagesGC) from its start until it is built (env.settle): the
// list of those due, the sketches' lookups and, beside an enrich block,
// its plan grow the heap beside what the plan holds (the lead lists,
// the sketches), three times it at GOGC 200. Lowered at the track, the
// plan of the blocks before it had grown the heap already.
var trackSketchGCPeople = 250_000

// trackSketchGC lowers GOGC for a plan of many people in sketch.
func (v *env) trackSketchGC() {
	if v.gcBack == nil && v.st.TrackSketches().Len() >= trackSketchGCPeople {
		v.gcBack = pagesGC()
	}
}
