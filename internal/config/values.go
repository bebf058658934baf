package config

import (
	"fmt"
	"math/big"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// attrState says what an attribute evaluation gave.
type attrState int

const (
	absent attrState = iota // not written, or null
	bad                     // an error was reported, or the value is unknown
	ok                      // a usable value
)

func (s attrState) String() string {
	switch s {
	case absent:
		return "absent"
	case bad:
		return "bad"
	}
	return "ok"
}

// value evaluates an attribute in ctx after checking its references.
// Marks are removed; sensitive reports whether the value was sensitive.
func (l *loader) value(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope) (v cty.Value, sensitive bool, astate attrState) {
	return l.valueElems(a, ctx, sc, nil)
}

// valueElems is value that also appends to elems, when the value is a
// known set, its elements in ElementIterator's order (sorted): the walk
// that checks the value meets them, and a set sorts its elements each
// time they are walked.
func (l *loader) valueElems(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope, elems *[]cty.Value) (v cty.Value, sensitive bool, astate attrState) {
	if a == nil {
		return cty.NilVal, false, absent
	}
	if !l.add(l.checkedRefs(a.Expr, sc)) {
		return cty.DynamicVal, false, bad
	}
	v, ds := a.Expr.Value(ctx)
	if !l.add(ds) {
		return cty.DynamicVal, false, bad
	}
	// One walk over the value and everything in it says both whether it
	// is sensitive (ContainsMarked; no value is until one is marked,
	// l.marked) and whether it is wholly known (IsWhollyKnown): each walk
	// of a set sorts its elements, which for a for_each of 10,000 keys
	// costs more than the rest of the load.
	known := true
	set := elems != nil && v.Type().IsSetType()
	for path, dv := range cty.DeepValues(v) {
		sensitive = sensitive || (l.marked && dv.IsMarked())
		known = known && dv.IsKnown()
		if set && len(path) == 1 {
			*elems = append(*elems, dv)
		}
	}
	if sensitive {
		v, _ = v.UnmarkDeep() // unmarked, UnmarkDeep would give v back
	}
	if !known {
		return v, sensitive, bad // depends on something invalid, already reported
	}
	if v.IsNull() {
		return v, sensitive, absent
	}
	return v, sensitive, ok
}

func (l *loader) typeError(a *hcl.Attribute, want string, got cty.Value) {
	l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "%s must be %s; got %s.", a.Name, want, typeName(got.Type()))
}

// stringAttr evaluates a string attribute. strict refuses numbers and bools
// (search filters, whose type the service checks).
func (l *loader) stringAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope, strict bool) (string, bool, attrState) {
	v, sens, astate := l.value(a, ctx, sc)
	if astate != ok {
		return "", sens, astate
	}
	if v.Type() != cty.String {
		if strict || !v.Type().IsPrimitiveType() {
			l.typeError(a, "a string", v)
			return "", sens, bad
		}
		v, _ = convert.Convert(v, cty.String)
	}
	return v.AsString(), sens, ok
}

func (l *loader) boolAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope) (bool, attrState) {
	v, _, astate := l.value(a, ctx, sc)
	if astate != ok {
		return false, astate
	}
	c, err := convert.Convert(v, cty.Bool)
	if err != nil {
		l.typeError(a, "true or false", v)
		return false, bad
	}
	return c.True(), ok
}

// numberAttr evaluates a number attribute that must be > 0 (or >= 0 when
// zeroOK).
func (l *loader) numberAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope, zeroOK bool) (float64, attrState) {
	v, _, astate := l.value(a, ctx, sc)
	if astate != ok {
		return 0, astate
	}
	c, err := convert.Convert(v, cty.Number)
	if err != nil {
		l.typeError(a, "a number", v)
		return 0, bad
	}
	f, _ := c.AsBigFloat().Float64()
	if f < 0 || (f == 0 && !zeroOK) {
		what := "positive"
		if zeroOK {
			what = "zero or more"
		}
		l.errorf(a.Expr.Range().Ptr(), "Invalid "+a.Name, "%s must be %s; got %s.", a.Name, what, c.AsBigFloat().Text('g', -1))
		return 0, bad
	}
	return f, ok
}

// intAttr evaluates a whole number attribute in [lo, hi] (hi < 0: no upper bound).
func (l *loader) intAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope, lo, hi int64) (int, attrState) {
	v, _, astate := l.value(a, ctx, sc)
	if astate != ok {
		return 0, astate
	}
	c, err := convert.Convert(v, cty.Number)
	if err != nil {
		l.typeError(a, "a whole number", v)
		return 0, bad
	}
	bf := c.AsBigFloat()
	if !bf.IsInt() {
		l.errorf(a.Expr.Range().Ptr(), "Invalid "+a.Name, "%s must be a whole number; got %s.", a.Name, bf.Text('g', -1))
		return 0, bad
	}
	n, acc := bf.Int64()
	if acc != big.Exact || n < lo || (hi >= 0 && n > hi) {
		rangeText := fmt.Sprintf("at least %d", lo)
		if hi >= 0 {
			rangeText = fmt.Sprintf("from %d to %d", lo, hi)
		}
		l.errorf(a.Expr.Range().Ptr(), "Invalid "+a.Name, "%s must be %s; got %s.", a.Name, rangeText, bf.Text('g', -1))
		return 0, bad
	}
	return int(n), ok
}

// durationAttr evaluates a positive duration written as a string ("7d").
func (l *loader) durationAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope) (time.Duration, attrState) {
	s, _, astate := l.stringAttr(a, ctx, sc, true)
	if astate != ok {
		return 0, astate
	}
	d, err := ParseDuration(s)
	if err != nil {
		l.errorf(a.Expr.Range().Ptr(), "Invalid duration", "%s: %s.", a.Name, err)
		return 0, bad
	}
	if d <= 0 {
		l.errorf(a.Expr.Range().Ptr(), "Invalid duration", "%s must be longer than zero; remove it instead.", a.Name)
		return 0, bad
	}
	return d, ok
}

// stringListAttr evaluates a list (or set, or tuple) of strings. Each item
// comes with the range of its source expression when the list is written
// out literally, for pointing at one wrong item.
func (l *loader) stringListAttr(a *hcl.Attribute, ctx *hcl.EvalContext, sc scope, example string) ([]string, []hcl.Range, bool, attrState) {
	v, sens, astate := l.value(a, ctx, sc)
	if astate != ok {
		return nil, nil, sens, astate
	}
	ty := v.Type()
	if !(ty.IsListType() || ty.IsSetType() || ty.IsTupleType()) {
		l.errorf(a.Expr.Range().Ptr(), "Incorrect value type", "%s takes a list of strings, like %s; got %s.", a.Name, example, typeName(ty))
		return nil, nil, sens, bad
	}
	items := itemRanges(a.Expr, v.LengthInt(), ty.IsSetType())
	var out []string
	var rngs []hcl.Range
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		if e.IsNull() || e.Type() != cty.String {
			l.errorf(items[i].Ptr(), "Incorrect value type", "%s takes a list of strings, like %s; item %d is %s.", a.Name, example, i+1, typeDesc(e))
			return nil, nil, sens, bad
		}
		out = append(out, e.AsString())
		rngs = append(rngs, items[i])
	}
	return out, rngs, sens, ok
}

func typeDesc(v cty.Value) string {
	if v.IsNull() {
		return "null"
	}
	return typeName(v.Type())
}

// itemRanges returns the source range of each item of a literal list, or the
// whole expression's range n times.
func itemRanges(expr hcl.Expression, n int, unordered bool) []hcl.Range {
	out := make([]hcl.Range, n)
	exprs, ds := hcl.ExprList(expr)
	for i := range out {
		if !unordered && !ds.HasErrors() && len(exprs) == n {
			out[i] = exprs[i].Range()
		} else {
			out[i] = expr.Range()
		}
	}
	return out
}
