package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// A move that renames an address the people's records name beyond
// found_by (an enrich block, a track, a block a change's by names:
// Moving.names) leaves the store's counts and indexes under the old
// address until apply renames the rows (sqlstate.RenameStmts). The plan
// of the state as moved asks them through movedStore: each question
// about an address is asked under the address the store holds it at,
// and each answer that names addresses is given under the new ones.
// Nothing is renamed in the store.

// movedStore is a store's Base answering as the moves of m leave it.
// Its other questions (values, IDs, pages) name no address and go to
// the Base as they are.
type movedStore struct {
	*state.Base
	m *Moving
}

// storeOf is ix answering as the moves leave it, when a move renames
// what the people's records name; ok is false for a store that is no
// state.Base (the plan then reads every person).
func (m *Moving) storeOf(ix EnrichStore) (EnrichStore, bool) {
	if !m.names {
		return ix, true
	}
	b, ok := ix.(*state.Base)
	if !ok {
		return nil, false
	}
	return &movedStore{Base: b, m: m}, true
}

// baseOf is the state.Base under ix, nil when it has none.
func baseOf(ix any) *state.Base {
	switch s := ix.(type) {
	case *state.Base:
		return s
	case *movedStore:
		return s.Base
	}
	return nil
}

// held is the address the store holds what the moves put at addr:
// ok is false when a move takes everything of addr away.
func (s *movedStore) held(addr string) (string, bool) {
	if src := s.m.from[addr]; src != "" {
		return src, true
	}
	return addr, s.m.to[addr] == ""
}

// Sketched are the people of addr's enrichments as the store holds them,
// not moved: they join the state read, which Build moves (Fill).
func (s *movedStore) Sketched(addr string, before time.Time) ([]*state.Person, error) {
	src, ok := s.held(addr)
	if !ok {
		return nil, nil
	}
	return s.Base.Sketched(src, before)
}

// CountEnrichedBefore counts addr's enrichments where the store holds them.
func (s *movedStore) CountEnrichedBefore(addr string, before time.Time) (int, error) {
	src, ok := s.held(addr)
	if !ok {
		return 0, nil
	}
	return s.Base.CountEnrichedBefore(src, before)
}

// CopiedBy are the people of the copies addr made, where the store holds them.
func (s *movedStore) CopiedBy(addr string) ([]string, error) {
	src, ok := s.held(addr)
	if !ok {
		return nil, nil
	}
	return s.Base.CopiedBy(src)
}

// EnrichedIDsBefore: Sketched's IDs, where the store holds them.
func (s *movedStore) EnrichedIDsBefore(addr string, before time.Time) ([]string, error) {
	src, ok := s.held(addr)
	if !ok {
		return nil, nil
	}
	return s.Base.EnrichedIDsBefore(src, before)
}

// Enriched are the people of addr's enrichments and copies, where the
// store holds them.
func (s *movedStore) Enriched(addr string) ([]string, error) {
	src, ok := s.held(addr)
	if !ok {
		return nil, nil
	}
	return s.Base.Enriched(src)
}

// Enrichers are the blocks the enrichments were made by, moved, each once.
func (s *movedStore) Enrichers() ([]string, error) {
	by, err := s.Base.Enrichers()
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(by))
	out := by[:0]
	for _, a := range by {
		if dst := s.m.to[a]; dst != "" {
			a = dst
		}
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out, nil
}

// SketchedAmong are the people of ids holding an enrichment, moved: the
// places walk asks while Build runs, over the state as moved.
func (s *movedStore) SketchedAmong(ids []string) ([]*state.Person, error) {
	ps, err := s.Base.SketchedAmong(ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*state.Person, len(ps))
	for _, p := range ps {
		byID[p.ID] = p
	}
	state.MovePeople(byID, s.m.to)
	for i, p := range ps {
		ps[i] = byID[p.ID]
	}
	return ps, nil
}
