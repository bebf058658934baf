package run

import (
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// ForgetOutcome is what Forget did with one PERSON it was given.
type ForgetOutcome int

const (
	// ForgetRemoved: the person was in the state; they are removed and
	// suppressed.
	ForgetRemoved ForgetOutcome = iota
	// ForgetSuppressed: nobody in the state matches; the identifier is
	// suppressed from now on.
	ForgetSuppressed
	// ForgetAlreadyErased: nobody in the state matches and the identifier
	// is already suppressed; nothing changed.
	ForgetAlreadyErased
	// ForgetSamePerson: an earlier PERSON of the same call named the same
	// person; nothing more to do.
	ForgetSamePerson
)

// Forgotten is one PERSON of a Forget and what became of it.
type Forgotten struct {
	Ident   string
	Outcome ForgetOutcome
	// Person is the person removed (ForgetRemoved only), as the state held
	// them before.
	Person *state.Person
}

// ForgetOptions are the inputs of one forget.
type ForgetOptions struct {
	// People are the identifiers named: network IDs, page names, profile
	// URLs or person.<id> addresses. None may be blank.
	People []string
	// DropBackup removes the copy of the state before the change (the
	// local file's backup, which still holds the people); nil when the
	// backend keeps none. It runs after the commit, under the lock, and
	// its error is returned as it is.
	DropBackup func() error
}

// ForgetResult is what a Forget did.
type ForgetResult struct {
	// People are the PERSONs named, in order.
	People []Forgotten
	// Entries is how many entries this call added to the suppression list
	// (one per PERSON removed or newly suppressed); 0 means the state was
	// not written.
	Entries int
	// Suppressed is the length of the state's suppression list afterwards.
	Suppressed int
}

// Forget erases people for good: under the state's lock it loads the
// state, journals one forget event per PERSON that changes something,
// applies them, commits and drops the backup. When every PERSON is
// already erased it writes nothing (no journal, no commit).
func Forget(d Deps, opts ForgetOptions) (*ForgetResult, error) {
	for _, p := range opts.People {
		if strings.TrimSpace(p) == "" {
			return nil, ErrBlankPerson
		}
	}
	u, err := d.Backend.Lock("forget")
	if err != nil {
		return nil, err
	}
	lock := &heldLock{u: u}
	defer lock.release()
	s, err := d.Backend.Load()
	if err != nil {
		return nil, err
	}

	// One event per PERSON: each is one entry on the suppression list.
	res := &ForgetResult{}
	var events []*state.Event
	seen := map[string]bool{}
	for _, ident := range opts.People {
		fe := &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{}, Keys: state.IdentifierKeys(ident)}
		f := Forgotten{Ident: ident}
		if p := s.FindPerson(ident); p == nil && s.SuppressesAny(fe.Keys) {
			f.Outcome = ForgetAlreadyErased
		} else if p == nil {
			f.Outcome = ForgetSuppressed
		} else if seen[p.ID] {
			f.Outcome = ForgetSamePerson
		} else {
			seen[p.ID] = true
			fe.PersonIDs = append(fe.PersonIDs, p.ID)
			f.Outcome, f.Person = ForgetRemoved, p
		}
		res.People = append(res.People, f)
		if f.Outcome == ForgetRemoved || f.Outcome == ForgetSuppressed {
			events = append(events, &state.Event{At: d.now().UTC(), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: fe})
		}
	}
	res.Entries = len(events)
	if len(events) == 0 {
		// Everyone named is already erased: the state stays as it is.
		res.Suppressed = len(s.Suppressed)
		return res, lock.release()
	}
	rec, err := d.Backend.OpenJournal(s)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		if err := rec.Append(ev); err != nil {
			rec.Close()
			return nil, err
		}
		if err := s.Fold(*ev); err != nil {
			rec.Close()
			return nil, err
		}
	}
	if err := d.Backend.Commit(s); err != nil {
		return nil, err
	}
	if opts.DropBackup != nil {
		if err := opts.DropBackup(); err != nil {
			return nil, err
		}
	}
	res.Suppressed = len(s.Suppressed)
	return res, lock.release()
}
