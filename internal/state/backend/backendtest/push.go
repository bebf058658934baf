package backendtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// ManyPeople is the fixture's state (Events) with n people more, found by
// searches of 250 people each (under the service's 300): every seventh enriched, every fifth seen
// again with another title (a history entry). A push of it passes the
// people in several batches (backend.StreamBatch).
func ManyPeople(t TB, n int) *state.State {
	t.Helper()
	s := Fold(t, Events())
	req := json.RawMessage(`{"keywords":"many"}`)
	fold := func(e state.Event) {
		t.Helper()
		if err := s.Fold(e); err != nil {
			t.Fatalf("fold %s %s: %v", e.Kind, e.Address, err)
		}
	}
	leads := func(from, to int, title string, every int) []person.Lead {
		var out []person.Lead
		for i := from; i < to; i++ {
			if i%every != 0 {
				continue
			}
			l := lead(fmt.Sprintf("m%06d", i), fmt.Sprintf("many-%06d", i), fmt.Sprintf("Many %d", i))
			l.Title = title
			out = append(out, l)
		}
		return out
	}
	for from := 0; from < n; from += 250 {
		addr := fmt.Sprintf("search.many[%q]", fmt.Sprint(from))
		fold(state.Event{At: At(20), Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: leads(from, min(from+250, n), "CTO", 1)}})
		fold(state.Event{At: At(21), Kind: state.EventSearch, Address: addr + "x", Search: &state.SearchEvent{Generation: api.Gen1, Request: req,
			Leads: leads(from, min(from+250, n), "CEO", 5)}})
	}
	for i := 0; i < n; i += 7 {
		id := fmt.Sprintf("m%06d", i)
		fold(state.Event{At: At(22), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: id, Credits: 1,
			Result: person.EnrichedProfile{NetworkID: id, Email: id + "@many.example", ValidationStatus: person.StatusValid}}})
	}
	return s
}

// streamPusher returns b as a StreamPusher, skipping the test for a
// backend that takes no pushed state.
func streamPusher(t *testing.T, b backend.Backend) backend.StreamPusher {
	t.Helper()
	p, ok := backend.StreamPusherOf(b)
	if !ok {
		t.Skip("the backend takes no pushed state")
	}
	return p
}

// pushStream pushes src into b under its lock.
func pushStream(t *testing.T, b backend.Backend, src backend.Stream, force bool) (*backend.Pushed, error) {
	t.Helper()
	p := streamPusher(t, b)
	l, err := b.Lock("state push")
	must(t, err, "lock")
	defer l.Unlock()
	return p.PushStream(src, force)
}

// A state of several batches of people arrives whole: every person, with
// their enrichment and history, identical.
func testPushManyPeople(t *testing.T, k Kind) {
	open := k.New(t)
	n := 2*backend.StreamBatch + 1234
	s := ManyPeople(t, n)
	enriched, history := 0, 0
	for _, p := range s.People {
		if p.Enrichment != nil {
			enriched++
		}
		if len(p.History) > 0 {
			history++
		}
	}
	if enriched < n/7 || history < n/5 {
		t.Fatalf("the fixture has %d people enriched and %d with a history", enriched, history)
	}
	want := Canon(t, s)
	pushed, err := pushStream(t, open("", Alice), backend.MemoryStream(s, "the state pushed"), false)
	must(t, err, "push")
	if pushed.People != len(s.People) || pushed.People < n {
		t.Fatalf("pushed %d people, the state has %d", pushed.People, len(s.People))
	}
	got, err := loadOnce(open("", Bob))
	must(t, err, "load")
	if Canon(t, got) != want {
		same(t, s, got, "the state pushed in batches differs")
	}
	pulled(t, open("", Bob), got, "the state read back in batches")

	// An erasure recorded elsewhere since: a read leaves the person out,
	// streamed as loaded.
	keeper, ok := backend.ErasuresOf(open("", Bob))
	if !ok {
		return
	}
	gone := got.People["m000007"]
	must(t, keeper.RecordErasures([]*state.Suppression{{Keys: state.PersonKeys(gone), At: At(30)}}), "record an erasure")
	got, err = loadOnce(open("", Bob))
	must(t, err, "load after the erasure")
	if got.People[gone.ID] != nil {
		t.Fatal("the load after the erasure holds the person erased")
	}
	pulled(t, open("", Bob), got, "the state read back in batches after an erasure")
}

// pulled fails t when b's state read as a Stream (state pull) and written
// as a state file differs from want (what Load gave).
func pulled(t *testing.T, b backend.Backend, want *state.State, what string) {
	t.Helper()
	st, err := backend.OpenStream(b)
	must(t, err, "open the stream")
	defer st.Close()
	var buf bytes.Buffer
	must(t, statefile.EncodeStream(&buf, st.Header(), st.People), "write the stream")
	got, err := statefile.Decode("pulled.json", buf.Bytes())
	must(t, err, "decode the stream")
	same(t, want, got, what)
}

// A source that fails half-way (a read error after two batches), or that
// turns out broken only once every person passed (a search names a
// person it does not hold), leaves the workspace as it was: the push is
// one transaction.
func testPushBrokenHalfWay(t *testing.T, k Kind) {
	open := k.New(t)
	b := open("", Alice)
	before := Fold(t, Events())
	_, err := pushStream(t, b, backend.MemoryStream(before, "the first state"), false)
	must(t, err, "push the first state")
	was, err := loadOnce(open("", Bob))
	must(t, err, "load")

	big := ManyPeople(t, 3*backend.StreamBatch)
	failing := &failingStream{Stream: backend.MemoryStream(big, "the failing state"), after: 2}
	if _, err := pushStream(t, b, failing, true); !errors.Is(err, errHalfWay) {
		t.Fatalf("push of a source that fails half-way: %v", err)
	}
	if failing.passed < 2 {
		t.Fatalf("the source failed after %d batches, want 2", failing.passed)
	}
	got, err := loadOnce(open("", Bob))
	must(t, err, "load")
	same(t, was, got, "the workspace after a source that failed half-way")

	// The last person goes: the search that names them is found broken
	// only after every other person was written.
	last := ""
	for id := range big.People {
		if id > last {
			last = id
		}
	}
	delete(big.People, last)
	_, err = pushStream(t, b, backend.MemoryStream(big, "the broken state"), true)
	var be *backend.BrokenStateError
	if !errors.As(err, &be) || be.What != "the broken state" {
		t.Fatalf("push of a state that names a person it does not hold: %v", err)
	}
	got, err = loadOnce(open("", Bob))
	must(t, err, "load")
	same(t, was, got, "the workspace after a broken state")
}

// errHalfWay is failingStream's error.
var errHalfWay = errors.New("the disk went away half-way")

// failingStream fails its People pass after a number of batches.
type failingStream struct {
	backend.Stream
	after, passed int
}

func (f *failingStream) People(fn func([]*state.Person) error) error {
	f.passed = 0
	return f.Stream.People(func(b []*state.Person) error {
		if f.passed == f.after {
			return errHalfWay
		}
		f.passed++
		return fn(b)
	})
}
