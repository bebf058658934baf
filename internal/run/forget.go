package run

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/leadsync/leadsync/internal/listfile"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
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
	// Confirm is asked, under the locks and before anything is written,
	// whether to go on: people is what forget will do with each PERSON,
	// workspaces the backend's other workspaces it erases them in too.
	// false stops it with ErrForgetCancelled, nothing written. nil asks
	// nothing (--auto-approve). Not asked when nothing would change.
	Confirm func(people []Forgotten, workspaces []string) (bool, error)
}

// ErrForgetCancelled is the answer to Confirm that was not yes.
var ErrForgetCancelled = errors.New("forget cancelled; nothing was changed")

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
	// Workspaces are the backend's other workspaces, each erased too (an
	// erasure request is not per campaign), in name order; nil when its
	// workspaces share nothing (backend.CrossWorkspace).
	Workspaces []WorkspaceErasure
}

// WorkspaceErasure is what an erasure did in another workspace.
type WorkspaceErasure struct {
	Workspace string
	// Held are the PERSONs (as named) that workspace held: removed there.
	Held []string
	// Entries is how many entries were added to its suppression list (0:
	// it was not written: everyone was suppressed there already).
	Entries int
}

// Forget erases people for good: under the state's lock it opens the
// state (a partial state where the backend reads people on request: only
// the people the PERSONs may name, and what removing them changes, are
// read; see openForget), journals one forget event per PERSON that
// changes something, applies them, commits and drops the backup. When
// every PERSON is already erased it writes nothing (no journal, no
// commit). A backend whose workspaces share one account
// (backend.CrossWorkspace) has every other workspace locked before
// anything is written, and erased the same way: the person is removed
// where they are held and suppressed everywhere. A workspace that cannot
// be locked stops the erasure before anything is written anywhere.
func Forget(d Deps, opts ForgetOptions) (*ForgetResult, error) {
	for _, p := range opts.People {
		if strings.TrimSpace(p) == "" {
			return nil, ErrBlankPerson
		}
	}
	lock, err := lockState(d, "forget")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	siblings, err := lockSiblings(d.Backend)
	defer siblings.release()
	if err != nil {
		return nil, err
	}
	res := &ForgetResult{}
	s, events, err := decideForget(d, opts.People, res)
	if err != nil {
		return nil, err
	}
	res.Entries = len(events)
	if err := confirmForget(opts, res.People, siblings, len(events)); err != nil {
		return nil, err
	}
	if err := siblings.open(); err != nil {
		return nil, err // nothing written
	}
	ours, err := recordErasures(d, res.People)
	if err != nil {
		return nil, err
	}
	if len(events) > 0 {
		if err := journalAndCommit(d.Backend, s, events); err != nil {
			return nil, err
		}
		if opts.DropBackup != nil {
			if err := opts.DropBackup(); err != nil {
				return nil, err
			}
		}
	}
	res.Suppressed = len(s.Suppressed)
	for _, sib := range siblings {
		we, err := forgetIn(d, sib, res.People, opts.People, ours)
		if err != nil {
			return nil, err
		}
		res.Workspaces = append(res.Workspaces, *we)
	}
	if err := siblings.release(); err != nil {
		return nil, err
	}
	return res, lock.release()
}

// decideForget opens the workspace's state (openForget), checks every
// PERSON's form, reads the people they may name and decides what
// forgetting each does (into res.People), reads what the events change,
// and ends the state's reads: the state returned is ready to fold them.
func decideForget(d Deps, people []string, res *ForgetResult) (*state.State, []*state.Event, error) {
	ws, err := openForget(d.Backend)
	if err != nil {
		return nil, nil, err
	}
	defer ws.done()
	for _, p := range people {
		if err := checkPersonForm(ws.base, p); err != nil {
			return nil, nil, err // nothing written
		}
	}
	if err := ws.readNamed(d.Backend, people); err != nil {
		return nil, nil, err
	}
	events := forgetEvents(ws.s, people, d.now().UTC(), res)
	if err := ws.s.ReadForgetting(eventPeople(events)); err != nil {
		return nil, nil, err
	}
	return ws.s, events, ws.done()
}

// eventPeople are the IDs of the people forget_people events remove.
func eventPeople(events []*state.Event) []string {
	var ids []string
	for _, ev := range events {
		ids = append(ids, ev.People.PersonIDs...)
	}
	return ids
}

// confirmForget asks opts.Confirm, when there is one and something would
// change (an event here, or workspaces to erase in).
func confirmForget(opts ForgetOptions, people []Forgotten, sibs siblings, events int) error {
	if opts.Confirm == nil || (events == 0 && len(sibs) == 0) {
		return nil
	}
	var names []string
	for _, sb := range sibs {
		names = append(names, sb.name)
	}
	ok, err := opts.Confirm(people, names)
	if err != nil {
		return err
	}
	if !ok {
		return ErrForgetCancelled
	}
	return nil
}

// forgetEvents decides what forgetting each of people does in s, into
// res.People, and returns the events that do it: one per person, each one
// entry on the suppression list.
func forgetEvents(s *state.State, people []string, now time.Time, res *ForgetResult) []*state.Event {
	var events []*state.Event
	seen := map[string]bool{}
	for _, ident := range people {
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
			events = append(events, &state.Event{At: now, Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: fe})
		}
	}
	return events
}

// recordErasures writes the backend's erasure record of people, before
// anything else is written: whatever happens next, no workspace, made now
// or later, and no state pushed later, brings them back
// (backend.ErasureKeeper). Hashes only. It returns the entries' keys
// (state.EntryKey); nil when the backend keeps no record.
func recordErasures(d Deps, people []Forgotten) (map[string]bool, error) {
	k, ok := backend.ErasuresOf(d.Backend)
	if !ok {
		return nil, nil
	}
	var entries []*state.Suppression
	ours := map[string]bool{}
	for _, f := range people {
		keys := state.IdentifierKeys(f.Ident)
		if f.Person != nil {
			keys = append(keys, state.PersonKeys(f.Person)...)
		}
		entries = append(entries, &state.Suppression{Keys: keys, At: d.now().UTC()})
		ours[state.EntryKey(keys)] = true
	}
	if err := k.RecordErasures(entries); err != nil {
		return nil, fmt.Errorf("recording the erasure for every workspace; nothing was erased: %w", err)
	}
	return ours, nil
}

// journalAndCommit journals events, folds them into s and commits s.
func journalAndCommit(b backend.Backend, s *state.State, events []*state.Event) error {
	rec, err := b.OpenJournal(s)
	if err != nil {
		return err
	}
	for _, ev := range events {
		if err := rec.Append(ev); err != nil {
			rec.Close()
			return err
		}
		if err := s.Fold(*ev); err != nil {
			rec.Close()
			return err
		}
	}
	return b.Commit(s)
}

// NotAPersonError is a PERSON of forget that cannot name anyone: not a
// network ID, a page name (which has no spaces), a profile URL or a
// person.<id> address; a full name, most likely. Matches are the page
// names (or addresses) of the people the state holds by that name.
type NotAPersonError struct {
	Value   string
	Matches []string
}

func (e *NotAPersonError) Error() string {
	msg := fmt.Sprintf("forget: %q names nobody: it is not a network ID, a page name, a profile URL or a person.<id> address; nothing was changed. ", e.Value)
	switch len(e.Matches) {
	case 0:
		msg += "No one in the state has that name. "
	case 1:
		msg += "The state holds one person of that name: leadsync forget " + e.Matches[0] + ". "
	default:
		msg += fmt.Sprintf("The state holds %d people of that name; choose by page name: %s. ", len(e.Matches), strings.Join(e.Matches, ", "))
	}
	return msg + "PERSON is a network ID (digits, a dot, hex digits: 12345678.a1b2c3), a page name (no spaces: Max_Mustermann), " +
		"a profile URL (https://network.example/profile/Max_Mustermann) or an address of leadsync state list (person.<id>)"
}

// checkPersonForm refuses a PERSON that cannot be an identifier, naming
// the people of the state whose name it is (read a page at a time: only
// then).
func checkPersonForm(base *state.Base, ident string) error {
	v := strings.TrimSpace(ident)
	if id, ok := strings.CutPrefix(v, state.PersonAddressPrefix); ok && id != "" && !strings.ContainsFunc(id, unicode.IsSpace) {
		return nil
	}
	if listfile.IsNetworkID(v) {
		return nil
	}
	if _, err := listfile.PageKey(v); err == nil {
		return nil
	}
	matches, err := peopleNamed(base, v)
	if err != nil {
		return err
	}
	return &NotAPersonError{Value: ident, Matches: matches}
}

// peopleNamed are the page names (else the addresses) of the people of
// base whose full name, or first and last name, is name (case and
// spaces aside), sorted.
func peopleNamed(base *state.Base, name string) ([]string, error) {
	norm := func(v string) string { return strings.ToLower(strings.Join(strings.Fields(v), " ")) }
	want := norm(name)
	var out []string
	err := base.EachPerson(func(p *state.Person) error {
		l := p.Lead
		if norm(l.FullName) != want && norm(l.FirstName+" "+l.LastName) != want {
			return nil
		}
		if l.PageName != "" {
			out = append(out, l.PageName)
		} else {
			out = append(out, state.PersonAddressPrefix+p.ID)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
