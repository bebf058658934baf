package run

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime/debug"
	"slices"

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
	// Dropped counts the lead IDs it took out of the searches' lists
	// because they named nobody the state holds.
	Dropped state.MissingLeads
}

// StateRecover takes the state's lock ("state recover"), recovers the
// journal of a backend that has one with the clock of d, and then drops
// the lead IDs that name nobody (dropMissingLeads), committing the lists
// it changed. It reads the state whole only when some are there, and
// makes no call.
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
		res.Dropped = res.Journal.DroppedLeads
	}
	dropped, err := dropMissingLeads(d.Backend)
	if err != nil {
		return nil, err
	}
	res.Dropped.IDs += dropped.IDs
	res.Dropped.Searches += dropped.Searches
	return res, lock.release()
}

// dropMissingLeads drops from the lead lists of b's state the IDs that
// name nobody (State.DropMissingLeads), committing the lists it changed.
// The state is read whole only when its store says a lead list names
// nobody (leadsOfNobody): at 3,000,000 people the whole read took 21 s of
// CPU and 2.40 GB, the question 3.6 s and 84 MB.
func dropMissingLeads(b backend.Backend) (state.MissingLeads, error) {
	if some, err := leadsOfNobody(b); !some || err != nil {
		return state.MissingLeads{}, err
	}
	s, err := b.Load()
	if err != nil {
		return state.MissingLeads{}, err
	}
	dropped, err := s.DropMissingLeads()
	if err != nil || dropped.IDs == 0 {
		return dropped, err
	}
	if err := b.Commit(s); err != nil {
		return dropped, fmt.Errorf("writing the lead lists without the IDs that name nobody: %w", err)
	}
	return dropped, nil
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

// leadListChunk is how many searches' lead lists leadsOfNobody reads at a
// time.
const leadListChunk = 256

// leadsOfNobody reports whether a lead list of b's state names a person
// it does not hold, asking its store (state.Base.Absent) a chunk of lists
// at a time, without reading the people.
func leadsOfNobody(b backend.Backend) (bool, error) {
	base, err := backend.OpenBase(b)
	if err != nil {
		return false, err
	}
	defer base.Close()
	addrs := slices.Sorted(maps.Keys(base.Records.Searches))
	for chunk := range slices.Chunk(addrs, leadListChunk) {
		ids, err := leadIDsOf(base, chunk)
		if err != nil {
			return false, err
		}
		absent, err := base.Absent(ids)
		if err != nil || len(absent) > 0 {
			return len(absent) > 0, err
		}
	}
	return false, nil
}

// leadIDsOf are the lead IDs of the searches at addrs, read from base's
// store where its records were read without them.
func leadIDsOf(base *state.Base, addrs []string) ([]string, error) {
	read, err := base.LeadLists(addrs)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, addr := range addrs {
		if l, ok := read[addr]; ok {
			ids = append(ids, l...)
		} else if v := base.Records.Searches[addr]; v != nil {
			ids = append(ids, v.LeadIDs...)
		}
	}
	return ids, nil
}
