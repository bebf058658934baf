package address

import "github.com/leadsync/leadsync/internal/kind"

// Index holds addresses for the question Contains answers of each: which
// of them a pattern names. A pattern of a block or of an instance finds
// its candidates by its text without its module calls' keys, so that
// naming one address among many is one look-up, not a pass over every
// address (a plan of 1,000 --target flags over 10,000 instances read each
// instance 1,000 times). A pattern of a module reads every address.
type Index struct {
	all []Address
	// by maps the text of an address without its module calls' keys, and
	// that of its block likewise, to the positions in all of the addresses
	// that have it, in order. A module's address has no entry: only a
	// pattern of a module, which reads them all, names it.
	by map[string][]int
}

// NewIndex indexes as; Named answers with positions in as.
func NewIndex(as []Address) *Index {
	x := &Index{all: as, by: make(map[string][]int, 2*len(as))}
	for i, a := range as {
		if a.Kind == kind.None {
			continue
		}
		k := unkeyed(a).String()
		x.by[k] = append(x.by[k], i)
		if a.Key != "" {
			a.Key = ""
			k = unkeyed(a).String()
			x.by[k] = append(x.by[k], i)
		}
	}
	return x
}

// Named is the positions of the addresses p contains (Contains), in
// order.
func (x *Index) Named(p Address) []int {
	var out []int
	if p.Kind == kind.None {
		for i, a := range x.all {
			if p.Contains(a) {
				out = append(out, i)
			}
		}
		return out
	}
	// p contains only addresses of its module calls' names, its kind and
	// name, and its key when it has one: each has p's text without module
	// keys among its entries (NewIndex).
	for _, i := range x.by[unkeyed(p).String()] {
		if p.Contains(x.all[i]) {
			out = append(out, i)
		}
	}
	return out
}

// unkeyed is a without the keys of its module calls.
func unkeyed(a Address) Address {
	if len(a.Module) == 0 {
		return a
	}
	m := make([]Step, len(a.Module))
	for i, st := range a.Module {
		m[i] = Step{Name: st.Name}
	}
	a.Module = m
	return a
}
