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

// Forget erases people for good: under the state's lock it loads the
// state, journals one forget event per PERSON that changes something,
// applies them, commits and drops the backup. When every PERSON is
// already erased it writes nothing (no journal, no commit). A backend
// whose workspaces share one account (backend.CrossWorkspace) has every
// other workspace locked before anything is written, and erased the same
// way: the person is removed where they are held and suppressed
// everywhere. A workspace that cannot be locked stops the erasure before
// anything is written anywhere.
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
	s, err := d.Backend.Load()
	if err != nil {
		return nil, err
	}
	for _, p := range opts.People {
		if err := checkPersonForm(s, p); err != nil {
			return nil, err // nothing written
		}
	}

	res := &ForgetResult{}
	events := forgetEvents(s, opts.People, d.now().UTC(), res)
	res.Entries = len(events)
	if err := confirmForget(opts, res.People, siblings, len(events)); err != nil {
		return nil, err
	}
	if err := recordErasures(d, res.People); err != nil {
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
		we, err := forgetIn(d, sib, res.People, opts.People)
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
// (backend.ErasureKeeper). Hashes only.
func recordErasures(d Deps, people []Forgotten) error {
	k, ok := backend.ErasuresOf(d.Backend)
	if !ok {
		return nil
	}
	var entries []*state.Suppression
	for _, f := range people {
		keys := state.IdentifierKeys(f.Ident)
		if f.Person != nil {
			keys = append(keys, state.PersonKeys(f.Person)...)
		}
		entries = append(entries, &state.Suppression{Keys: keys, At: d.now().UTC()})
	}
	if err := k.RecordErasures(entries); err != nil {
		return fmt.Errorf("recording the erasure for every workspace; nothing was erased: %w", err)
	}
	return nil
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

// sibling is another workspace of the backend, locked.
type sibling struct {
	name string
	b    backend.Backend
	lock *heldLock
}

type siblings []*sibling

// release unlocks and closes the siblings; the first error is returned.
func (ss siblings) release() error {
	var first error
	for _, sb := range ss {
		if sb.lock != nil {
			if err := sb.lock.release(); err != nil && first == nil {
				first = err
			}
		}
		if err := backend.Close(sb.b); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lockSiblings opens and locks every other workspace of b (none when its
// workspaces share nothing). On an error the ones locked are returned, to
// be released.
func lockSiblings(b backend.Backend) (siblings, error) {
	cw, ok := backend.CrossWorkspaceOf(b)
	if !ok {
		return nil, nil
	}
	names, err := cw.OtherWorkspaces()
	if err != nil {
		return nil, err
	}
	var out siblings
	for _, n := range names {
		sb, err := cw.Sibling(n)
		if err != nil {
			return out, err
		}
		u, err := sb.Lock("forget")
		if err != nil {
			backend.Close(sb)
			return out, fmt.Errorf("workspace %q cannot be locked, and an erasure applies to every workspace of the backend; nothing was erased anywhere: %w", n, err)
		}
		out = append(out, &sibling{name: n, b: sb, lock: &heldLock{u: u}})
	}
	return out, nil
}

// forgetIn erases in another workspace what the erasure of this one did:
// each PERSON (or the person this workspace held under it, by their
// network ID and page name) is removed where held, and suppressed.
func forgetIn(d Deps, sib *sibling, done []Forgotten, idents []string) (*WorkspaceErasure, error) {
	s, err := sib.b.Load()
	if err != nil {
		return nil, err
	}
	we := &WorkspaceErasure{Workspace: sib.name}
	var events []*state.Event
	seen := map[string]bool{}
	// Reading the workspace applied the erasure record, which this
	// erasure wrote first: what it removed there was held there, and is
	// written below.
	h := s.Honoured()
	for i, ident := range idents {
		keys := state.IdentifierKeys(ident)
		names := []string{ident}
		if p := done[i].Person; p != nil {
			keys = append(keys, state.PersonKeys(p)...)
			names = append([]string{p.ID, p.Lead.NetworkID, p.Lead.PageName}, names...)
		}
		var p *state.Person
		for _, n := range names {
			if n == "" {
				continue
			}
			if p = s.FindPerson(n); p != nil {
				break
			}
		}
		fe := &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{}, Keys: keys}
		if p == nil {
			if hp := h.Find(keys); hp != nil {
				if !seen[hp.ID] {
					seen[hp.ID] = true
					we.Held = append(we.Held, ident)
					we.Entries++
				}
				continue
			}
			if h.AddedAny(keys) {
				we.Entries++
				continue
			}
		}
		switch {
		case p != nil && seen[p.ID]:
			continue
		case p != nil:
			seen[p.ID] = true
			fe.PersonIDs = append(fe.PersonIDs, p.ID)
			we.Held = append(we.Held, ident)
		case s.SuppressesAny(keys):
			continue
		}
		events = append(events, &state.Event{At: d.now().UTC(), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: fe})
	}
	we.Entries += len(events)
	if len(events) == 0 && h == nil {
		return we, nil
	}
	if err := journalAndCommit(sib.b, s, events); err != nil {
		return nil, fmt.Errorf("workspace %q: %w", sib.name, err)
	}
	if bk, ok := backend.BackupOf(sib.b); ok {
		if err := bk.RemoveBackup(); err != nil {
			return nil, fmt.Errorf("the person is erased from workspace %q, but its backup %s could not be removed and still holds them: %w", sib.name, bk.BackupPath(), err)
		}
	}
	return we, nil
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
// the people of s whose name it is.
func checkPersonForm(s *state.State, ident string) error {
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
	return &NotAPersonError{Value: ident, Matches: peopleNamed(s, v)}
}

// peopleNamed are the page names (else the addresses) of the people of s
// whose full name, or first and last name, is name (case and spaces
// aside), sorted.
func peopleNamed(s *state.State, name string) []string {
	norm := func(v string) string { return strings.ToLower(strings.Join(strings.Fields(v), " ")) }
	want := norm(name)
	var out []string
	for id, p := range s.People {
		l := p.Lead
		if norm(l.FullName) != want && norm(l.FirstName+" "+l.LastName) != want {
			continue
		}
		if l.PageName != "" {
			out = append(out, l.PageName)
		} else {
			out = append(out, state.PersonAddressPrefix+id)
		}
	}
	sort.Strings(out)
	return out
}
