package state

import (
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/address"
)

// A block's records live either at the block (search.c, no for_each or
// count) or at its instances (search.c["Berlin"], search.c[0]); a
// configuration declares one form. A move onto one form while the state
// holds records at the other would keep both, and the next plan would
// forget one of them and run the other again. So the instances of a block
// count as state at the block, and the block's records as state at each
// of its instances (MoveConflicts).

// blockForms indexes the addresses that hold records (MovableAddresses),
// those moved away left aside, by the address of their block.
type blockForms map[string][]string

// heldForms builds the index of s, without the addresses in leaving.
func (s *State) heldForms(leaving map[string]bool) blockForms {
	out := blockForms{}
	for _, a := range s.MovableAddresses() {
		if leaving[a] {
			continue
		}
		if b, ok := blockOf(a); ok {
			out[b] = append(out[b], a)
		}
	}
	return out
}

// otherForm returns the addresses holding records in the other form of
// to's block: its instances when to is a block address, the block itself
// when to is an instance. Sorted.
func (f blockForms) otherForm(to string) []string {
	b, ok := blockOf(to)
	if !ok {
		return nil
	}
	var out []string
	for _, a := range f[b] {
		if (a == b) != (to == b) {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// blockOf is the address of addr's block (addr without its instance
// key); false for what is not the address of a block.
func blockOf(addr string) (string, bool) {
	a, err := address.Parse(addr)
	if err != nil || a.IsModule() {
		return "", false
	}
	return a.Block().String(), true
}

// RecordsAt returns the addresses whose records a move onto to would
// overwrite or mix with, those that the moves ms take away left aside:
// to itself when it holds records, and the other form of its block (see
// MoveConflicts). Sorted; for the messages of a refused move.
func (s *State) RecordsAt(to string, ms []Move) []string {
	leaving := map[string]bool{}
	for _, m := range ms {
		leaving[m.From] = true
	}
	var out []string
	if !leaving[to] && s.Holds(to) {
		out = append(out, to)
	}
	return append(out, s.heldForms(leaving).otherForm(to)...)
}

// OtherFormReason says, for the message of a refused move, why moving
// from to to meets records in the other form of to's block.
func OtherFormReason(from, to string) string {
	b, _ := blockOf(to)
	return fmt.Sprintf("moving %s to %s would keep records of %s both without a key and with keys (the instances of a block count as records at the block), and the next plan would forget one of the two", from, to, b)
}
