package run

import (
	"errors"
	"fmt"
	"math"
	"runtime/debug"
	"sync"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// StatePush copies the state of from (a local state file) into to, whose
// lock d.Backend takes ("state push") around the copy. from is read as a
// backend.Stream, its people a batch at a time where its backend can, so
// that a state of millions of people is copied in bounded memory. It
// returns what was pushed.
func StatePush(d Deps, from backend.Backend, to backend.StreamPusher, force bool) (*backend.Pushed, error) {
	defer collectMore()()
	src, err := backend.OpenStream(from)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	lock, err := lockState(d, "state push")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	pushed, err := to.PushStream(src, force)
	if errors.Is(err, backend.ErrReadWhole) {
		// Nothing was written: the state is read whole, as every command
		// reads it, and pushed again.
		s, lerr := from.Load()
		if lerr != nil {
			return nil, lerr
		}
		pushed, err = to.PushStream(backend.MemoryStream(s, from.Describe()), force)
	}
	if err != nil {
		return nil, err
	}
	return pushed, lock.release()
}

// Recovered is what state recover did.
type Recovered struct {
	// Journal is what it kept of a damaged journal; nil when the backend
	// records each call in a transaction and has no journal file.
	Journal *backend.RecoverResult
	// Repaired counts the IDs of the records that named nobody the state
	// holds, by kind: taken out of the lists that held them, or the
	// profile read removed (state.Repairs).
	Repaired state.Repairs
	// Serial is the state's serial once recover wrote it; 0 when it
	// wrote nothing (a healthy state).
	Serial uint64
}

// StateRecover takes the state's lock ("state recover"), recovers the
// journal of a backend that has one with the clock of d, and then repairs
// the IDs that name nobody (repairNobody). It makes no call, and a
// healthy state is not written.
func StateRecover(d Deps) (*Recovered, error) {
	lock, err := lockState(d, "state recover")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	res := &Recovered{}
	if r, ok := backend.RecovererOf(d.Backend); ok {
		if res.Journal, err = r.RecoverJournal(d.now()); err != nil {
			return nil, err
		}
		if res.Journal != nil {
			res.Repaired, res.Serial = res.Journal.Repaired, res.Journal.Serial
		}
	}
	repaired, serial, err := repairNobody(d.Backend)
	if err != nil {
		return nil, err
	}
	res.Repaired = res.Repaired.Plus(repaired)
	res.Serial = max(res.Serial, serial)
	return res, lock.release()
}

// repairNobody repairs the IDs of b's records that name nobody
// (state.Base.FindNobody, State.DropNobody) and commits the changes,
// giving the serial written (0 when the state is healthy). Its store is
// asked which IDs name no person, the people unread. It cuts the lead
// lists that hold some itself. At 3,000,000 people the question took
// 3.6 s and 84 MB; reading the state whole took 21 s of CPU and 2.40 GB.
// The caller holds the lock.
func repairNobody(b backend.Backend) (state.Repairs, uint64, error) {
	base, err := backend.OpenBase(b)
	if err != nil {
		return state.Repairs{}, 0, err
	}
	done := sync.OnceValue(base.Close)
	defer done()
	found, err := base.FindNobody()
	if err != nil || found.None() {
		return state.Repairs{}, 0, err
	}
	s, err := base.Writable()
	if err != nil {
		return state.Repairs{}, 0, err
	}
	repaired := s.DropNobody(found)
	if err := done(); err != nil {
		return repaired, 0, err
	}
	if err := b.Commit(s); err != nil {
		return repaired, 0, fmt.Errorf("writing the records without the IDs that name nobody: %w", err)
	}
	return repaired, s.Serial, nil
}

// pushGCPercent is the collector's GOGC while a push runs, unless it is
// lower already; pushMemoryLimit its soft memory limit, unless one is set
// (GOMEMLIMIT).
const (
	pushGCPercent   = 50
	pushMemoryLimit = 240 << 20
)

// collectMore lowers GOGC to pushGCPercent, and sets a soft memory limit,
// until the function it returns is called. Why: a push holds the state's
// records (the searches' lists of people, about 45 bytes a person: 130 MB
// at 3 million people) and passes the people through a batch at a time,
// so that nearly all it allocates is garbage at once; at the default 100
// the heap grows to twice the records before a collection (330 MB peak at
// 3 million people), at 50 to one and a half times (250 MB), for about a
// tenth more CPU. The limit makes the collector keep up when the machine
// is busy (the heap overshot to 320 MB at a load average of 9).
func collectMore() (restore func()) {
	old := debug.SetGCPercent(pushGCPercent)
	if old >= 0 && old < pushGCPercent {
		debug.SetGCPercent(old)
	}
	oldLimit := debug.SetMemoryLimit(-1)
	if oldLimit == math.MaxInt64 {
		debug.SetMemoryLimit(pushMemoryLimit)
	}
	return func() {
		debug.SetGCPercent(old)
		debug.SetMemoryLimit(oldLimit)
	}
}
