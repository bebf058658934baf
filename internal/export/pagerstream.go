package export

import (
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// A store that reads pages of people in one pass (Base.StreamsPages:
// PostgreSQL) is asked for the pages of the rows from the first read in
// order to the last in one stream, not a question a page: a page a
// question, 1,000,000 rows waited on 1,500 round trips to the server.
// The stream runs on a goroutine of its own, a page ahead of the writer
// at most (pages holds one, the store decodes the next), so that three
// pages of people are in memory at most. A jump (fitWidths' samples)
// stops it; the next read in order starts it again from there. When the
// stream fails, the rows left are read a page a question, which reports
// the error if it stays. A panic of the stream (a bug) is the error of
// every row after: nothing reads again after it.

// pageStream is the stream of the pages of rows [from, n).
type pageStream struct {
	// at is the first row of the next page pages gives.
	at    int
	pages chan *pageRead
	stop  chan struct{}
	// done is closed when the stream's goroutine has ended (pages is
	// closed then too).
	done chan struct{}
	// panic is the stream's panic (a *recovered.Panic), set before done
	// is closed.
	panic error
}

// startStream streams the pages of rows [from, r.n), a page of
// Base.PageSize rows each.
func (r *rowPeople) startStream(from int) {
	s := &pageStream{at: from, pages: make(chan *pageRead, 1), stop: make(chan struct{}), done: make(chan struct{})}
	page := r.base.PageSize()
	var asked []*pageRead // pages next gave, not yet read
	next := func() ([]string, bool) {
		if from >= r.n {
			return nil, false
		}
		to := min(from+page, r.n)
		a := &pageRead{from: from, to: to, ids: r.ids(from, to)}
		asked = append(asked, a)
		from = to
		return a.ids, true
	}
	go func() {
		defer close(s.done)
		defer close(s.pages)
		defer recovered.Catch(&s.panic)
		r.base.StreamPeople(next, func(people map[string]*state.Person) bool {
			a := asked[0]
			asked = asked[1:]
			a.people = people
			select {
			case <-s.stop: // before a page the channel has room for
				return false
			default:
			}
			select {
			case s.pages <- a:
				return true
			case <-s.stop:
				return false
			}
		})
	}()
	r.stream = s
}

// takeStreamed holds the next page of the stream, whose first row is i;
// when the stream ended before it (an error), rows [i, end) are read as a
// page instead and the rows after are read a page a question.
func (r *rowPeople) takeStreamed(i, end int) {
	s := r.stream
	r.held, r.heldIDs = nil, nil // the last page goes as soon as the next is there
	a, ok := <-s.pages
	if !ok {
		if r.stopStream(); r.err != nil {
			return // the stream panicked
		}
		r.streamFailed = true
		r.load(i, end)
		return
	}
	s.at = a.to
	r.keep(a.from, a.to, a.ids, a.people, nil)
}

// stopStream ends the stream, if one runs, and waits for its goroutine:
// the Base is then free for other reads. A panic of the stream is the
// error of every row after.
func (r *rowPeople) stopStream() {
	s := r.stream
	if s == nil {
		return
	}
	r.stream = nil
	close(s.stop)
	<-s.done
	if s.panic != nil {
		r.keep(0, 0, nil, nil, s.panic)
	}
}

// prefetch reads the people of rows (fitWidths' samples, out of order) in
// one read of the Base, not a read a row: person gives them without a
// read until it is asked for a row not among them.
func (r *rowPeople) prefetch(rows []int) {
	if r.err != nil || len(rows) == 0 {
		return
	}
	r.stop()
	ids := make([]string, len(rows))
	for k, i := range rows {
		ids[k] = r.id(i)
	}
	people, err := r.base.People(ids)
	if err != nil {
		r.keep(0, 0, nil, nil, err)
		return
	}
	r.samples = make(map[int]*state.Person, len(rows))
	for k, i := range rows {
		r.samples[i] = people[ids[k]]
	}
}

// sampled is the person of row i when prefetch read it; the samples are
// dropped at the first row not among them.
func (r *rowPeople) sampled(i int) (*state.Person, bool) {
	if r.samples == nil {
		return nil, false
	}
	p, ok := r.samples[i]
	if !ok {
		r.samples = nil
		return nil, false
	}
	r.last = i
	return p, true
}
