package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Move is a moved block: the records state holds at From belong to To
// from now on. From and To are addresses from the root (a moved block in
// a module is read relative to it): a block (search.cto, every instance
// keeping its key), one instance (search.cto["Berlin"]; a block without
// for_each or count is its own single instance when the other end has a
// key), or a module call or instance (module.dach, everything inside
// it).
type Move struct {
	From, To string
	// Kind is the kind of the blocks whose records move (one that
	// kind.Kind.Moves); kind.None for a module.
	Kind kind.Kind
	// Exact is set when From and To name single instances (one of them
	// has an instance key): only the address From itself moves.
	Exact     bool
	DeclRange hcl.Range

	from, to address.Address
}

var movedSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from", Required: true}, {Name: "to", Required: true},
}}

// decodeMoved reads the moved blocks of l's module.
func (l *loader) decodeMoved(blocks hcl.Blocks) {
	for _, b := range blocks {
		content, ds := b.Body.Content(movedSchema)
		if !l.add(ds) {
			continue
		}
		from, okFrom := l.moveEndpoint(content.Attributes["from"])
		to, okTo := l.moveEndpoint(content.Attributes["to"])
		if !okFrom || !okTo {
			continue
		}
		m, summary, err := newMove(from, to)
		if err != nil {
			l.errorf(b.DefRange.Ptr(), summary, "%s.", capitalize(err.Error()))
			continue
		}
		m.DeclRange = b.DefRange
		l.cfg.Moves = append(l.cfg.Moves, m)
	}
}

// newMove makes the move of from to to, or says why there is none (the
// summary of the diagnostic, and the error: a clause, which a diagnostic
// makes a sentence and state mv puts after "cannot move A to B: ").
func newMove(from, to address.Address) (*Move, string, error) {
	switch {
	case from.IsModule() != to.IsModule() || from.Kind != to.Kind:
		return nil, "Invalid moved addresses", fmt.Errorf("from is %s and to is %s: %s", endpointKind(from), endpointKind(to), sameKindRule())
	case from.String() == to.String():
		return nil, "Redundant moved block", fmt.Errorf("this moves %s to the same address, which moves nothing; remove it", from)
	}
	m := &Move{From: from.String(), To: to.String(), Kind: from.Kind, from: from, to: to}
	if from.IsModule() {
		m.Exact = from.Module[len(from.Module)-1].Key != "" || to.Module[len(to.Module)-1].Key != ""
	} else {
		m.Exact = from.Key != "" || to.Key != ""
	}
	return m, "", nil
}

// sameKindRule says what moves to what: every kind that moves to its own
// kind, and a module to a module.
func sameKindRule() string {
	var rules []string
	for i, k := range kind.Moving() {
		if i == 0 {
			rules = append(rules, textWithArticle(k)+" moves to "+textWithArticle(k))
		} else {
			rules = append(rules, textWithArticle(k)+" to "+textWithArticle(k))
		}
	}
	return strings.Join(append(rules, "a module to a module"), ", ")
}

// endpointKind names what a moved address is, for messages.
func endpointKind(a address.Address) string {
	if a.IsModule() {
		return "a module"
	}
	return textWithArticle(a.Kind)
}

// moveEndpoint reads from or to of a moved block: an address relative to
// the module of the block, written as a reference (no quotes).
func (l *loader) moveEndpoint(a *hcl.Attribute) (address.Address, bool) {
	rng := a.Expr.Range().Ptr()
	t, ds := hcl.AbsTraversalForExpr(a.Expr)
	if ds.HasErrors() {
		hint := ""
		if v, vds := a.Expr.Value(nil); !vds.HasErrors() && v.Type() == cty.String {
			hint = " Write it without quotes."
		}
		l.errorf(rng, "Invalid moved address", "%s is an address written as a reference, like search.cto, search.cto[\"Berlin\"], enrich.contacts or module.dach.search.cto.%s", a.Name, hint)
		return address.Address{}, false
	}
	var b strings.Builder
	for i, step := range t {
		switch s := step.(type) {
		case hcl.TraverseRoot:
			b.WriteString(s.Name)
		case hcl.TraverseAttr:
			b.WriteByte('.')
			b.WriteString(s.Name)
		case hcl.TraverseIndex:
			k := s.Key
			switch {
			case k.Type() == cty.String && k.IsKnown() && !k.IsNull():
				b.WriteString(address.StringKey(k.AsString()))
			case k.Type() == cty.Number && k.IsKnown() && !k.IsNull() && k.AsBigFloat().IsInt() && k.AsBigFloat().Sign() >= 0:
				n, _ := k.AsBigFloat().Int64()
				b.WriteString(address.IndexKey(int(n)))
			default:
				l.errorf(rng, "Invalid moved address", "The key at step %d of %s is neither a string nor a whole number.", i+1, a.Name)
				return address.Address{}, false
			}
		default:
			l.errorf(rng, "Invalid moved address", "%s is an address, like search.cto or module.dach.search.cto[\"Berlin\"].", a.Name)
			return address.Address{}, false
		}
	}
	addr, err := address.Parse(address.Join(l.modulePath(), b.String()))
	if err != nil {
		l.errorf(rng, "Invalid moved address", "%s is not an address: a moved block names a search, profile, import, enrich or track block, one instance of a search or profile, or a module, like search.cto, search.cto[\"Berlin\"], enrich.contacts or module.dach.", a.Name)
		return address.Address{}, false
	}
	if !addr.IsModule() && !addr.Kind.Moves() {
		l.errorf(rng, "Invalid moved address", "A moved block moves the records of %s blocks (or of a whole module); %s blocks have none in state.", kindList(kind.Moving()), addr.Kind)
		return address.Address{}, false
	}
	if !addr.IsModule() && !addr.Kind.HasInstances() && addr.Key != "" {
		l.errorf(rng, "Invalid moved address", "%s block has no instances; write %s.", capitalize(textfmt.WithArticle(string(addr.Kind))), addr.Block())
		return address.Address{}, false
	}
	return addr, true
}

// NewMove is a move made by hand (leadsync state mv FROM TO): the same
// forms and rules as a moved block's addresses, checked the same way.
func NewMove(from, to string) (*Move, error) {
	f, err := address.Parse(from)
	if err != nil {
		return nil, err
	}
	t, err := address.Parse(to)
	if err != nil {
		return nil, err
	}
	for _, a := range []address.Address{f, t} {
		switch {
		case !a.IsModule() && !a.Kind.Moves():
			return nil, fmt.Errorf("%s: only the records of %s blocks (or of a whole module) move; %s blocks have none in state", a, kindList(kind.Moving()), a.Kind)
		case !a.IsModule() && !a.Kind.HasInstances() && a.Key != "":
			return nil, fmt.Errorf("%s: %s block has no instances; write %s", a, textfmt.WithArticle(string(a.Kind)), a.Block())
		}
	}
	m, _, err := newMove(f, t)
	return m, err
}

// Destination is where addr (an instance address state holds: a search,
// a profile, an enrich block) goes by m, and whether m moves it at all.
func (m *Move) Destination(addr string) (string, bool) {
	if m.Exact && !m.from.IsModule() {
		if addr == m.From {
			return m.To, true
		}
		return "", false
	}
	a, err := address.Parse(addr)
	if err != nil || a.IsModule() {
		return "", false
	}
	if m.from.IsModule() {
		n := len(m.from.Module)
		if len(a.Module) < n {
			return "", false
		}
		for i := 0; i < n-1; i++ {
			if a.Module[i] != m.from.Module[i] {
				return "", false
			}
		}
		last, want := a.Module[n-1], m.from.Module[n-1]
		if last.Name != want.Name || (m.Exact && last.Key != want.Key) {
			return "", false
		}
		moved := a
		moved.Module = append(append([]address.Step(nil), m.to.Module...), a.Module[n:]...)
		if !m.Exact {
			moved.Module[len(m.to.Module)-1].Key = last.Key
		}
		return moved.String(), true
	}
	if a.Kind != m.from.Kind || a.Name != m.from.Name || len(a.Module) != len(m.from.Module) {
		return "", false
	}
	for i := range a.Module {
		if a.Module[i] != m.from.Module[i] {
			return "", false
		}
	}
	moved := m.to
	moved.Key = a.Key
	return moved.String(), true
}

// MoveSet finds where addresses go by a list of moves, in turn (a chain:
// search.a to search.b, then search.b to search.c). An exact move (one
// instance) is tried before one of a whole block, and that before one of a
// module.
type MoveSet struct {
	exact   map[string]*Move // by From
	blocks  map[string]*Move // by From, a block address
	modules []*Move
	n       int
}

// NewMoveSet indexes moves (checked by Load, or made by NewMove).
func NewMoveSet(moves []*Move) *MoveSet {
	ms := &MoveSet{exact: map[string]*Move{}, blocks: map[string]*Move{}, n: len(moves)}
	for _, m := range moves {
		switch {
		case m.from.IsModule():
			ms.modules = append(ms.modules, m)
		case m.Exact:
			if ms.exact[m.From] == nil {
				ms.exact[m.From] = m
			}
		default:
			if ms.blocks[m.From] == nil {
				ms.blocks[m.From] = m
			}
		}
	}
	return ms
}

// Follow is where addr (an instance address state holds: a search, a
// profile, an enrich block) ends up after every move that applies to it,
// the first of those moves, and whether any did.
func (ms *MoveSet) Follow(addr string) (string, *Move, bool) {
	var first *Move
	for step := 0; step <= ms.n; step++ {
		next, m := ms.next(addr)
		if m == nil {
			break
		}
		if first == nil {
			first = m
		}
		addr = next
	}
	return addr, first, first != nil
}

func (ms *MoveSet) next(addr string) (string, *Move) {
	if m := ms.exact[addr]; m != nil {
		return m.To, m
	}
	if len(ms.blocks) > 0 {
		if block := address.Block(addr); ms.blocks[block] != nil && strings.HasPrefix(addr, block) {
			m := ms.blocks[block]
			return m.To + addr[len(block):], m
		}
	}
	for _, m := range ms.modules {
		if to, ok := m.Destination(addr); ok {
			return to, m
		}
	}
	return "", nil
}

// checkMoves checks the moved blocks against the configuration and each
// other: what a move comes from must no longer be declared; each address
// moves to one place and each place receives from one address; chains of
// moves end somewhere (no cycle). A move to an address the configuration
// does not declare draws a warning: the plan would forget what it moves.
func (l *loader) checkMoves() {
	moves := l.cfg.Moves
	if len(moves) == 0 {
		return
	}
	declared, instances := l.declaredAddresses(), l.instanceAddresses()
	fromSeen := map[string]*Move{}
	toSeen := map[string]*Move{}
	bad := false
	for _, m := range moves {
		if at, still := stillDeclared(m, declared, instances); still {
			bad = true
			l.errorf(m.DeclRange.Ptr(), "Moved object still exists",
				"This moved block moves %s to %s, but %s is still declared (%s). Change the configuration so that it is declared as %s instead, or remove the moved block.",
				m.From, m.To, m.From, at, m.To)
		}
		if prev := fromSeen[m.From]; prev != nil && prev.To != m.To {
			bad = true
			l.errorf(m.DeclRange.Ptr(), "Ambiguous moved blocks",
				"The moved block at %s moves %s to %s, and this one moves it to %s. Each address moves to one place; remove one of them.",
				shortRange(prev.DeclRange), m.From, prev.To, m.To)
		} else {
			fromSeen[m.From] = m
		}
		if prev := toSeen[m.To]; prev != nil && prev.From != m.From {
			bad = true
			l.errorf(m.DeclRange.Ptr(), "Ambiguous moved blocks",
				"The moved block at %s moves %s to %s, and this one moves %s there too. Each place receives the records of one address; remove one of them.",
				shortRange(prev.DeclRange), prev.From, m.To, m.From)
		} else {
			toSeen[m.To] = m
		}
	}
	if bad {
		return
	}
	reported := map[*Move]bool{}
	for _, m := range moves {
		if reported[m] {
			continue
		}
		if chain := moveCycle(fromSeen, m); chain != nil {
			var steps []string
			for _, c := range chain {
				reported[c] = true
				steps = append(steps, fmt.Sprintf("%s -> %s (%s)", c.From, c.To, shortRange(c.DeclRange)))
			}
			l.errorf(m.DeclRange.Ptr(), "Moved blocks in a cycle",
				"These moved blocks lead back to where they start, so their records would have no final place: %s. A chain of moves ends at an address no moved block moves further.",
				strings.Join(steps, "; "))
		}
	}
	for _, m := range moves {
		if reported[m] || fromSeen[m.To] != nil {
			continue
		}
		if !l.declaredEndpoint(m.to, declared) {
			l.warnf(m.DeclRange.Ptr(), "Move to an address the configuration does not declare",
				"This moved block moves %s to %s, which the configuration does not declare, so the plan would forget what it moves. Declare %s, or correct to.", m.From, m.To, m.To)
		}
	}
}

// moveCycle returns the moves of the cycle that starts at m, nil when the
// moves that follow m end somewhere. byFrom indexes the moves by From.
func moveCycle(byFrom map[string]*Move, m *Move) []*Move {
	chain := []*Move{m}
	at := m.To
	for range byFrom {
		next := byFrom[at]
		if next == nil {
			if b := byFrom[address.Block(at)]; b != nil && !b.Exact && !b.from.IsModule() {
				next = b
			}
		}
		if next == nil {
			return nil
		}
		if next == m {
			return chain
		}
		chain = append(chain, next)
		at = next.To
	}
	return nil
}

// declaredAddresses are the addresses the configuration declares, with
// the range of each: instances and blocks of the kinds that move (search,
// profile, import, enrich, track), module instances and calls.
func (l *loader) declaredAddresses() map[string]hcl.Range {
	out := map[string]hcl.Range{}
	for _, k := range kind.Moving() {
		for _, d := range l.cfg.Declared(k) {
			out[d.Address], out[d.Block] = d.Range, d.Range
		}
	}
	for _, m := range l.cfg.Modules {
		out[m.Address], out[m.Call] = m.DeclRange, m.DeclRange
	}
	return out
}

// stillDeclared reports whether the configuration still declares what m
// moves away, and where: for an exact move, the instance itself (a block
// given for_each no longer declares its keyless instance); else the block
// or the module call. instances are the addresses of the instances (and
// enrich blocks, module instances).
func stillDeclared(m *Move, declared map[string]hcl.Range, instances map[string]bool) (string, bool) {
	r, ok := declared[m.From]
	if !ok || (m.Exact && !instances[m.From]) {
		return "", false
	}
	return shortRange(r), true
}

// instanceAddresses are the addresses of the instances of the kinds that
// move (search and profile instances, import, enrich and track blocks)
// and of module instances.
func (l *loader) instanceAddresses() map[string]bool {
	out := make(map[string]bool, len(l.cfg.Searches)+len(l.cfg.Profiles)+len(l.cfg.Enriches)+len(l.cfg.Modules))
	for _, k := range kind.Moving() {
		for _, a := range l.cfg.Addresses(k) {
			out[a] = true
		}
	}
	for _, m := range l.cfg.Modules {
		out[m.Address] = true
	}
	return out
}

// declaredEndpoint reports whether the configuration declares the place a
// move goes to.
func (l *loader) declaredEndpoint(to address.Address, declared map[string]hcl.Range) bool {
	if _, ok := declared[to.String()]; ok {
		return true
	}
	if to.IsModule() {
		return false
	}
	// A block of instances with keys, named without one: declared when any
	// of its instances is.
	_, ok := declared[to.Block().String()]
	return ok && to.Key == ""
}

// textWithArticle is "a search", "an enrich block", "a track block": the
// kind's noun (kind.Row.Noun) with its article.
func textWithArticle(k kind.Kind) string {
	return textfmt.WithArticle(k.Row().Noun)
}

// kindList names kinds in a sentence: "search, profile and import".
func kindList(kinds []kind.Kind) string {
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
