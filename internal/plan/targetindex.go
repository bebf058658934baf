package plan

import "github.com/leadsync/leadsync/internal/address"

// targetIndex holds the addresses --target and --replace name, read once
// per plan: the configuration's search and profile instances and the
// addresses of the state, each indexed (address.Index), so that each flag
// costs a look-up rather than a pass over every instance and every
// address of the state (which read 10,000 addresses of state again, and
// sorted them, for each of 1,000 flags).
type targetIndex struct {
	searches, profiles *address.Index
	// state are the addresses of the state (stateAddresses); byText their
	// positions by text, parsed those that parse, at the positions of
	// statePos.
	state    []stateAddr
	byText   map[string]int
	parsed   *address.Index
	statePos []int
	// names are targetAddresses', made on the first unknown target.
	names []string
}

// index is b's targetIndex, made on first use. b.st and b.cfg do not
// change while b plans.
func (b *builder) index() *targetIndex {
	if b.idx != nil {
		return b.idx
	}
	x := &targetIndex{state: b.stateAddresses()}
	var as []address.Address
	for _, s := range b.cfg.Searches {
		as = append(as, s.Addr)
	}
	x.searches = address.NewIndex(as)
	as = nil
	for _, p := range b.cfg.Profiles {
		as = append(as, p.Addr)
	}
	x.profiles = address.NewIndex(as)
	as = nil
	x.byText = make(map[string]int, len(x.state))
	for i, sa := range x.state {
		x.byText[sa.addr] = i
		if a, err := address.Parse(sa.addr); err == nil {
			as = append(as, a)
			x.statePos = append(x.statePos, i)
		}
	}
	x.parsed = address.NewIndex(as)
	b.idx = x
	return x
}

// stateNamed are the addresses of the state tg names: its own text, and
// when it is an address, those it contains (address.Contains), in address
// order (a text named both ways twice).
func (x *targetIndex) stateNamed(tg target) []string {
	var out []string
	if i, ok := x.byText[tg.text]; ok {
		out = append(out, x.state[i].addr)
	}
	if tg.parsed {
		for _, j := range x.parsed.Named(tg.p) {
			out = append(out, x.state[x.statePos[j]].addr)
		}
	}
	return out
}
