package statefile

import (
	"bytes"
	"errors"
	"maps"
	"runtime"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// panickyCheck replaces the state's checks, for the rest of the test,
// with one whose goroutine panics (as checkReferences would on a bug).
func panickyCheck(t *testing.T) {
	savedState, savedStreamed := checkState, checkStreamed
	bug := func(*state.State) error {
		return recovered.Call(func() error { panic("a bug in the check") })
	}
	checkState, checkStreamed = bug, bug
	t.Cleanup(func() { checkState, checkStreamed = savedState, savedStreamed })
}

// TestAPanicInTheCheckIsNoDamage: a panic in the state's check is the
// read's error as the *recovered.Panic it is (cli reports a crash), never
// a damaged state file that sends the user to fix it by hand; read whole
// and streamed.
func TestAPanicInTheCheckIsNoDamage(t *testing.T) {
	b := encode(t, bigState(t, 40, 25))
	panickyCheck(t)
	_, wholeErr := Decode("state.json", b)
	streamSmall(t, 256)
	_, streamErr := DecodeReaderAt("state.json", bytes.NewReader(b), int64(len(b)))
	for name, err := range map[string]error{"whole": wholeErr, "streamed": streamErr} {
		_, isBug := errors.AsType[*recovered.Panic](err)
		_, isDamage := errors.AsType[*CorruptError](err)
		if !isBug || isDamage {
			t.Errorf("%s: %v; want the check's panic, not a damaged file", name, err)
		}
	}
}

// TestAPieceAfterARefusedOneStillReportsItsPanic: the first piece of
// people is refused (the whole reader would say why) while the last one
// panics: the read's error is the panic, not a fallback that hides it.
// The refusal waits for the panic, so both pieces are decoded.
func TestAPieceAfterARefusedOneStillReportsItsPanic(t *testing.T) {
	s := bigState(t, 40, 25)
	b := encode(t, s)
	ids := slices.Sorted(maps.Keys(s.People))
	first, last := ids[0], ids[len(ids)-1]
	streamSmall(t, (len(b)-bytes.Index(b, []byte(peopleMarker)))/2+1)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // a worker each
	saved := checkPerson
	t.Cleanup(func() { checkPerson = saved })
	boom := make(chan struct{})
	checkPerson = func(id string, p *state.Person) error {
		switch id {
		case first:
			<-boom
			return errors.New("refused")
		case last:
			close(boom)
			panic("a bug in a later piece")
		}
		return saved(id, p)
	}
	_, err := DecodeReaderAt("state.json", bytes.NewReader(b), int64(len(b)))
	if _, ok := errors.AsType[*recovered.Panic](err); !ok {
		t.Fatalf("%v; want the later piece's panic", err)
	}
}
