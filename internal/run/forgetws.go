package run

import (
	"errors"
	"fmt"
	"sync"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// forgetState is a workspace's state as forget changes it: a partial
// state (state.Base.Writable) when the backend reads people on request,
// which reads the people the PERSONs may name (ReadNamed) and what
// removing them changes (ReadForgetting) before done ends its reads;
// else the state read whole. A PERSON whose page name has too many
// letter-case variants to ask for (state.ErrTooManyCases) has the state
// read whole instead.
type forgetState struct {
	s    *state.State
	base *state.Base
	done func() error
}

// openForget opens b's state for forget (forgetState): read whole (Load)
// when b does not read people on request (backend.ReadsInPart).
func openForget(b backend.Backend) (*forgetState, error) {
	if !backend.ReadsInPart(b) {
		s, err := b.Load()
		if err != nil {
			return nil, err
		}
		return &forgetState{s: s, base: state.NewBase(s), done: func() error { return nil }}, nil
	}
	base, err := backend.OpenBase(b)
	if err != nil {
		return nil, err
	}
	s, err := base.Writable()
	if err != nil {
		base.Close()
		return nil, err
	}
	return &forgetState{s: s, base: base, done: sync.OnceValue(base.Close)}, nil
}

// readNamed reads the people FindPerson may find by names
// (state.ReadNamedByID), or has the state read whole (b's Load) when it
// cannot ask for them.
func (ws *forgetState) readNamed(b backend.Backend, names []string) error {
	err := ws.s.ReadNamedByID(names)
	if !errors.Is(err, state.ErrTooManyCases) {
		return err
	}
	if err := ws.done(); err != nil {
		return err
	}
	s, err := b.Load()
	if err != nil {
		return err
	}
	ws.s, ws.base = s, state.NewBase(s)
	return nil
}

// sibling is another workspace of the backend, locked, and its state
// when it is read in part (open).
type sibling struct {
	name string
	b    backend.Backend
	lock *heldLock
	st   *forgetState
}

type siblings []*sibling

// open opens the state of every sibling that reads people on request,
// before the erasure is recorded: a state opened after it would not
// honour it yet, and be read whole (backend.OpenBase). One read whole
// anyway is let go, and loaded after the record as before.
func (ss siblings) open() error {
	for _, sb := range ss {
		if !backend.ReadsInPart(sb.b) {
			continue
		}
		st, err := openForget(sb.b)
		if err != nil {
			return fmt.Errorf("workspace %q: %w", sb.name, err)
		}
		if !st.s.Partial() {
			if err := st.done(); err != nil {
				return fmt.Errorf("workspace %q: %w", sb.name, err)
			}
			continue
		}
		sb.st = st
	}
	return nil
}

// release ends the siblings' reads, unlocks and closes them; the first
// error is returned.
func (ss siblings) release() error {
	var first error
	for _, sb := range ss {
		if sb.st != nil {
			if err := sb.st.done(); err != nil && first == nil {
				first = err
			}
		}
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
// network ID and page name) is removed where held, and suppressed. ours
// are the keys (state.EntryKey) of the erasure record's entries this
// erasure wrote.
func forgetIn(d Deps, sib *sibling, done []Forgotten, idents []string, ours map[string]bool) (*WorkspaceErasure, error) {
	s, err := siblingState(sib, siblingNames(done, idents), ours)
	if err != nil {
		return nil, err
	}
	we, events := siblingEvents(d, s, sib.name, done, idents)
	if len(events) == 0 && s.Honoured() == nil {
		return we, nil
	}
	if sib.st != nil {
		if err := s.ReadForgetting(eventPeople(events)); err != nil {
			return nil, fmt.Errorf("workspace %q: %w", sib.name, err)
		}
		if err := sib.st.done(); err != nil {
			return nil, fmt.Errorf("workspace %q: %w", sib.name, err)
		}
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

// siblingNames are what a sibling's people are found by: each PERSON,
// and the network ID, ID and page name of the person it removed here.
func siblingNames(done []Forgotten, idents []string) []string {
	var names []string
	for i, ident := range idents {
		if p := done[i].Person; p != nil {
			names = append(names, p.ID, p.Lead.NetworkID, p.Lead.PageName)
		}
		names = append(names, ident)
	}
	return names
}

// siblingState is the sibling's state with the erasure record honoured,
// as its Load gives it: read in part (sib.st) when it was opened so, the
// people names may name read before the record is honoured, else read
// whole now. A partial state whose record holds an entry it does not
// honour besides ours, or whose names cannot be asked for, is let go and
// read whole.
func siblingState(sib *sibling, names []string, ours map[string]bool) (*state.State, error) {
	if sib.st != nil {
		s, ok, err := honourInPart(sib, names, ours)
		if err != nil {
			return nil, fmt.Errorf("workspace %q: %w", sib.name, err)
		}
		if ok {
			return s, nil
		}
		if err := sib.st.done(); err != nil {
			return nil, fmt.Errorf("workspace %q: %w", sib.name, err)
		}
		sib.st = nil
	}
	return sib.b.Load()
}

// honourInPart reads into the sibling's partial state the people names
// may name, and honours the erasure record (state.HonourErasures, as a
// Load does; its folds read what they change). ok is false, nothing
// changed, when the state cannot be had so (see siblingState).
func honourInPart(sib *sibling, names []string, ours map[string]bool) (*state.State, bool, error) {
	s := sib.st.s
	if err := s.ReadNamed(names); errors.Is(err, state.ErrTooManyCases) {
		return nil, false, nil
	} else if err != nil {
		return nil, false, err
	}
	k, ok := backend.ErasuresOf(sib.b)
	if !ok {
		return s, true, nil
	}
	entries, err := k.Erasures()
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		if e != nil && !ours[state.EntryKey(e.Keys)] && s.Unhonoured([]*state.Suppression{e}) {
			return nil, false, nil
		}
	}
	if _, err := s.HonourErasures(entries); err != nil {
		return nil, false, err
	}
	return s, true, nil
}

// siblingEvents decides what the erasure does in the sibling's state s
// (the erasure record honoured: what that removed was held there, and is
// written with the events).
func siblingEvents(d Deps, s *state.State, name string, done []Forgotten, idents []string) (*WorkspaceErasure, []*state.Event) {
	we := &WorkspaceErasure{Workspace: name}
	var events []*state.Event
	seen := map[string]bool{}
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
	return we, events
}
