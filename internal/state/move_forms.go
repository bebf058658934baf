package state

import (
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/address"
)

// A block's records live either at the block (search.c, no for_each or
// count) or at its instances (search.c["Berlin"], search.c[0]); a
// configuration declares one form. The same holds for the module calls
// that declare it: module.n.search.c or module.n["de"].search.c. A move
// onto one form while the state holds records at another would keep both,
// and the next plan would forget one of them and run the other again. So
// the addresses of one block (its shape: the address without any key)
// whose keys are written at other steps (its form) count as state at each
// other (MoveConflicts).

// formed is an address that holds records, with its form.
type formed struct{ addr, form string }

// blockForms indexes the addresses that hold records (MovableAddresses),
// those moved away left aside, by their shape.
type blockForms map[string][]formed

// heldForms builds the index of s, without the addresses in leaving.
func (s *State) heldForms(leaving map[string]bool) blockForms {
	out := blockForms{}
	for _, a := range s.MovableAddresses() {
		if leaving[a] {
			continue
		}
		if shape, form, ok := shapeOf(a); ok {
			out[shape] = append(out[shape], formed{a, form})
		}
	}
	return out
}

// otherForm returns the addresses holding records of to's block in
// another form than to's: its instances when to is a block address, the
// block itself when to is an instance, and likewise for the keys of the
// module calls that declare it. Sorted.
func (f blockForms) otherForm(to string) []string {
	shape, form, ok := shapeOf(to)
	if !ok {
		return nil
	}
	var out []string
	for _, x := range f[shape] {
		if x.form != form {
			out = append(out, x.addr)
		}
	}
	slices.Sort(out)
	return out
}

// shapeOf returns addr without any key (its shape: module.n.search.c for
// module.n["de"].search.c["B"]) and which of its steps have a key (its
// form: "11"), one per module call and one for the block; false for what
// is not the address of a block.
func shapeOf(addr string) (shape, form string, ok bool) {
	a, err := address.Parse(addr)
	if err != nil || a.IsModule() {
		return "", "", false
	}
	keys := make([]byte, 0, len(a.Module)+1)
	for i, st := range a.Module {
		keys = append(keys, keyed(st.Key))
		a.Module[i].Key = ""
	}
	keys = append(keys, keyed(a.Key))
	a.Key = ""
	return a.String(), string(keys), true
}

// keyed is '1' for a step with a key, '0' for one without.
func keyed(key string) byte {
	if key == "" {
		return '0'
	}
	return '1'
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
// from to to meets records in another form of to's block.
func OtherFormReason(from, to string) string {
	b, _, _ := shapeOf(to)
	return fmt.Sprintf("moving %s to %s would keep records of %s both without a key and with keys (the instances of a block count as records at the block), and the next plan would forget one of the two", from, to, b)
}
