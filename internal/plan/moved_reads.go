package plan

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// A plan with moved blocks over a state read in part. Moves asks about
// every address the people's records name: MovesOf asks the store
// instead (state.Base.Addressed: its counts, Names). ReadsOf and
// EnrichReadsOf then say what the plan reads of the state as the moves
// leave it, under the addresses the store holds it at now (Moving.back),
// and Build makes the moves given (Options.Moved) over the people read.

// Moving are the moves of a configuration's moved blocks, resolved
// against a store (MovesOf).
type Moving struct {
	Moves []state.Move
	// names: a move renames an address that a person's record other
	// than found_by names (state.MovesNames). The store's counts of
	// enrichments are kept by such addresses: EnrichReadsOf asks them
	// as moved (movedStore).
	names bool
	// to maps each move's source to its destination, from the reverse.
	to, from map[string]string
}

// MovesOf resolves the moved blocks of cfg against the records of b and
// the store's counts of the addresses its people name, reading no person.
// Nil when cfg has none, or when Moves refuses them (Build over every
// person reports why).
func MovesOf(cfg *config.Config, b *state.Base) (*Moving, error) {
	if len(cfg.Moves) == 0 {
		return nil, nil
	}
	st, err := b.Addressed()
	if err != nil {
		return nil, err
	}
	moves, diags := Moves(cfg, st)
	if diags.HasErrors() {
		return nil, nil
	}
	m := &Moving{Moves: moves, names: st.MovesNames(moves), to: map[string]string{}, from: map[string]string{}}
	for _, mv := range moves {
		m.to[mv.From], m.from[mv.To] = mv.To, mv.From
	}
	return m, nil
}

// movesOf are the moves Build makes: those given (Options.Moved), else
// Moves over st.
func movesOf(cfg *config.Config, st *state.State, opts Options) ([]state.Move, hcl.Diagnostics) {
	if opts.Moved != nil {
		return opts.Moved.Moves, nil
	}
	return Moves(cfg, st)
}

// records is records as the moves leave them (no person is read).
func (m *Moving) records(records *state.State) *state.State {
	if m == nil || len(m.Moves) == 0 || records == nil {
		return records
	}
	return records.Moved(m.Moves)
}

// back is r with the addresses it reads under their addresses before the
// moves: where the store holds them.
func (m *Moving) back(r Reads) Reads {
	if m == nil || len(m.Moves) == 0 {
		return r
	}
	for _, list := range [][]string{r.Searches, r.Sources, r.Tracks, r.Enriched, r.EnrichedFrom} {
		for i, addr := range list {
			if src := m.from[addr]; src != "" {
				list[i] = src
			}
		}
	}
	return r
}

// people moves the people read from the store while Build runs, as the
// state given to Build is moved: their found_by (a move that renames
// anything else of a person's is not planned so: names).
func (m *Moving) people(ps map[string]*state.Person) map[string]*state.Person {
	if m == nil || len(m.Moves) == 0 {
		return ps
	}
	return state.MovePeople(ps, m.to)
}

// people reads the people of ids whole from the store, moved as the
// state the plan is built on (Options.Moved).
func (f *EnrichFacts) people(ids []string) (map[string]*state.Person, error) {
	ps, err := f.store.People(ids)
	if err != nil {
		return nil, err
	}
	return f.moved.people(ps), nil
}

// movedEnrichReads is EnrichReadsOf of a plan that makes the moves given
// (Options.Moved): what the plan of the state as the moves leave it reads,
// under the addresses the store holds it at now. When a move renames an
// address the store counts people's enrichments, tracks or history under
// (Moving.names), the store is asked as moved (movedStore). The facts
// move the people they read while Build runs, in plan and in apply.
func movedEnrichReads(cfg *config.Config, records *state.State, opts Options, ix EnrichStore) (Reads, *EnrichFacts, bool, error) {
	ix, ok := opts.Moved.storeOf(ix)
	if !ok {
		return Reads{}, nil, false, nil
	}
	r, f, ok, err := enrichReadsOf(cfg, opts.Moved.records(records), opts, ix)
	if err != nil || !ok {
		return r, f, ok, err
	}
	f.movedBy(opts.Moved)
	return opts.Moved.back(r), f, true, nil
}

// movedBy tells f the moves Build makes over the state read; nil keeps
// those f was made with (an apply builds its plan without Options.Moved
// over the state read before the moves are folded in).
func (f *EnrichFacts) movedBy(m *Moving) {
	if f != nil && m != nil {
		f.moved = m
	}
}
