package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// maxCount bounds count and for_each: every instance is at least one call,
// and 10,000 searches take almost three hours at the service's 1 call/s.
const maxCount = 10000

// content decodes a block body, reporting unknown attributes with the
// nearest known name. meant holds the known names suggested for them: an
// argument misspelt is then not also reported missing (the root cause
// only).
//
// A block of a module is decoded once however many instances the module
// has (its problems are reported once too): the result is kept by block.
func (l *loader) content(b *hcl.Block, schema *hcl.BodySchema, what string) (content *hcl.BodyContent, meant map[string]bool) {
	if c, seen := l.contents[b]; seen {
		return c.content, c.meant
	}
	start := len(l.diags)
	defer func() {
		l.contents[b] = decoded{content, meant}
		l.static(l.diags[start:])
	}()
	content, remain, ds := b.Body.PartialContent(schema)
	l.add(ds)
	attrs, ds := remain.JustAttributes()
	l.add(ds)
	var known []string
	for _, a := range schema.Attributes {
		known = append(known, a.Name)
	}
	meant = map[string]bool{}
	for _, a := range sortedAttrs(attrs) {
		hint := didYouMean(a.Name, known)
		if n := nearest(a.Name, known, 1); len(n) > 0 {
			meant[n[0]] = true
		}
		if hint == "" {
			hint = fmt.Sprintf(" %s takes %s.", what, strings.Join(known, ", "))
		}
		l.errorf(a.NameRange.Ptr(), "Unsupported argument", "%s has no argument %q.%s", what, a.Name, hint)
	}
	return content, meant
}

// decoded is what content gave for a block.
type decoded struct {
	content *hcl.BodyContent
	meant   map[string]bool
}

// instance is one expansion of a search, profile or module block.
type instance struct {
	addr string
	key  string // the for_each key, the count index in decimal, or ""
	// akey is key as the address writes it, brackets included (["de"],
	// [0]); "" without for_each or count.
	akey string
	ctx  *hcl.EvalContext
	sc   scope
}

// expand evaluates for_each or count of a block and returns its instances.
func (l *loader) expand(b *hcl.Block, content *hcl.BodyContent, info *blockInfo) []instance {
	block := l.prefix + b.Type + "." + b.Labels[0]
	fe, cnt := content.Attributes["for_each"], content.Attributes["count"]
	if fe != nil && cnt != nil {
		l.errorf(cnt.NameRange.Ptr(), "Both for_each and count", "A block is repeated by for_each or by count, not both; remove one.")
		return nil
	}
	switch {
	case fe != nil:
		info.mode = forEach
		items, good := l.forEachItems(fe)
		if !good || !l.countInstances(len(items), fe) {
			return nil
		}
		info.expanded = true
		info.keys = make(map[string]bool, len(items))
		var out []instance
		for _, it := range items {
			info.keys[it.key] = true
			akey := address.StringKey(it.key)
			out = append(out, instance{
				addr: block + akey,
				key:  it.key,
				akey: akey,
				ctx:  l.evalContext(map[string]cty.Value{"each": cty.ObjectVal(map[string]cty.Value{"key": cty.StringVal(it.key), "value": it.val})}),
				sc:   scope{each: true},
			})
		}
		return out
	case cnt != nil:
		info.mode = countMode
		n, astate := l.intAttr(cnt, l.base, scope{}, 0, maxCount)
		if astate == absent {
			l.errorf(cnt.Expr.Range().Ptr(), "Invalid count", "count is null; give it a whole number.")
		}
		if astate != ok || !l.countInstances(n, cnt) {
			return nil
		}
		info.expanded = true
		info.keys = make(map[string]bool, n)
		var out []instance
		for i := 0; i < n; i++ {
			info.keys[strconv.Itoa(i)] = true
			akey := address.IndexKey(i)
			out = append(out, instance{
				addr: block + akey,
				key:  strconv.Itoa(i),
				akey: akey,
				ctx:  l.evalContext(map[string]cty.Value{"count": cty.ObjectVal(map[string]cty.Value{"index": cty.NumberIntVal(int64(i))})}),
				sc:   scope{count: true},
			})
		}
		return out
	}
	if !l.countInstances(1, nil) {
		return nil
	}
	info.expanded = true
	return []instance{{addr: block, ctx: l.base}}
}

// eachItem is one instance of a for_each: its key and each.value.
type eachItem struct {
	key string
	val cty.Value
}

// forEachItems evaluates a for_each: a map (or object) gives its keys and
// values, a set of strings its strings, in order. good is false when the
// value is refused (and said why).
func (l *loader) forEachItems(fe *hcl.Attribute) (items []eachItem, good bool) {
	var elems []cty.Value // of a set, in order
	v, sens, astate := l.valueElems(fe, l.base, scope{}, &elems)
	if astate == absent {
		l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each is null; give it a map or a set of strings.")
	}
	if astate != ok {
		return nil, false
	}
	if sens {
		l.errorf(fe.Expr.Range().Ptr(), "Sensitive value in for_each", "for_each cannot use a sensitive value: its keys appear in addresses, plans and state.")
		return nil, false
	}
	ty := v.Type()
	if (ty.IsMapType() || ty.IsObjectType() || ty.IsSetType()) && v.IsKnown() && !v.IsNull() && v.LengthInt() > maxCount {
		// Refused before its instances are made.
		l.errorf(fe.Expr.Range().Ptr(), "Too many instances", "for_each gives %s instances; at most %s are allowed.", textfmt.Thousands(v.LengthInt()), textfmt.Thousands(maxCount))
		return nil, false
	}
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			items = append(items, eachItem{k.AsString(), e})
		}
	case ty.IsSetType() && ty.ElementType() == cty.DynamicPseudoType && v.IsKnown() && v.LengthInt() == 0:
		// An empty literal set, toset([]): its elements have no type
		// because it has none. Zero instances, as in Terraform.
	case ty.IsSetType():
		if ty.ElementType() != cty.String {
			l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings; this is a set of %s.", pluralType(ty.ElementType()))
			return nil, false
		}
		for _, e := range elems {
			if e.IsNull() {
				l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "The set given to for_each contains null.")
				return nil, false
			}
			items = append(items, eachItem{e.AsString(), e})
		}
	case ty.IsListType() || ty.IsTupleType():
		l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings, and this is %s. Convert it with toset(...), like for_each = toset(var.cities).", typeName(ty))
		return nil, false
	default:
		l.errorf(fe.Expr.Range().Ptr(), "Invalid for_each", "for_each takes a map or a set of strings; got %s.", typeName(ty))
		return nil, false
	}
	return items, true
}

// MaxInstances bounds the search, profile and module instances of the
// whole configuration: modules multiply what they declare by their own
// for_each or count, and a module of 10,000 instances with a search of
// 10,000 would be a hundred million searches (years at the service's
// 1 call/s).
const MaxInstances = 100000

// countInstances adds n instances to the configuration's count and reports
// false, with an error at the for_each or count that passes MaxInstances
// (a is nil for a block without either), once they are too many.
func (l *loader) countInstances(n int, a *hcl.Attribute) bool {
	l.instances += n
	if l.instances <= MaxInstances {
		return true
	}
	if l.instances-n > MaxInstances {
		return false // already reported
	}
	var rng *hcl.Range
	if a != nil {
		rng = a.Expr.Range().Ptr()
	}
	l.errorf(rng, "Too many instances", "The configuration makes more than %s search, profile and module instances (modules multiply the instances of their blocks by their own for_each or count); at most %s are allowed.",
		textfmt.Thousands(MaxInstances), textfmt.Thousands(MaxInstances))
	return false
}

func (l *loader) declareInstances(searches, profiles hcl.Blocks) {
	for _, bs := range []hcl.Blocks{searches, profiles} {
		for _, b := range bs {
			if !l.uniqueName(b) {
				if l.skip == nil {
					l.skip = map[*hcl.Block]bool{}
				}
				l.skip[b] = true
				continue
			}
			l.blocks[b.Type+"."+b.Labels[0]] = &blockInfo{kind: b.Type, name: b.Labels[0], rng: b.DefRange}
		}
	}
}

func (l *loader) noRepeat(content *hcl.BodyContent, what string) {
	for _, n := range []string{"for_each", "count"} {
		if a := content.Attributes[n]; a != nil {
			l.errorf(a.NameRange.Ptr(), n+" not allowed here", "%s is only for search, profile and module blocks; %s", n, what)
		}
	}
}
