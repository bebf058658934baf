package plan

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// Moves resolves the configuration's moved blocks against the state: for
// every address whose records state holds and a moved block moves (in a
// chain, to its end), one move from where the records are to where they
// go, in address order. Two records moving to one place, or a move onto an
// address that holds records already, is an error: nothing moves then.
// Apply records the moves first (state.EventMove), and the plan is made
// on the state as it will be then (state.Moved).
func Moves(cfg *config.Config, st *state.State) ([]state.Move, hcl.Diagnostics) {
	if len(cfg.Moves) == 0 || st == nil {
		return nil, nil
	}
	set := config.NewMoveSet(cfg.Moves)
	var moves []state.Move
	by := map[string]*config.Move{} // the first moved block of each move, by From
	into := map[string]string{}     // To -> From
	var diags hcl.Diagnostics
	for _, addr := range st.MovableAddresses() {
		to, first, ok := set.Follow(addr)
		if !ok || to == addr {
			continue
		}
		if prev, dup := into[to]; dup {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError, Summary: "Two records would move to one address",
				Detail: fmt.Sprintf("The moved blocks move both %s and %s to %s, and the state holds records at both. One address holds one record: remove one of them first (leadsync state rm %s), or move it elsewhere.",
					prev, addr, to, addr),
				Subject: first.DeclRange.Ptr(),
			})
			continue
		}
		into[to] = addr
		by[addr] = first
		moves = append(moves, state.Move{From: addr, To: to})
	}
	for _, m := range st.MoveConflicts(moves) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError, Summary: "Cannot move onto an address with state",
			Detail:  moveConflictDetail(m, st.RecordsAt(m.To, moves)),
			Subject: by[m.From].DeclRange.Ptr(),
		})
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return moves, nil
}

// moveConflictDetail words a move refused because the state holds
// records at held: at its destination, or in the other form of the
// destination's block (its instances, or the block without a key).
func moveConflictDetail(m state.Move, held []string) string {
	if len(held) == 0 || (len(held) == 1 && held[0] == m.To) {
		return fmt.Sprintf("This moved block moves %s to %s, but the state already holds records at %s. Moving there would mix two records. Remove the records at %s first (leadsync state rm %s), or correct the moved block.",
			m.From, m.To, m.To, m.To, m.To)
	}
	return fmt.Sprintf("This moved block moves %s to %s, but the state already holds records at %s: %s. Remove the records at %s first (leadsync state rm %s), or correct the moved block.",
		m.From, m.To, strings.Join(held, ", "), state.OtherFormReason(m.From, m.To), strings.Join(held, ", "), strings.Join(held, " "))
}

// moved adds a moved change for each move, first in the plan: apply
// records them before anything else, with no call.
func (b *builder) moved(moves []state.Move) {
	for _, m := range moves {
		b.add(&Change{
			Address: m.To, Kind: kindOf(m.To), Action: Moved, Reason: ReasonMoved, MovedFrom: m.From,
			Detail: fmt.Sprintf("from %s; no call", m.From),
		})
	}
}

// dropUpToDateMoved removes the "up to date" changes of addresses that
// moved: the moved change says all there is about them.
func (b *builder) dropUpToDateMoved() {
	moved := map[string]bool{}
	for _, c := range b.p.Changes {
		if c.Action == Moved {
			moved[c.Address] = true
		}
	}
	if len(moved) == 0 {
		return
	}
	out := b.p.Changes[:0]
	for _, c := range b.p.Changes {
		if c.Action == None && moved[c.Address] {
			continue
		}
		out = append(out, c)
	}
	b.p.Changes = out
}

// kindOf is the kind of the block an address a move goes to names; a
// search for an address of no kind of block (none: config checks moves).
func kindOf(addr string) kind.Kind {
	if k := address.Kind(addr); k.IsBlock() {
		return k
	}
	return kind.Search
}
