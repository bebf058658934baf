package state

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// CensusSketcher is a store that reads the people of an enrich block's
// enrichments up to a time (the people EnrichIndex.Sketched gives) as a
// CensusSketch each, given the lead fields of keys: the census of a plan
// of enrich blocks packs them (CensusSketchBuilder) instead of holding a
// Person and an Enrichment each (640 bytes). The SQL stores give it.
type CensusSketcher interface {
	// CensusSketchEach calls fn with each person holding an enrichment
	// made by by at or before the time, in no order; fn's error stops
	// it. The CensusSketch is fn's for the call only: its Fields are
	// reused.
	CensusSketchEach(by string, before time.Time, keys []string, fn func(CensusSketch) error) error
}

// CensusSketch is what the census of a plan of enrich blocks keeps of a
// person holding an enrichment: the ID, the status, the enrichment's By
// and time, and the lead fields a where reads (Fields, in the order of
// the keys asked: SketchFields).
type CensusSketch struct {
	ID, Status, By string
	EnrichedAt     time.Time
	Fields         []string
}

// CensusSketchOf is p's CensusSketch given the lead fields of keys (nil
// Fields without keys); p holds an enrichment.
func CensusSketchOf(p *Person, keys []string) (CensusSketch, error) {
	fields, err := SketchFields(keys)
	if err != nil {
		return CensusSketch{}, err
	}
	s := CensusSketch{ID: p.ID, Status: p.Status, By: p.Enrichment.By, EnrichedAt: p.Enrichment.EnrichedAt}
	for _, f := range fields {
		s.Fields = append(s.Fields, *f.Lead(&p.Lead))
	}
	return s, nil
}

// CensusSketches are many CensusSketch packed, as TrackSketches are: the
// IDs in one packed list (IDList: without ends when of one length), each
// lead field in one too, the statuses and Bys as small numbers, the times
// as Unix nanoseconds; the i-th (ID) is the i-th by ID, each ID once
// (Done). A plan finds one by ID in a map of its own (sketchAt). 85,000
// sketches of 14-character IDs and a company take about 4 MB.
type CensusSketches struct {
	keys          []string
	ids           IDList
	fields        []IDList // by key
	status, by    []uint8
	statuses, bys []string
	at            []int64 // UnixNano, in UTC
	// order are the indexes of the sketches as added, by ID (Done).
	order []int32
}

// CensusSketchBuilder packs sketches as they come (Add), then sorts them
// (Done): no Person is held per sketch meanwhile.
type CensusSketchBuilder struct {
	t      CensusSketches
	ids    packedTexts
	fields []packedTexts
	n      int
}

// packedTexts are texts added one by one into one IDList (a ListPacker
// of one list), and their length in all.
type packedTexts struct {
	p    ListPacker
	size int
}

// add appends s.
func (l *packedTexts) add(s string) {
	l.p.Add(s)
	l.size += len(s)
}

// done is the list of the texts added; false past 4 GB of text, which
// its ends cannot hold.
func (l *packedTexts) done() (IDList, bool) {
	if l.size >= 1<<32-1 {
		return IDList{}, false
	}
	return l.p.End(), true
}

// NewCensusSketchBuilder packs sketches given the lead fields of keys.
func NewCensusSketchBuilder(keys []string) (*CensusSketchBuilder, error) {
	if _, err := SketchFields(keys); err != nil {
		return nil, err
	}
	k := &CensusSketchBuilder{fields: make([]packedTexts, len(keys))}
	k.t.keys = slices.Clone(keys)
	k.ids.p.Begin(0)
	for i := range k.fields {
		k.fields[i].p.Begin(0)
	}
	return k, nil
}

// Add packs s, whose Fields follow the builder's keys.
func (k *CensusSketchBuilder) Add(s CensusSketch) error {
	if len(s.Fields) != len(k.fields) {
		return fmt.Errorf("the sketch of %s has %d lead fields, not %d", s.ID, len(s.Fields), len(k.fields))
	}
	t := &k.t
	k.ids.add(s.ID)
	for i, v := range s.Fields {
		k.fields[i].add(v)
	}
	k.n++
	t.status = append(t.status, smallIndex(&t.statuses, s.Status))
	t.by = append(t.by, smallIndex(&t.bys, s.By))
	t.at = append(t.at, s.EnrichedAt.UnixNano())
	return nil
}

// Done sorts what was added by ID (each ID once: the first added kept);
// nil when they cannot be packed (over 255 statuses or Bys, or over 4 GB
// of IDs or of a field): read them as Persons then.
func (k *CensusSketchBuilder) Done() *CensusSketches {
	t := &k.t
	if len(t.statuses) > 255 || len(t.bys) > 255 {
		return nil
	}
	ids, ok := k.ids.done()
	if !ok {
		return nil
	}
	for i := range k.fields {
		l, ok := k.fields[i].done()
		if !ok {
			return nil
		}
		t.fields = append(t.fields, l)
	}
	t.ids = ids
	t.order = orderByID(t.ids, k.n)
	return t
}

// orderByID are the indexes 0 to n-1 of ids sorted by ID, each ID once
// (the first index kept).
func orderByID(ids IDList, n int) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	id := func(i int32) string { return ids.At(int(i)) }
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(id(a), id(b)) })
	return slices.CompactFunc(order, func(a, b int32) bool { return id(a) == id(b) })
}

// Len is how many people t holds.
func (t *CensusSketches) Len() int {
	if t == nil {
		return 0
	}
	return len(t.order)
}

// Keys are the lead fields t holds (SketchFields keys).
func (t *CensusSketches) Keys() []string { return t.keys }

// ID is the ID of the i-th person (by ID).
func (t *CensusSketches) ID(i int) string { return t.ids.At(int(t.order[i])) }

// Status is the i-th person's Status.
func (t *CensusSketches) Status(i int) string { return t.statuses[t.status[t.order[i]]] }

// By is the By of the i-th person's enrichment.
func (t *CensusSketches) By(i int) string { return t.bys[t.by[t.order[i]]] }

// EnrichedAt is when the i-th person's enrichment was made, in UTC.
func (t *CensusSketches) EnrichedAt(i int) time.Time {
	return time.Unix(0, t.at[t.order[i]]).UTC()
}

// Field is the i-th person's lead field of the j-th key.
func (t *CensusSketches) Field(i, j int) string { return t.fields[j].At(int(t.order[i])) }

// Sketch is the i-th person's CensusSketch.
func (t *CensusSketches) Sketch(i int) CensusSketch {
	s := CensusSketch{ID: t.ID(i), Status: t.Status(i), By: t.By(i), EnrichedAt: t.EnrichedAt(i)}
	for j := range t.fields {
		s.Fields = append(s.Fields, t.Field(i, j))
	}
	return s
}

// Person is the i-th person as Sketch makes it (page name PageUnread),
// with the status and the lead fields t holds: made only where a plan
// needs a Person.
func (t *CensusSketches) Person(i int) *Person {
	p := &Person{ID: t.ID(i), Status: t.Status(i), Enrichment: &Enrichment{By: t.By(i), EnrichedAt: t.EnrichedAt(i)}}
	p.Lead.PageName = PageUnread
	fields, _ := SketchFields(t.keys) // checked by NewCensusSketchBuilder
	for j, f := range fields {
		*f.Lead(&p.Lead) = t.Field(i, j)
	}
	return p
}

// CensusSketchEach: see CensusSketcher; a state in memory sketches its
// own people, and a store that is none gives the people Sketched gives,
// with the lead fields SketchLeads gives them.
func (b *Base) CensusSketchEach(by string, before time.Time, keys []string, fn func(CensusSketch) error) error {
	if s, ok := b.store.(CensusSketcher); ok {
		return s.CensusSketchEach(by, before, keys, fn)
	}
	ps, err := b.sketchedPeople(by, before, keys)
	if err != nil {
		return err
	}
	for _, p := range ps {
		s, err := CensusSketchOf(p, keys)
		if err != nil {
			return err
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return nil
}

// sketchedPeople are the people CensusSketchEach gives of a Base whose
// store is no CensusSketcher: those of its memory, or those its store
// sketches, given the lead fields of keys.
func (b *Base) sketchedPeople(by string, before time.Time, keys []string) ([]*Person, error) {
	if _, ok := b.store.(EnrichIndex); !ok {
		var ps []*Person
		for _, p := range b.mem {
			if madeBy(p, by, before) {
				ps = append(ps, p)
			}
		}
		return ps, nil
	}
	ps, err := b.Sketched(by, before)
	if err == nil && len(keys) > 0 {
		err = b.SketchLeads(ps, keys)
	}
	return ps, err
}
