package export

import (
	"time"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// rowPeople reads the people of a table's rows from the Base as the
// writer asks for the rows: a page of rows (Base.PageSize) at a time while
// it reads them in order, the one row asked for when it jumps (fitWidths'
// samples). While the writer writes the rows of a page read in order, the
// next page is read on a goroutine of its own (ahead): the store's read
// and the rows' making overlap, on two cores. At most two pages of people
// are in memory, and one read is under way at a time; the rows are held
// as person IDs.
type rowPeople struct {
	base *state.Base
	n    int
	id   func(i int) string
	// from and to are the rows whose people held holds, by ID, and
	// heldIDs their IDs; last the row asked for last.
	from, to, last int
	held           map[string]*state.Person
	heldIDs        []string
	err            error
	// ahead is the read of the page after held, nil when none is under
	// way or done and not yet taken.
	ahead *pageRead
	// stream reads the pages after held in one pass when the Base can
	// (pagerstream.go); streamFailed once one failed.
	stream       *pageStream
	streamFailed bool
	// samples are the people of the rows prefetch read, by row, until a
	// row not among them is asked for.
	samples map[int]*state.Person
}

// pageRead is the read of the people of rows [from, to) on a goroutine
// of its own: people and err are set when done is closed.
type pageRead struct {
	from, to int
	ids      []string
	done     chan struct{}
	people   map[string]*state.Person
	err      error
}

func newRowPeople(b *state.Base, n int, id func(i int) string) *rowPeople {
	return &rowPeople{base: b, n: n, id: id, last: -1}
}

// person is the person of row i; nil once a read failed (error says why).
func (r *rowPeople) person(i int) *state.Person {
	if r.err != nil {
		return nil
	}
	if p, ok := r.sampled(i); ok {
		return p
	}
	if i < r.from || i >= r.to {
		inOrder := i == r.last+1
		end := i + 1
		if inOrder {
			end = min(i+r.base.PageSize(), r.n)
		}
		// Pages read in order twice running: the rest is streamed when
		// the Base can (not after the one page fitWidths' first samples
		// read).
		twice := false
		switch {
		case inOrder && r.stream != nil && r.stream.at == i:
			r.takeStreamed(i, end)
		case inOrder && r.ahead != nil && r.ahead.from == i:
			r.take()
			twice = true
		default:
			r.stop()
			r.load(i, end)
		}
		switch {
		case !inOrder || r.err != nil || r.to >= r.n || r.stream != nil:
		case twice && r.base.StreamsPages() && !r.streamFailed:
			r.startStream(r.to)
		default:
			r.readAhead(r.to, min(r.to+r.base.PageSize(), r.n))
		}
	}
	r.last = i
	if r.err != nil {
		return nil
	}
	return r.held[r.heldIDs[i-r.from]]
}

// ids are the person IDs of rows [from, to).
func (r *rowPeople) ids(from, to int) []string {
	ids := make([]string, 0, to-from)
	for i := from; i < to; i++ {
		ids = append(ids, r.id(i))
	}
	return ids
}

// load reads the people of rows [from, to).
func (r *rowPeople) load(from, to int) {
	ids := r.ids(from, to)
	r.held, r.heldIDs, r.from, r.to = nil, nil, 0, 0 // the last page goes before the next is read
	held, err := r.base.People(ids)
	r.keep(from, to, ids, held, err)
}

// keep makes the people read of rows [from, to), whose IDs are ids, the
// ones held, or err the error of every later row.
func (r *rowPeople) keep(from, to int, ids []string, held map[string]*state.Person, err error) {
	if err != nil {
		r.held, r.heldIDs, r.from, r.to, r.err = nil, nil, 0, 0, err
		return
	}
	r.held, r.heldIDs, r.from, r.to = held, ids, from, to
}

// readAhead starts reading the people of rows [from, to) on a goroutine
// of its own. Nothing else reads the Base until it is taken or stopped:
// the writer only fills rows meanwhile.
func (r *rowPeople) readAhead(from, to int) {
	a := &pageRead{from: from, to: to, ids: r.ids(from, to), done: make(chan struct{})}
	go func() {
		defer close(a.done)
		defer recovered.Catch(&a.err) // a bug: the export's error
		a.people, a.err = r.base.People(a.ids)
	}()
	r.ahead = a
}

// take waits for the read ahead and holds its people.
func (r *rowPeople) take() {
	a := r.ahead
	r.ahead = nil
	r.held, r.heldIDs = nil, nil // the last page goes as soon as the next is there
	<-a.done
	r.keep(a.from, a.to, a.ids, a.people, a.err)
}

// stop waits for a read ahead still under way and drops it: the Base is
// then free for other reads (a jump, the Summary's, its Close).
func (r *rowPeople) stop() {
	r.stopStream()
	if r.ahead != nil {
		<-r.ahead.done
		r.ahead = nil
	}
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
	base *state.Base
	read bool
	// cols, when set, are what the sheet reads of its people
	// (sheetColumns): they are read with those alone.
	cols   *state.PersonColumns
	pieces []sourcePiece
	n      int
	keep   func(pc sourcePiece, people map[string]*state.Person, exist map[string]bool) error
}

// add queues the IDs of src, reading people each time a page is queued.
func (b *pieceBatch) add(src string, ids []string, ranAt time.Time, seen map[string]bool) error {
	page, batch := b.base.PageSize(), b.base.PageSize()
	if !b.read {
		batch = b.base.ExistPage()
	}
	for start := 0; start < len(ids); start += page {
		piece := ids[start:min(start+page, len(ids))]
		b.pieces = append(b.pieces, sourcePiece{src: src, ids: piece, ranAt: ranAt, seen: seen})
		b.n += len(piece)
		if b.n >= batch {
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
	want := make([]string, 0, b.n)
	for _, pc := range b.pieces {
		want = append(want, pc.ids...)
	}
	var people map[string]*state.Person
	var exist map[string]bool
	var err error
	switch {
	case b.read && b.cols != nil:
		people, err = b.base.PeopleOf(want, *b.cols)
	case b.read:
		people, err = b.base.People(want)
	default:
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
