package config

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyconvert "github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// MaxWork bounds the work that evaluating a configuration may do, in
// steps: every element a for expression or a splat visits, every element
// a function receives or builds, every element an operator compares, and
// every 64 bytes of text a function or a template builds count one. A
// for_each over 10,000 names takes some 30,000, the examples fewer than 100; the
// bound refuses, within seconds, what would take minutes or gigabytes
// (three for expressions over range(1024) nested in each other: a billion
// steps), so that a hostile pull request cannot hang CI. It counts what
// the configuration as a whole evaluates, modules and instances included.
const MaxWork = 1_000_000

// maxWork is the bound in force: MaxWork, lowered by a test that scales
// its inputs down with it (work_test.go).
var maxWork int64 = MaxWork

// workDone, set by tests only, is given each configuration's work once
// it is loaded: what it used, and what was charged after it was spent.
var workDone func(used, late int64)

// meterFunc is the name of the function that counts what a for
// expression, a splat, an operator or a template is about to go through
// (see meter). Its name is no identifier a configuration can write.
const meterFunc = "__work"

// spentFunc is the function that evaluates a function's argument unless
// the work is spent: cty walks every argument before the function can
// refuse, which must not happen once the work is spent.
const spentFunc = "__spent"

// errTooMuchWork is what a function returns once the work is spent.
var errTooMuchWork = errors.New("the evaluation is too costly")

// work counts the steps spent evaluating one configuration, against
// MaxWork. Once Load is done it is off: a where expression is evaluated
// for each person later (it was evaluated once while loading, for a
// person whose fields are unknown, and counted then).
type work struct {
	used int64
	off  bool
	// sites are the places metered, indexed by the meter calls' argument:
	// where the bound was reached is named even when try or can hid it.
	sites []hcl.Range
	// spentAt is the site the work ran out at (-1 until then, or when it
	// ran out inside a function outside any metered site).
	spentAt  int
	spent    bool
	reported bool
	// late counts the charges made once the work was spent: each is a
	// function reached, or an expression evaluated, after the bound.
	late int64
	// funcs is the loader's function map, orig its functions before they
	// were metered, undo what puts the metered expressions back.
	funcs, orig map[string]function.Function
	undo        []func()
	// stack are the sites of the metered expressions being evaluated.
	stack []cty.Value
}

func newWork() *work { return &work{spentAt: -1} }

// charge adds n steps; false once the work is spent.
func (w *work) charge(n int64) bool {
	if w == nil || w.off {
		return true
	}
	if w.spent {
		w.late++
	}
	w.used += n
	if w.used > maxWork {
		w.spent = true
	}
	return !w.spent
}

// size is what holding or building v costs: one step, plus one per
// element of a collection and per 64 bytes of a string, all the way down
// (a list that holds one long text many times costs its every copy).
func size(v cty.Value) int64 {
	if !v.IsKnown() || v.IsNull() {
		return 1
	}
	v, _ = v.Unmark()
	ty := v.Type()
	switch {
	case ty == cty.String:
		return 1 + int64(len(v.AsString()))/64
	case ty.IsObjectType() || ty.IsCollectionType() || ty.IsTupleType():
		n := int64(1)
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			n += size(e)
		}
		return n
	}
	return 1
}

// preCost is what a function is about to build, for the functions whose
// result may be much larger than their arguments: it is counted before
// they run. 0 when nothing is known or the arguments are not all known.
func preCost(name string, args []cty.Value) int64 {
	for _, a := range args {
		if !a.IsWhollyKnown() || a.IsNull() {
			return 0
		}
	}
	text := func(i int) string { v, _ := args[i].Unmark(); return v.AsString() }
	number := func(i int) int64 { v, _ := args[i].Unmark(); n, _ := v.AsBigFloat().Int64(); return n }
	switch {
	case name == "replace" && len(args) == 3 && args[0].Type() == cty.String && args[1].Type() == cty.String && args[2].Type() == cty.String:
		matches := int64(strings.Count(text(0), text(1)))
		if sub := text(1); len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			matches = int64(len(text(0))) + 1 // a pattern may match anywhere
		}
		return matches * int64(len(text(2))) / 64
	case name == "indent" && len(args) == 2 && args[0].Type() == cty.Number && args[1].Type() == cty.String:
		return max(number(0), 0) * int64(strings.Count(text(1), "\n")+1) / 64
	case (name == "format" || name == "formatlist") && len(args) > 0 && args[0].Type() == cty.String:
		return widest(text(0)) / 64 * int64(max(1, len(args)-1))
	}
	return 0
}

// widest is the largest width or precision a format string asks for.
func widest(f string) int64 {
	var widest, n int64
	for i := 0; i < len(f); i++ {
		if c := f[i]; c >= '0' && c <= '9' {
			n = min(n*10+int64(c-'0'), 1<<40)
			widest = max(widest, n)
		} else {
			n = 0
		}
	}
	return widest
}

// metered wraps every function of fns, in place, so that what it
// receives and what it returns is counted, and adds the meter functions;
// finish puts them back.
func (w *work) metered(fns map[string]function.Function) map[string]function.Function {
	w.funcs, w.orig = fns, make(map[string]function.Function, len(fns))
	for name, fn := range fns {
		w.orig[name] = fn
		if name == "try" || name == "can" {
			continue // they take expressions, each metered itself
		}
		fns[name] = w.meteredFunc(name, fn)
	}
	fns[meterFunc] = w.meterFunction()
	fns[spentFunc] = w.spentFunction()
	return fns
}

// finish ends the count once the configuration is loaded: the functions
// and expressions are the plain ones again, so that a where evaluated for
// each of 600,000 people pays nothing for it.
func (w *work) finish() {
	w.off = true
	if workDone != nil {
		workDone(w.used, w.late)
	}
	for name, fn := range w.orig {
		w.funcs[name] = fn
	}
	delete(w.funcs, meterFunc)
	delete(w.funcs, spentFunc)
	for i := len(w.undo) - 1; i >= 0; i-- {
		w.undo[i]()
	}
	w.undo = nil
}

// meteredFunc is fn counting what it receives before it converts it (a
// list of 20,000 texts made into a list once took seconds: cty unifies a
// tuple's element types pair by pair) and what it returns. Its parameters
// take any value; it converts them to fn's types itself, with the errors
// HCL gives.
func (w *work) meteredFunc(name string, fn function.Function) function.Function {
	params, vp := fn.Params(), fn.VarParam()
	typed := func(i int) cty.Type {
		if i < len(params) {
			return params[i].Type
		}
		return vp.Type
	}
	anyParams := make([]function.Parameter, len(params))
	for i, p := range params {
		p.Type = cty.DynamicPseudoType
		anyParams[i] = p
	}
	var anyVP *function.Parameter
	if vp != nil {
		p := *vp
		p.Type = cty.DynamicPseudoType
		anyVP = &p
	}
	convert := func(args []cty.Value) ([]cty.Value, error) {
		out := make([]cty.Value, len(args))
		for i, a := range args {
			v, err := convertArg(a, typed(i))
			if err != nil {
				return nil, function.NewArgError(i, err)
			}
			out[i] = v
		}
		return out, nil
	}
	return function.New(&function.Spec{
		Description: fn.Description(),
		Params:      anyParams,
		VarParam:    anyVP,
		Type: func(args []cty.Value) (cty.Type, error) {
			n := int64(1)
			for i, a := range args {
				n += argCost(a, typed(i))
			}
			if !w.charge(n) {
				return cty.NilType, errTooMuchWork
			}
			conv, err := convert(args)
			if err != nil {
				return cty.NilType, err
			}
			return fn.ReturnTypeForValues(conv)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			conv, err := convert(args)
			if err != nil {
				return cty.NilVal, err
			}
			if !w.charge(preCost(name, conv)) {
				return cty.NilVal, errTooMuchWork
			}
			v, err := fn.Call(conv)
			if err == nil && !w.charge(size(v)) {
				return cty.NilVal, errTooMuchWork
			}
			return v, err
		},
	})
}

// argCost is what receiving a as a parameter of type ty costs: its size,
// and for a tuple that cty must unify into a collection, its size
// squared (by a hundred), which is what that takes.
func argCost(a cty.Value, ty cty.Type) int64 {
	n := size(a)
	if a.IsKnown() && !a.IsNull() && a.Type().IsTupleType() && ty != cty.DynamicPseudoType {
		if _, ok := uniformTuple(a); !ok {
			n += n * n / 100
		}
	}
	return n
}

// convertArg converts a to ty as HCL does before a call, quickly for a
// tuple of known values of one primitive type made into a list or set.
func convertArg(a cty.Value, ty cty.Type) (cty.Value, error) {
	if ty == cty.DynamicPseudoType {
		return a, nil
	}
	if et, ok := uniformTuple(a); ok && (ty.IsListType() || ty.IsSetType()) &&
		(ty.ElementType() == et || ty.ElementType() == cty.DynamicPseudoType) {
		if ty.IsSetType() {
			return cty.SetVal(a.AsValueSlice()), nil
		}
		return cty.ListVal(a.AsValueSlice()), nil
	}
	return ctyconvert.Convert(a, ty)
}

// uniformTuple returns the element type of a known, non-empty tuple of
// non-null, unmarked values of one primitive type.
func uniformTuple(v cty.Value) (cty.Type, bool) {
	ty := v.Type()
	if !ty.IsTupleType() || v.IsNull() || !v.IsWhollyKnown() || v.ContainsMarked() {
		return cty.NilType, false
	}
	elems := ty.TupleElementTypes()
	if len(elems) == 0 || !elems[0].IsPrimitiveType() {
		return cty.NilType, false
	}
	for _, et := range elems[1:] {
		if !et.Equals(elems[0]) {
			return cty.NilType, false
		}
	}
	for it := v.ElementIterator(); it.Next(); {
		if _, ev := it.Element(); ev.IsNull() {
			return cty.NilType, false
		}
	}
	return elems[0], true
}

// meterFunction is __work(expression, site): it evaluates the expression
// and counts its value's size, unless the work is spent. It takes the
// expression itself, not its value, so that nothing is evaluated once the
// work is spent (cty walks every value passed to a function).
func (w *work) meterFunction() function.Function {
	return closureFunction(func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, err := w.evaluate(args)
		if err != nil {
			return cty.NilVal, err
		}
		u, _ := v.Unmark()
		if !w.charge(size(u)) {
			w.spend(args[1])
			return cty.NilVal, errTooMuchWork
		}
		return v, nil
	})
}

// spentFunction is __spent(expression): the expression's value, unless
// the work is spent.
func (w *work) spentFunction() function.Function {
	return closureFunction(func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return w.evaluate(args)
	})
}

// closureFunction is a function of the meter's calls: it takes an
// expression itself, not its value, and its site, and returns what impl
// makes of them.
func closureFunction(impl function.ImplFunc) function.Function {
	return function.New(&function.Spec{
		Params: []function.Parameter{
			{Name: "expression", Type: customdecode.ExpressionClosureType},
			{Name: "site", Type: cty.Number},
		},
		Type: function.StaticReturnType(cty.DynamicPseudoType),
		Impl: impl,
	})
}

// evaluate evaluates the expression of a meter function's call (args:
// the expression and its site), unless the work is spent; what the
// functions called meanwhile spend is charged at that site.
func (w *work) evaluate(args []cty.Value) (cty.Value, error) {
	if w.spent && !w.off {
		return cty.NilVal, errTooMuchWork
	}
	w.stack = append(w.stack, args[1])
	v, ds := customdecode.ExpressionClosureFromVal(args[0]).Value()
	w.stack = w.stack[:len(w.stack)-1]
	if w.spent && !w.off {
		w.spend(args[1])
	}
	if ds.HasErrors() {
		return cty.NilVal, evalError(ds)
	}
	return v, nil
}

// spend notes site (a meter call's site argument) as the place the work
// ran out, if none is noted yet: the innermost metered expression.
func (w *work) spend(site cty.Value) {
	if w.spentAt < 0 {
		i, _ := site.AsBigFloat().Int64()
		w.spentAt = int(i)
	}
}

// evalError carries the diagnostics of an expression the meter evaluated
// through the function call, which can only fail with an error; add
// gives them back as they were (unwrap).
type evalError hcl.Diagnostics

func (e evalError) Error() string { return hcl.Diagnostics(e).Error() }

// unwrap replaces the diagnostics of the meter's calls that carry the
// diagnostics of the expression they evaluated by those.
func unwrap(ds hcl.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for i, d := range ds {
		var inner evalError
		if extra, ok := d.Extra.(hclsyntax.FunctionCallDiagExtra); ok && errors.As(extra.FunctionCallError(), &inner) {
			if out == nil {
				out = append(hcl.Diagnostics{}, ds[:i]...)
			}
			out = append(out, unwrap(hcl.Diagnostics(inner))...)
			continue
		}
		if out != nil {
			out = append(out, d)
		}
	}
	if out == nil {
		return ds
	}
	return out
}

// meter makes the expressions of f count their work: the collection of
// every for expression, the source of every splat, the operands of every
// binary operator and the parts of every template go through the meter
// function first. Function calls are counted by the functions themselves
// (metered). The expressions keep their ranges and their variables.
func (w *work) meter(f *hcl.File) {
	body, ok := f.Body.(*hclsyntax.Body)
	if !ok {
		return
	}
	var nodes []hclsyntax.Node
	collect := func(n hclsyntax.Node) hcl.Diagnostics {
		nodes = append(nodes, n)
		return nil
	}
	var visit func(b *hclsyntax.Body)
	visit = func(b *hclsyntax.Body) {
		for name, a := range b.Attributes {
			if name != "type" { // a type constraint is read, never evaluated
				_ = hclsyntax.VisitAll(a.Expr, collect)
			}
		}
		for _, blk := range b.Blocks {
			visit(blk.Body)
		}
	}
	visit(body)
	for _, n := range nodes {
		switch e := n.(type) {
		case *hclsyntax.ForExpr:
			w.replace(&e.CollExpr)
		case *hclsyntax.SplatExpr:
			w.replace(&e.Source)
		case *hclsyntax.BinaryOpExpr:
			w.replace(&e.LHS)
			w.replace(&e.RHS)
		case *hclsyntax.FunctionCallExpr:
			// Once the work is spent, no argument reaches a function:
			// cty walks every argument before the function can refuse.
			for i := range e.Args {
				w.guard(&e.Args[i])
			}
		case *hclsyntax.TemplateExpr:
			for i, p := range e.Parts {
				if _, lit := p.(*hclsyntax.LiteralValueExpr); !lit {
					w.replace(&e.Parts[i])
				}
			}
		}
	}
}

// replace puts the metered form of *p in its place, until finish.
func (w *work) replace(p *hclsyntax.Expression) {
	orig := *p
	*p = w.wrap(orig)
	w.undo = append(w.undo, func() { *p = orig })
}

// site is the argument naming rng in a meter function's call.
func (w *work) site(rng hcl.Range) hclsyntax.Expression {
	w.sites = append(w.sites, rng)
	return &hclsyntax.LiteralValueExpr{Val: cty.NumberIntVal(int64(len(w.sites) - 1)), SrcRange: rng}
}

// guard puts __spent(*p, site) in the place of *p, until finish.
func (w *work) guard(p *hclsyntax.Expression) {
	orig := *p
	rng := orig.Range()
	*p = w.call(spentFunc, orig, w.site(rng))
	w.undo = append(w.undo, func() { *p = orig })
}

// wrap is e going through the meter: __work(e, site).
func (w *work) wrap(e hclsyntax.Expression) hclsyntax.Expression {
	rng := e.Range()
	site := w.site(rng)
	return w.call(meterFunc, e, site)
}

// call is a call of the meter function name on e and its site, with e's
// ranges: a message about the argument points where it did.
func (w *work) call(name string, e, site hclsyntax.Expression) *hclsyntax.FunctionCallExpr {
	start := e.StartRange()
	return &hclsyntax.FunctionCallExpr{Name: name, Args: []hclsyntax.Expression{e, site},
		NameRange: start, OpenParenRange: start, CloseParenRange: e.Range()}
}

// workDiagnostics replaces the diagnostics of a spent work by one, at the
// place it ran out (or the first place a spent function was called), and
// adds it when try or can hid it.
// It also reports whether ds held any of the work's own diagnostics.
func (w *work) workDiagnostics(ds hcl.Diagnostics) (hcl.Diagnostics, bool) {
	ds = unwrap(ds)
	if !w.spent {
		return ds, false
	}
	out := ds[:0]
	var first *hcl.Range
	for _, d := range ds {
		if isWorkDiag(d) {
			if first == nil {
				first = d.Subject
			}
			continue
		}
		out = append(out, d)
	}
	hadWork := first != nil || len(out) < len(ds)
	if w.reported {
		return out, hadWork
	}
	if w.spentAt >= 0 {
		r := w.sites[w.spentAt]
		first = &r
	}
	if first == nil {
		return out, hadWork
	}
	w.reported = true
	return append(out, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Expression too costly to evaluate",
		Detail:   workDetail(),
		Subject:  first,
	}), true
}

func isWorkDiag(d *hcl.Diagnostic) bool {
	extra, ok := d.Extra.(hclsyntax.FunctionCallDiagExtra)
	if ok && errors.Is(extra.FunctionCallError(), errTooMuchWork) {
		return true
	}
	return strings.Contains(d.Detail, errTooMuchWork.Error())
}

func workDetail() string {
	return fmt.Sprintf("Evaluating the configuration took more than %s steps here (each element a for expression visits or a function receives or builds is one); leadsync stops there so that checking a configuration takes seconds. Build smaller collections: a for expression inside a for expression over range(n) costs n times n.",
		textfmt.Thousands(MaxWork))
}
