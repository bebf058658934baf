package run

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/run/rescue"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// refusingBackend is a backend whose recordings refuse every event with
// err, as a partial state's guard of the writes (CheckWrite) refuses one.
type refusingBackend struct {
	backend.Backend
	err error
}

func (b refusingBackend) OpenJournal(s *state.State) (backend.Recorder, error) {
	r, err := b.Backend.OpenJournal(s)
	return refusingRecorder{r, b.err}, err
}

type refusingRecorder struct {
	backend.Recorder
	err error
}

func (r refusingRecorder) Append(*state.Event) error { return r.err }

// TestRefusedWriteIsNotTriedAgain: a write the guard of a partial state
// refuses is a bug that writing again cannot mend. The layer keeps the
// result in the rescue file at once, without a wait or a note of a try.
func TestRefusedWriteIsNotTriedAgain(t *testing.T) {
	dir := t.TempDir()
	appliedIn(t, dir, enrichConfig(2))
	b := local.Open(filepath.Join(dir, ".leadsync", "state.db"))
	refusal := partialRefusal(t, b)
	var waits []time.Duration
	layer := Rescuing(refusingBackend{b, refusal}, RescueOptions{
		Place: rescue.PlaceIn(filepath.Join(dir, "cache"), b.Describe()), Now: func() time.Time { return t0 },
		Delays: []time.Duration{time.Second, 2 * time.Second},
		After: func(d time.Duration) <-chan time.Time {
			waits = append(waits, d)
			ch := make(chan time.Time, 1)
			ch <- t0
			return ch
		},
	})
	l, err := layer.Lock("apply")
	mustDo(t, err)
	defer l.Unlock()
	st, err := layer.Load()
	mustDo(t, err)
	rec, err := layer.OpenJournal(st)
	mustDo(t, err)
	defer rec.Close()
	err = rec.Append(enrichEv("ann"))
	if !errors.As(err, new(*KeptError)) || !errors.As(err, new(*state.RefusedError)) || len(waits) != 0 {
		t.Errorf("err %v after waits %v; want the refusal kept at once", err, waits)
	}
}

// partialRefusal is the error of the guard of a partial state of b that
// is asked to write a search whose lead list it never read.
func partialRefusal(t *testing.T, b backend.Backend) error {
	t.Helper()
	base, err := backend.OpenBase(b)
	mustDo(t, err)
	defer base.Close()
	st, err := base.Writable()
	mustDo(t, err)
	var addr string
	for addr = range base.Records.Searches {
		break
	}
	err = st.CheckWrite(&state.Changes{Searches: map[string]struct{}{addr: {}}})
	if err == nil || !strings.Contains(err.Error(), "refusing to write search") {
		t.Fatalf("the guard of a partial state wrote search %q unread: %v", addr, err)
	}
	return err
}
