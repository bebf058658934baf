package state

import (
	"slices"
	"time"
)

// EnrichIndex is what a store answers of the enrichments and the people
// who are not plain (left the network, no page name) from its indexes,
// without reading a person: what a plan of enrich blocks asks instead of
// every person (plan.EnrichReadsOf). The SQL stores give it.
type EnrichIndex interface {
	// Sketched are the people holding an enrichment the enrich block at
	// addr made at or before the time (the index enrichments_by), each as
	// Sketch gives them, in no order; copies are not among them.
	Sketched(addr string, before time.Time) ([]*Person, error)
	// CountEnrichedBefore counts them; a zero time counts every one.
	CountEnrichedBefore(addr string, before time.Time) (int, error)
	// CopiedBy are the IDs of the people holding an enrichment the block
	// at addr copied from another workspace (Enrichment.CopiedBy).
	CopiedBy(addr string) ([]string, error)
	// Left are the IDs of the people who left the network (StatusLeft).
	Left() ([]string, error)
	// Pageless are the IDs of the people without a page name.
	Pageless() ([]string, error)
	// Enrichers are the addresses the enrichments were made by
	// (Enrichment.By), each once, in no order.
	Enrichers() ([]string, error)
	// SketchedAmong are the people of ids holding an enrichment (made by
	// any block, imported, or copied), each as Sketch gives them, in no
	// order: one look into the enrichments' primary key per ID, so that
	// the plan of a block with places left under its limit finds the
	// plain people among its sources' first ones without reading them.
	SketchedAmong(ids []string) ([]*Person, error)
}

// EnrichmentLister is a store that lists the people holding an
// enrichment by ID alone, in pages: the plan of an enrich block whose
// limit leaves more places than it reads people for (plan.EnrichReadsOf:
// a limit as a safety cap), or with nothing to enrich, tells its members
// apart from them in memory rather than reading them. The SQL stores give
// it, from the enrichments' primary key alone.
type EnrichmentLister interface {
	// EnrichedAfter are the IDs of the people holding an enrichment
	// (made by a block, imported or copied), in byte order, the first n
	// after the ID after ("" from the first).
	EnrichedAfter(after string, n int) ([]string, error)
}

// EnrichmentPager is an EnrichmentLister that appends a page of
// EnrichedAfter to dst, so that a caller reading millions of IDs a page
// at a time reuses one slice (the census: plan.takeCensus) instead of
// making one a page for the collector. The SQL stores give it.
type EnrichmentPager interface {
	AppendEnrichedAfter(dst []string, after string, n int) ([]string, error)
}

// EnrichedBeforeLister gives the IDs of the people Sketched gives, alone:
// the census (plan.takeCensus) needs only those, and at 3,000,000 people
// 136,000 sketches take 91 MB. The SQL stores give it.
type EnrichedBeforeLister interface {
	EnrichedIDsBefore(addr string, before time.Time) ([]string, error)
}

// EnrichedIDsBefore: see EnrichedBeforeLister; a store that is none
// gives the IDs of its Sketched.
func (b *Base) EnrichedIDsBefore(addr string, before time.Time) ([]string, error) {
	if l, ok := b.store.(EnrichedBeforeLister); ok {
		return l.EnrichedIDsBefore(addr, before)
	}
	ps, err := b.Sketched(addr, before)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids, nil
}

// PageUnread is the page name of a person read in sketch (Sketch).
const PageUnread = "(not read)"

// Sketch is what a plan of an enrich block reads of a person holding an
// enrichment made by a block, when it reads in full the people who left
// the network and those without a page name: their ID and the
// enrichment's block and time. The page name is PageUnread, the status
// none. A person of millions read so costs one index entry and a fifth of
// the memory (plan.EnrichReadsOf).
func Sketch(p *Person) *Person {
	s := &Person{ID: p.ID}
	s.Lead.PageName = PageUnread
	if e := p.Enrichment; e != nil {
		s.Enrichment = &Enrichment{By: e.By, EnrichedAt: e.EnrichedAt}
	}
	return s
}

// EnrichIndexed reports whether b answers EnrichIndex's questions without
// reading every person: a state read whole does (in memory), a store when
// it gives them.
func (b *Base) EnrichIndexed() bool {
	if b.store == nil {
		return true
	}
	_, ok := b.store.(EnrichIndex)
	return ok
}

// index is b's store as an EnrichIndex, or the state in memory.
func (b *Base) index() EnrichIndex {
	if ix, ok := b.store.(EnrichIndex); ok {
		return ix
	}
	return memIndex(b.mem)
}

// Sketched: see EnrichIndex.
func (b *Base) Sketched(addr string, before time.Time) ([]*Person, error) {
	return b.index().Sketched(addr, before)
}

// CountEnrichedBefore: see EnrichIndex.
func (b *Base) CountEnrichedBefore(addr string, before time.Time) (int, error) {
	return b.index().CountEnrichedBefore(addr, before)
}

// CopiedBy: see EnrichIndex.
func (b *Base) CopiedBy(addr string) ([]string, error) { return b.index().CopiedBy(addr) }

// Left: see EnrichIndex.
func (b *Base) Left() ([]string, error) { return b.index().Left() }

// Pageless: see EnrichIndex.
func (b *Base) Pageless() ([]string, error) { return b.index().Pageless() }

// Enrichers: see EnrichIndex.
func (b *Base) Enrichers() ([]string, error) { return b.index().Enrichers() }

// SketchedAmong: see EnrichIndex; a store is asked in pages of
// PeoplePage.
func (b *Base) SketchedAmong(ids []string) ([]*Person, error) {
	var out []*Person
	page := b.pageSize()
	for start := 0; start < len(ids); start += page {
		found, err := b.index().SketchedAmong(ids[start:min(start+page, len(ids))])
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// AppendEnrichedAfter: see EnrichmentPager; a store that is none
// appends its EnrichedAfter.
func (b *Base) AppendEnrichedAfter(dst []string, after string, n int) ([]string, error) {
	if p, ok := b.store.(EnrichmentPager); ok {
		return p.AppendEnrichedAfter(dst, after, n)
	}
	ids, err := b.EnrichedAfter(after, n)
	if err != nil {
		return nil, err
	}
	return append(dst, ids...), nil
}

// EnrichedAfter: see EnrichmentLister. A store that does not list them
// answers from its index (Enrichers, then Sketched of each, every time:
// for tests and small states).
func (b *Base) EnrichedAfter(after string, n int) ([]string, error) {
	if l, ok := b.store.(EnrichmentLister); ok {
		return l.EnrichedAfter(after, n)
	}
	ix := b.index()
	addrs, err := ix.Enrichers()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, by := range addrs {
		ps, err := ix.Sketched(by, endOfTime)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if p.ID > after {
				ids = append(ids, p.ID)
			}
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	return ids[:min(n, len(ids))], nil
}

// endOfTime is after every enrichment's time.
var endOfTime = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// memIndex answers EnrichIndex from people in memory: what a store's
// answers must equal (backendtest EnrichIndex).
type memIndex map[string]*Person

func (m memIndex) Sketched(addr string, before time.Time) ([]*Person, error) {
	var out []*Person
	for _, id := range m.ids(func(p *Person) bool { return madeBy(p, addr, before) }) {
		out = append(out, Sketch(m[id]))
	}
	return out, nil
}

// madeBy reports whether p holds an enrichment made by addr at or before
// the time (any time for the zero time).
func madeBy(p *Person, addr string, before time.Time) bool {
	return p.Enrichment != nil && p.Enrichment.By == addr && (before.IsZero() || !p.Enrichment.EnrichedAt.After(before))
}

func (m memIndex) CountEnrichedBefore(addr string, before time.Time) (int, error) {
	return len(m.ids(func(p *Person) bool { return madeBy(p, addr, before) })), nil
}

func (m memIndex) CopiedBy(addr string) ([]string, error) {
	return m.ids(func(p *Person) bool { return p.Enrichment != nil && p.Enrichment.CopiedBy == addr }), nil
}

func (m memIndex) Left() ([]string, error) {
	return m.ids(func(p *Person) bool { return p.Status == StatusLeft }), nil
}

func (m memIndex) Pageless() ([]string, error) {
	return m.ids(func(p *Person) bool { return p.Lead.PageName == "" }), nil
}

func (m memIndex) Enrichers() ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, p := range m {
		if p.Enrichment != nil && !seen[p.Enrichment.By] {
			seen[p.Enrichment.By] = true
			out = append(out, p.Enrichment.By)
		}
	}
	return out, nil
}

func (m memIndex) SketchedAmong(ids []string) ([]*Person, error) {
	var out []*Person
	seen := map[string]bool{}
	for _, id := range ids {
		if p := m[id]; p != nil && p.Enrichment != nil && !seen[id] {
			seen[id] = true
			out = append(out, Sketch(p))
		}
	}
	return out, nil
}

func (m memIndex) ids(keep func(*Person) bool) []string {
	var out []string
	for id, p := range m {
		if keep(p) {
			out = append(out, id)
		}
	}
	return out
}
