package export

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// rowPeople reads the people of a table's rows from the Base as the
// writer asks for the rows: a page of rows (Base.PageSize) at a time while
// it reads them in order, the one row asked for when it jumps (fitWidths'
// samples). At most a page of people is in memory; the rows are held as
// person IDs.
type rowPeople struct {
	base *state.Base
	n    int
	id   func(i int) string
	// from and to are the rows whose people held holds; last the row
	// asked for last.
	from, to, last int
	held           map[string]*state.Person
	err            error
}

func newRowPeople(b *state.Base, n int, id func(i int) string) *rowPeople {
	return &rowPeople{base: b, n: n, id: id, last: -2}
}

// person is the person of row i; nil once a read failed (error says why).
func (r *rowPeople) person(i int) *state.Person {
	if r.err != nil {
		return nil
	}
	if i < r.from || i >= r.to {
		end := i + 1
		if i == r.last+1 {
			end = min(i+r.base.PageSize(), r.n)
		}
		r.load(i, end)
	}
	r.last = i
	return r.held[r.id(i)]
}

// load reads the people of rows [from, to).
func (r *rowPeople) load(from, to int) {
	ids := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		ids = append(ids, r.id(i))
	}
	r.held, r.from, r.to = nil, 0, 0 // the last page goes before the next is read
	held, err := r.base.People(ids)
	if err != nil {
		r.err = err
		return
	}
	r.held, r.from, r.to = held, from, to
}

// error is the error of the read that failed, nil when none did.
func (r *rowPeople) error() error { return r.err }

// sourcePiece is a part of a source's IDs (at most a page) waiting for
// its people to be read.
type sourcePiece struct {
	src string
	ids []string
	// ranAt is when the source last ran (only_new).
	ranAt time.Time
	// seen are the people the sheet already lists from this source
	// (nil with dedupe: the sheet's people say).
	seen map[string]bool
}

// pieceBatch gathers the pieces of a sheet's sources until they name a
// page of people, then reads those people in one go (not a query per
// search of a few hundred), or when read is false only asks which exist,
// and hands the pieces to keep in order.
type pieceBatch struct {
	base   *state.Base
	read   bool
	pieces []sourcePiece
	n      int
	keep   func(pc sourcePiece, people map[string]*state.Person, exist map[string]bool) error
}

// add queues the IDs of src, reading people each time a page is queued.
func (b *pieceBatch) add(src string, ids []string, ranAt time.Time, seen map[string]bool) error {
	page := b.base.PageSize()
	for start := 0; start < len(ids); start += page {
		piece := ids[start:min(start+page, len(ids))]
		b.pieces = append(b.pieces, sourcePiece{src: src, ids: piece, ranAt: ranAt, seen: seen})
		b.n += len(piece)
		if b.n >= page {
			if err := b.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

// flush reads the people of the queued pieces (or which of them exist)
// and hands each piece to keep.
func (b *pieceBatch) flush() error {
	var want []string
	for _, pc := range b.pieces {
		want = append(want, pc.ids...)
	}
	var people map[string]*state.Person
	var exist map[string]bool
	var err error
	if b.read {
		people, err = b.base.People(want)
	} else {
		exist, err = b.base.Exist(want)
	}
	if err != nil {
		return err
	}
	for _, pc := range b.pieces {
		if err := b.keep(pc, people, exist); err != nil {
			return err
		}
	}
	b.pieces, b.n = b.pieces[:0], 0
	return nil
}
