package backend

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// Stream is a state read in two parts, so that a state of millions of
// people is never held whole (state push): its header, everything but
// the people (Header().People is empty), and its people with their
// enrichments and histories in batches, in one snapshot of the state.
type Stream interface {
	// Describe names the state read, for messages.
	Describe() string
	// Header is the state without its people.
	Header() *state.State
	// People passes every person to fn in batches (StreamBatch), in the
	// order of their IDs when the store keeps one; it may be called
	// again for another pass over the same snapshot. fn may keep the
	// people, not the slice.
	People(fn func(batch []*state.Person) error) error
	// Close ends the read.
	Close() error
}

// StreamBatch is the most people a Stream of a database passes at once (a
// state file's passes a piece of the file, about a megabyte, at a time).
// A variable only so that the state backends' tests make batches of 500:
// their states of several batches then hold a tenth of the people. Only
// a test's TestMain sets it, before any test runs; the rest of leadsync
// reads it, and nothing may set it while a stream is under way.
var StreamBatch = 5000

// ErrReadWhole is a Stream's error when its state turns out, as its
// people pass, to be one that must be read whole (a state file in another
// layout than leadsync's): whoever read it reads it again with Load.
var ErrReadWhole = errors.New("the state must be read whole")

// Streamer is a backend that reads its state as a Stream.
type Streamer interface {
	OpenStream() (Stream, error)
}

// OpenStream reads b's state as a Stream: streamed when b can, else
// loaded whole (Load) and passed from memory.
func OpenStream(b Backend) (Stream, error) {
	if s, ok := abilityOf[Streamer](b); ok {
		return s.OpenStream()
	}
	s, err := b.Load()
	if err != nil {
		return nil, err
	}
	return MemoryStream(s, b.Describe()), nil
}

// StreamPusher is a workspace that takes a whole state as a Stream (state
// push), with Pusher's rules: its lineage kept, a workspace that holds
// state refused unless force (a *NotEmptyError), the erasure record
// applied, the state checked as it passes (nothing is written when it is
// broken, however far it got).
type StreamPusher interface {
	PushStream(src Stream, force bool) (*Pushed, error)
}

// StreamPusherOf returns b as a StreamPusher, ok false when it takes no
// pushed state.
func StreamPusherOf(b Backend) (StreamPusher, bool) {
	p, ok := abilityOf[StreamPusher](b)
	return p, ok
}

// Pushed is what a push wrote.
type Pushed struct {
	// Records are the search and profile records, People the people.
	Records, People int
}

// memoryStream passes a state held in memory.
type memoryStream struct {
	s      *state.State
	header *state.State
	what   string
}

// MemoryStream is s as a Stream (what names it). Its header shares s's
// records: a push that honours an erasure record changes them.
func MemoryStream(s *state.State, what string) Stream {
	h := *s
	h.People = map[string]*state.Person{}
	return &memoryStream{s: s, header: &h, what: what}
}

func (m *memoryStream) Describe() string     { return m.what }
func (m *memoryStream) Header() *state.State { return m.header }
func (m *memoryStream) Close() error         { return nil }

func (m *memoryStream) People(fn func([]*state.Person) error) error {
	ids := make([]string, 0, len(m.s.People))
	for id := range m.s.People {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	batch := make([]*state.Person, 0, min(len(ids), StreamBatch))
	for len(ids) > 0 {
		n := min(len(ids), StreamBatch)
		batch = batch[:0]
		for _, id := range ids[:n] {
			p := m.s.People[id]
			if p != nil && p.ID == "" {
				p.ID = id
			}
			if p == nil {
				return fmt.Errorf("person %q is null", id)
			}
			batch = append(batch, p)
		}
		if err := fn(batch); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// PushSource is a Stream as a push writes it: its header checked and
// made to honour the target's erasure record (PreparePush), its people
// checked as they pass and the people erased left out.
type PushSource struct {
	src Stream
	// Header is the state's header as it is to be written.
	Header *state.State
	refs   *state.RefCheck
	erased map[string]bool
	// Pushed counts what the last pass of People passed.
	Pushed Pushed
	// packed holds the searches' lists of people ReleaseLists let go
	// of, by address.
	packed map[string]string
}

// PreparePush checks src's header and applies the erasure record to it
// (a pass over the people when the record names someone the state does
// not suppress yet). A broken state is an error that names it.
func PreparePush(src Stream, erasures []*state.Suppression) (*PushSource, error) {
	h := src.Header()
	refs, err := h.CheckHeader()
	if err != nil {
		return nil, broken(src, err)
	}
	erased, err := h.HonourStreamed(erasures, func(fn func([]*state.Person) error) error {
		return src.People(fn)
	})
	if err != nil {
		return nil, err
	}
	return &PushSource{src: src, Header: h, refs: refs, erased: erased}, nil
}

// People passes the people to push to fn in batches, each checked (as
// state.Check would) and without the people erased; once all passed, a
// record that names a person who did not pass is an error. An error
// means the state must not be written. The source reads the next batch
// while fn writes one (a pipeline: the two sides are often two engines).
func (p *PushSource) People(fn func([]*state.Person) error) error {
	p.refs.Reset()
	p.Pushed = Pushed{Records: len(p.Header.Searches) + len(p.Header.Profiles)}
	batches := make(chan []*state.Person, 1)
	stop := make(chan struct{})
	var srcErr error
	go func() {
		defer close(batches)
		defer recovered.Catch(&srcErr) // a bug: the push's error
		srcErr = p.src.People(func(b []*state.Person) error {
			select {
			case batches <- slices.Clone(b):
				return nil
			case <-stop:
				return errStopped
			}
		})
	}()
	var err error
	for b := range batches {
		if err == nil {
			if err = p.take(b, fn); err != nil {
				close(stop)
			}
		}
	}
	if err := recovered.First(err, srcErr); err != nil {
		return err
	}
	if p.refs.Complete() {
		return nil
	}
	p.restoreLists()
	if err := p.refs.Done(p.Header); err != nil {
		return broken(p.src, err)
	}
	return nil
}

// Erased are the IDs of the people the erasure record erased, whom a
// push leaves out (nil for none).
func (p *PushSource) Erased() map[string]bool { return p.erased }

// errStopped ends a source's pass when its batches are no longer taken.
var errStopped = errors.New("stopped")

// take checks batch and passes its people but the erased to fn.
func (p *PushSource) take(batch []*state.Person, fn func([]*state.Person) error) error {
	keep := batch[:0]
	for _, q := range batch {
		if q == nil {
			return broken(p.src, fmt.Errorf("a person is null"))
		}
		if err := p.refs.Person(q.ID, q); err != nil {
			return broken(p.src, err)
		}
		if !p.erased[q.ID] {
			keep = append(keep, q)
		}
	}
	p.Pushed.People += len(keep)
	return fn(keep)
}

// BrokenStateError is a state read for a push that Check refuses.
type BrokenStateError struct {
	What string // the state, as its Stream describes it
	Err  error
}

func (e *BrokenStateError) Error() string {
	return fmt.Sprintf("%s is not a valid leadsync state: %v; nothing was copied", e.What, e.Err)
}

func (e *BrokenStateError) Unwrap() error { return e.Err }

func broken(src Stream, err error) error { return &BrokenStateError{What: src.Describe(), Err: err} }
