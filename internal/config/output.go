package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/kind"
)

var outputSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "value"}, {Name: "description"},
}}

// outputRefs are what an output's value may list: the module's searches,
// profiles, imports, enrich and track blocks (and the outputs of its own module
// calls that give them).
var outputRefs = refList{attr: "value", kinds: []kind.Kind{kind.Search, kind.Profile, kind.Import, kind.Enrich, kind.Track}}

// decodeOutputs reads the output blocks of l's module: each exposes some
// of the module's blocks to the caller, which refers to them as
// module.NAME.OUTPUT (from = [module.dach.ctos]). The root's outputs are
// checked the same way; nothing calls the root: they are Config.Outputs,
// which leadsync output shows.
func (l *loader) decodeOutputs(blocks hcl.Blocks) {
	for _, b := range blocks {
		if !l.uniqueName(b) {
			continue
		}
		content, meant := l.content(b, outputSchema, "An output block")
		desc := ""
		if a := content.Attributes["description"]; a != nil {
			desc, _ = l.literalString(a)
		}
		a := content.Attributes["value"]
		if a == nil {
			if !meant["value"] {
				l.errorf(b.DefRange.Ptr(), "Missing value", "An output needs value, the blocks of the module it gives to the caller, like value = [search.cto].")
			}
			continue
		}
		if refs, ok := l.outputValue(a); ok {
			l.outputs = append(l.outputs, output{b.Labels[0], refs})
			if l.prefix == "" {
				// The root's: nothing calls it; leadsync output shows them.
				addrs := make([]string, len(refs))
				for i, r := range refs {
					addrs[i] = r.addr
				}
				l.cfg.Outputs = append(l.cfg.Outputs, &Output{Name: b.Labels[0], Description: desc, Addresses: addrs, DeclRange: b.DefRange})
			}
		}
	}
}

// output is what one output of a module instance gives: addresses from
// the root, with their kinds.
type output struct {
	name  string
	addrs []declRef
}

// output returns the addresses the output name gives, nil when there is
// none (a module has a few outputs: a list is cheaper than a map).
func (l *loader) output(name string) []declRef {
	for _, o := range l.outputs {
		if o.name == name {
			return o.addrs
		}
	}
	return nil
}

// outputValue resolves an output's value in l's module instance. A value
// that lists only whole blocks (search.cto, enrich.contacts) names the
// same blocks in every instance of the module: it is read once, in the
// first instance, and the others put their own module path before it.
// A value with instance keys or outputs of nested modules depends on the
// instance, and is read in each.
func (l *loader) outputValue(a *hcl.Attribute) ([]declRef, bool) {
	if rel, static := l.staticOutputs[a]; static {
		out := make([]declRef, len(rel))
		for i, r := range rel {
			out[i] = declRef{l.prefix + r.addr, r.kind}
		}
		return out, true
	}
	at, ok := l.refsAt(a, outputRefs)
	refs := make([]declRef, len(at))
	for i, r := range at {
		refs[i] = r.declRef
	}
	if ok && wholeBlocks(a.Expr) {
		rel := make([]declRef, len(refs))
		for i, r := range refs {
			rel[i] = declRef{r.addr[len(l.prefix):], r.kind}
		}
		l.staticOutputs[a] = rel
	}
	return refs, ok
}

// wholeBlocks reports whether expr is a reference to a block, or a list
// of such references, each a kind and a name only (search.cto).
func wholeBlocks(expr hcl.Expression) bool {
	exprs, ds := hcl.ExprList(expr)
	if ds.HasErrors() {
		exprs = []hcl.Expression{expr}
	}
	for _, e := range exprs {
		t, ds := hcl.AbsTraversalForExpr(e)
		if ds.HasErrors() || len(t) != 2 || t.RootName() == "module" {
			return false
		}
	}
	return true
}
