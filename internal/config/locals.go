package config

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

type local struct {
	name  string
	attr  *hcl.Attribute
	deps  []string
	value cty.Value
	done  bool
}

func (l *loader) declareLocals(blocks hcl.Blocks) {
	for _, b := range blocks {
		attrs, ds := b.Body.JustAttributes()
		l.add(ds)
		for _, a := range sortedAttrs(attrs) {
			if prev := l.locals[a.Name]; prev != nil {
				l.errorf(a.NameRange.Ptr(), "Duplicate local value", "local.%s is already defined at %s; each local value is defined once.", a.Name, shortRange(prev.attr.Range))
				continue
			}
			lo := &local{name: a.Name, attr: a, value: cty.DynamicVal}
			for _, t := range a.Expr.Variables() {
				if t.RootName() != "local" || len(t) < 2 {
					continue
				}
				if ta, ok := t[1].(hcl.TraverseAttr); ok {
					lo.deps = append(lo.deps, ta.Name)
				}
			}
			if l.locals == nil {
				l.locals = map[string]*local{}
			}
			l.locals[a.Name] = lo
			l.localOrder = append(l.localOrder, a.Name)
		}
	}
}

// sortedAttrs returns attributes in source order.
func sortedAttrs(attrs hcl.Attributes) []*hcl.Attribute {
	out := make([]*hcl.Attribute, 0, len(attrs))
	for _, a := range attrs {
		out = append(out, a)
	}
	sortAttrs(out)
	return out
}

func sortAttrs(out []*hcl.Attribute) {
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && rangeLess(out[j].Range, out[j-1].Range); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
}

func rangeLess(a, b hcl.Range) bool {
	if a.Filename != b.Filename {
		return a.Filename < b.Filename
	}
	return a.Start.Byte < b.Start.Byte
}

// evalLocals evaluates locals in dependency order; a cycle is reported once,
// naming every local in it.
func (l *loader) evalLocals() {
	const (
		white = iota
		grey
		black
	)
	color := map[string]int{}
	var stack []string
	var visit func(name string)
	visit = func(name string) {
		lo := l.locals[name]
		if lo == nil || color[name] == black {
			return
		}
		if color[name] == grey {
			i := len(stack) - 1
			for i >= 0 && stack[i] != name {
				i--
			}
			cycle := append(append([]string{}, stack[i:]...), name)
			for j := range cycle {
				cycle[j] = "local." + cycle[j]
			}
			l.errorf(lo.attr.NameRange.Ptr(), "Cycle in local values",
				"These local values refer to each other in a circle: %s. Break the cycle by computing one of them without the others.", strings.Join(cycle, " -> "))
			for _, n := range stack[i:] {
				l.locals[n].done = true // leave them unknown
			}
			return
		}
		color[name] = grey
		stack = append(stack, name)
		for _, d := range lo.deps {
			visit(d)
		}
		stack = stack[:len(stack)-1]
		color[name] = black
		if lo.done {
			return
		}
		lo.done = true
		ds := l.checkRefs(lo.attr.Expr, scope{})
		if !l.add(ds) {
			return
		}
		ctx := l.evalContext(nil)
		v, ds := lo.attr.Expr.Value(ctx)
		if l.add(ds) {
			lo.value = v
		}
	}
	for _, name := range l.localOrder {
		visit(name)
	}
}
