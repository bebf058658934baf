package run

import (
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// InvalidMoveError says that FROM and TO of a state mv cannot be a move:
// not addresses, of different kinds, or the same.
type InvalidMoveError struct {
	From, To string
	Err      error
}

func (e *InvalidMoveError) Error() string {
	return fmt.Sprintf("cannot move %s to %s: %v", e.From, e.To, e.Err)
}

func (e *InvalidMoveError) Unwrap() error { return e.Err }

// MoveConflictError says that a move would land on an address where the
// state holds records already (at the address, or in the other form of
// its block: see state.MoveConflicts): nothing was moved.
type MoveConflictError struct {
	Moves []state.Move
	// Held are the addresses whose records the first move would meet
	// (state.RecordsAt).
	Held []string
}

func (e *MoveConflictError) Error() string {
	m := e.Moves[0]
	if len(e.Held) == 0 || (len(e.Held) == 1 && e.Held[0] == m.To) {
		var dst []string
		for _, m := range e.Moves {
			dst = append(dst, m.To)
		}
		return fmt.Sprintf("the state already holds records at %s, so nothing was moved: moving %s there would mix two records. Remove them first (leadsync state rm %s), or choose another address",
			strings.Join(dst, ", "), m.From, m.To)
	}
	return fmt.Sprintf("the state already holds records at %s, so nothing was moved: %s. Remove them first (leadsync state rm %s), or choose another address",
		strings.Join(e.Held, ", "), state.OtherFormReason(m.From, m.To), strings.Join(e.Held, " "))
}

// StateMv moves the records of from to to without a call, as a moved
// block does when a plan with it is applied: a search, profile or enrich
// block (every instance of a block keeping its key), one instance, or
// everything inside a module (module.dach). Under the state's lock it
// opens the state (a partial state where it can: the records, and only
// the people whose records name a moved address), checks the move (an
// address that holds nothing is an *UnknownAddressError, a destination
// that holds records a *MoveConflictError; nothing is written then),
// journals one move event, folds it and commits. It returns the moves
// made, one per address.
func StateMv(d Deps, from, to string) ([]state.Move, error) {
	m, err := config.NewMove(from, to)
	if err != nil {
		return nil, &InvalidMoveError{From: from, To: to, Err: err}
	}
	lock, s, done, err := lockWritable(d, "state mv")
	if err != nil {
		return nil, err
	}
	defer lock.release()
	defer done()
	set := config.NewMoveSet([]*config.Move{m})
	var moves []state.Move
	for _, addr := range s.MovableAddresses() {
		if dst, _, ok := set.Follow(addr); ok {
			moves = append(moves, state.Move{From: addr, To: dst})
		}
	}
	if len(moves) == 0 {
		return nil, UnknownAddress(s, from, ", so nothing was moved")
	}
	if bad := s.MoveConflicts(moves); len(bad) > 0 {
		return nil, &MoveConflictError{Moves: bad, Held: s.RecordsAt(bad[0].To, moves)}
	}
	froms := make([]string, len(moves))
	for i, m := range moves {
		froms[i] = m.From
	}
	if err := s.ReadMoving(froms); err != nil {
		return nil, err
	}
	if err := done(); err != nil {
		return nil, err
	}
	ev := &state.Event{At: d.now().UTC(), Kind: state.EventMove, Address: state.MovesAddress, Move: &state.MoveEvent{Moves: moves}}
	if err := journalAndCommit(d.Backend, s, []*state.Event{ev}); err != nil {
		return nil, err
	}
	return moves, lock.release()
}
