package config

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// scope says which names an expression may reference besides var, local and
// the functions.
type scope struct {
	each, count bool   // inside a block with for_each / count
	lead        bool   // the where expression of an enrich block
	person      bool   // the where expression of a sheet
	varOnly     string // a validation rule: only var.<varOnly>
}

func nearest(value string, candidates []string, n int) []string {
	return catalog.Nearest(value, candidates, n)
}

func validIdentifier(s string) bool { return hclsyntax.ValidIdentifier(s) }

// refsKey is an expression checked in a scope.
type refsKey struct {
	expr hcl.Expression
	sc   scope
}

// checkedRefs is checkRefs, once per expression and scope: an expression
// belongs to one file of one module, whose declarations are the same in
// every instance, so every instance of a module (and every instance of a
// block with for_each) would find the same. Its problems are reported
// once.
func (l *loader) checkedRefs(expr hcl.Expression, sc scope) hcl.Diagnostics {
	k := refsKey{expr, sc}
	if ds, seen := l.refsChecked[k]; seen {
		return ds // the same diagnostics again: Load reports each once
	}
	ds := l.checkRefs(expr, sc)
	l.refsChecked[k] = ds
	l.static(ds)
	return ds
}

// checkRefs checks every reference of expr against the scope, so that a typo
// gets a precise message (and a suggestion) instead of a generic "unknown
// variable", and a misplaced reference says where it is allowed.
func (l *loader) checkRefs(expr hcl.Expression, sc scope) hcl.Diagnostics {
	var ds hcl.Diagnostics
	for _, t := range expr.Variables() {
		r := ref{root: t.RootName()}
		if len(t) > 1 {
			if a, ok := t[1].(hcl.TraverseAttr); ok {
				r.attr, r.hasAttr = a.Name, true
			}
		}
		var summary, detail string
		switch r.root {
		case "var", "local", "leadsync", "path":
			summary, detail = l.checkNamedRef(r, sc)
		case "each", "count", "lead", "person":
			summary, detail = checkScopedRef(r, sc)
		case address.ModuleKeyword:
			summary, detail = "Block reference outside from", fmt.Sprintf("module.%s can be referred to only in the from list of an enrich or track block or a sheet (as module.%s.OUTPUT), or in the value of an output.", r.attr, r.attr)
		default:
			if k, ok := kind.Lookup(r.root); ok && k.IsBlock() {
				summary, detail = "Block reference outside from", fmt.Sprintf("%s.%s can be referred to only in the from list of an enrich or track block or a sheet.", r.root, r.attr)
				break
			}
			summary, detail = "Unknown reference", unknownRoot(r.root, sc)
		}
		if summary != "" {
			ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
				Detail: detail, Subject: t.SourceRange().Ptr()})
		}
	}
	return ds
}

// ref is the start of a reference: its root name and the attribute after
// it, if any (var.cities: root var, attribute cities).
type ref struct {
	root, attr string
	hasAttr    bool
}

// checkNamedRef checks a reference to something named in the
// configuration or given by leadsync: var, local, leadsync, path. It
// returns the summary and detail of the problem, or "" when there is none.
func (l *loader) checkNamedRef(r ref, sc scope) (summary, detail string) {
	// A validation rule reads its own variable only (a bare var is
	// reported below).
	self := r.root == "var" && (!r.hasAttr || r.attr == sc.varOnly)
	if sc.varOnly != "" && !self {
		return "Invalid reference in validation", fmt.Sprintf("A validation rule of var.%s may refer only to var.%s.", sc.varOnly, sc.varOnly)
	}
	switch r.root {
	case "var":
		if !r.hasAttr {
			return "Invalid reference", "var is followed by a variable name, like var.cities."
		}
		if l.vars[r.attr] == nil {
			return "Reference to undeclared variable", fmt.Sprintf("No variable %q is declared; add a variable %q block.%s", r.attr, r.attr, didYouMean(r.attr, l.varOrder))
		}
	case "local":
		if !r.hasAttr {
			return "Invalid reference", "local is followed by a local value's name, like local.tech_exec."
		}
		if l.locals[r.attr] == nil {
			return "Reference to undeclared local value", fmt.Sprintf("No local value %q is declared in a locals block.%s", r.attr, didYouMean(r.attr, l.localOrder))
		}
	case "leadsync":
		if !r.hasAttr || !contains(LeadsyncAttributes, r.attr) {
			return "Unknown leadsync attribute", fmt.Sprintf("leadsync has one attribute in expressions: leadsync.workspace, the workspace in use (--workspace).%s", didYouMean(r.attr, LeadsyncAttributes))
		}
		l.usesWorkspace = true
	case "path":
		if !r.hasAttr || !contains(PathAttributes, r.attr) {
			return "Unknown path attribute", fmt.Sprintf("path has two attributes: path.module, the folder of the module the expression is in, and path.root, the root configuration's folder (both relative to the root's).%s", didYouMean(r.attr, PathAttributes))
		}
	}
	return "", ""
}

// checkScopedRef checks a reference that exists only in some places:
// each and count in a block that repeats, lead in an enrich block's where,
// person in a sheet's where. It returns the summary and detail of the
// problem, or "" when there is none.
func checkScopedRef(r ref, sc scope) (summary, detail string) {
	switch r.root {
	case "each":
		if !sc.each {
			return "Reference to \"each\" outside for_each", "each.key and each.value exist only in a search, profile or module block that has for_each."
		}
		if !r.hasAttr || (r.attr != "key" && r.attr != "value") {
			return "Invalid reference to each", "each has two attributes: each.key and each.value."
		}
	case "count":
		if !sc.count {
			return "Reference to \"count\" outside count", "count.index exists only in a search, profile or module block that has count."
		}
		if !r.hasAttr || r.attr != "index" {
			return "Invalid reference to count", "count has one attribute: count.index."
		}
	case "lead":
		if !sc.lead {
			return "Reference to \"lead\" outside where", "lead.<field> exists only in the where expression of an enrich block, where it is each lead found."
		}
		if !r.hasAttr || !contains(LeadFields, r.attr) {
			return "Unknown lead field", fmt.Sprintf("A lead has the fields %s.%s", strings.Join(LeadFields, ", "), didYouMean(r.attr, LeadFields))
		}
	case "person":
		if !sc.person {
			return "Reference to \"person\" outside a sheet's where", "person.<field> exists only in the where expression of a sheet, where it is each person the sheet lists; an enrich block's where reads lead.<field>."
		}
		if !r.hasAttr || !contains(PersonAttributes, r.attr) {
			hint := didYouMean(r.attr, PersonAttributes)
			if hint == "" {
				hint = " A sheet's where reads the fields a sheet can show: " + strings.Join(PersonAttributes, ", ") + "."
			}
			return "Unknown person field", fmt.Sprintf("%q is not a person field.%s", r.attr, hint)
		}
	}
	return "", ""
}

// unknownRoot is the detail of a reference whose root is none leadsync
// knows: the roots that exist where it is.
func unknownRoot(root string, sc scope) string {
	roots := []string{"var", "local", "leadsync", "path"}
	if sc.each {
		roots = append(roots, "each")
	}
	if sc.count {
		roots = append(roots, "count")
	}
	if sc.lead {
		roots = append(roots, "lead")
	}
	if sc.person {
		roots = append(roots, "person")
	}
	return fmt.Sprintf("There is no %q here; references start with %s. (Strings are written in quotes.)%s", root, strings.Join(roots, ", "), didYouMean(root, roots))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// refList says what a list of block references may name: the
// attribute it is (from, value, changes) and the kinds of blocks it
// lists, with what to say of an empty list and of a block of another
// kind.
type refList struct {
	attr  string
	kinds []kind.Kind
	// empty is the detail of the error of an empty list ("" for the
	// generic one).
	empty string
	// wrongKind words a reference to a block of a kind the list does not
	// take (nil for the generic words).
	wrongKind func(root string) (summary, detail string)
}

// fromRefs are the references of a from list: searches, profiles and
// imports.
var fromRefs = refList{attr: "from", kinds: []kind.Kind{kind.Search, kind.Profile, kind.Import},
	empty: "from lists at least one search or profile block, like from = [search.cto].",
	wrongKind: func(root string) (string, string) {
		return "Invalid from reference", fmt.Sprintf("from lists search, profile and import blocks, like search.cto, profile.founder or import.evaboot; %q is none of them.", root)
	}}

// kindsText writes the kinds for messages: "search and profile blocks".
func (r refList) kindsText() string { return kindList(r.kinds) + " blocks" }

// takes reports whether the list takes references to blocks of k.
func (r refList) takes(k kind.Kind) bool { return slices.Contains(r.kinds, k) }

// fromList decodes a from list: references to declared search and profile
// blocks or their instances, or to outputs of module calls that give them.
func (l *loader) fromList(a *hcl.Attribute) ([]string, bool) {
	return l.refs(a, fromRefs)
}

// declRef is an address a reference names, with the kind of its block:
// known from the reference as it is decoded, never read from the address.
type declRef struct {
	addr string
	kind kind.Kind
}

// refAt is an address a reference names, with where the reference is.
type refAt struct {
	declRef
	rng hcl.Range
}

// refs decodes a list of block references (a from list, an output's
// value) into the addresses it names, each once.
func (l *loader) refs(a *hcl.Attribute, spec refList) ([]string, bool) {
	at, good := l.refsAt(a, spec)
	out := make([]string, len(at))
	for i, r := range at {
		out[i] = r.addr
	}
	return out, good
}

// refsAt is refs with the place of the reference of each address.
func (l *loader) refsAt(a *hcl.Attribute, spec refList) ([]refAt, bool) {
	exprs, ds := hcl.ExprList(a.Expr)
	if ds.HasErrors() {
		if _, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() {
			exprs = []hcl.Expression{a.Expr} // a single reference without brackets
		} else {
			l.fromItemError(a.Expr, spec)
			return nil, false
		}
	}
	if len(exprs) == 0 {
		detail := spec.empty
		if detail == "" {
			detail = fmt.Sprintf("%s lists at least one of the module's %s, like %s = [search.cto].", spec.attr, spec.kindsText(), spec.attr)
		}
		l.errorf(a.Expr.Range().Ptr(), "Empty "+spec.attr, "%s", detail)
		return nil, false
	}
	var out []refAt
	good := true
	seen := map[string]bool{}
	for _, e := range exprs {
		refs, ok := l.ref(e, spec)
		if !ok {
			good = false
			continue
		}
		for _, r := range refs {
			if !seen[r.addr] {
				seen[r.addr] = true
				out = append(out, refAt{r, e.Range()})
			}
		}
	}
	return out, good
}

func (l *loader) fromItemError(e hcl.Expression, spec refList) {
	if v, ds := e.Value(nil); !ds.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		s := v.AsString()
		l.errorf(e.Range().Ptr(), "String instead of reference", "%s takes references to blocks, not strings: write %s without quotes.", spec.attr, s)
		return
	}
	if v, ds := e.Value(nil); !ds.HasErrors() && (v.Type().IsTupleType() || v.Type().IsListType()) {
		l.errorf(e.Range().Ptr(), "String instead of reference", "%s takes references to blocks, not strings: write them without quotes, like [search.cto, profile.founder].", spec.attr)
		return
	}
	if spec.attr == "from" && len(spec.kinds) == len(fromRefs.kinds) {
		l.errorf(e.Range().Ptr(), "Invalid from", "from is a list of references to search and profile blocks, written out, like [search.cto, search.cfo[\"Berlin\"], profile.founder]; it cannot be computed.")
		return
	}
	l.errorf(e.Range().Ptr(), "Invalid "+spec.attr, "%s is a list of references to %s, written out, like [search.cto, profile.founder]; it cannot be computed.", spec.attr, spec.kindsText())
}

// ref resolves one reference of a list: a block or one of its instances
// (one address), or an output of a module call (the addresses it gives).
func (l *loader) ref(e hcl.Expression, spec refList) ([]declRef, bool) {
	t, ds := hcl.AbsTraversalForExpr(e)
	if ds.HasErrors() {
		l.fromItemError(e, spec)
		return nil, false
	}
	rng := t.SourceRange().Ptr()
	root := t.RootName()
	if root == address.ModuleKeyword {
		return l.moduleRef(t, spec)
	}
	k := kind.Kind(root)
	if !spec.takes(k) {
		if spec.wrongKind != nil {
			summary, detail := spec.wrongKind(root)
			l.errorf(rng, summary, "%s", detail)
		} else {
			l.errorf(rng, "Invalid "+spec.attr+" reference", "%s lists %s (or outputs of module calls that give them, like module.team.ctos); %q is none of them.", spec.attr, spec.kindsText(), root)
		}
		return nil, false
	}
	if len(t) < 2 {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s is followed by a block name, like %s.cto.", root, root)
		return nil, false
	}
	at, isAttr := t[1].(hcl.TraverseAttr)
	if !isAttr {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s is followed by a block name, like %s.cto.", root, root)
		return nil, false
	}
	block := root + "." + at.Name
	if blockKinds[k].byName {
		return l.namedRef(t, rng, spec, k, at.Name, l.named[k], textWithArticle(k))
	}
	info := l.blocks[block]
	if info == nil {
		var names []string
		for k, b := range l.blocks {
			if b.kind == root {
				names = append(names, k[len(root)+1:])
			}
		}
		sort.Strings(names)
		hint := didYouMean(at.Name, names)
		other := string(map[kind.Kind]kind.Kind{kind.Search: kind.Profile, kind.Profile: kind.Search}[k])
		if other == "" {
			other = string(kind.Search)
		}
		if hint == "" {
			hint = fmt.Sprintf(" Declare %s %q block, or remove the reference.", textfmt.Article(root)+" "+root, at.Name)
		}
		if l.blocks[other+"."+at.Name] != nil {
			hint = fmt.Sprintf(" There is %s block named %q: did you mean %s.%s?", textfmt.WithArticle(other), at.Name, other, at.Name)
		}
		l.errorf(rng, "Reference to undeclared "+root+" block", "No %s block named %q is declared.%s", root, at.Name, hint)
		return nil, false
	}
	if len(t) == 2 {
		return []declRef{{l.prefix + block, k}}, true
	}
	idx, isIdx := t[2].(hcl.TraverseIndex)
	if !isIdx || len(t) > 3 {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s refers to a whole block (%s) or one instance (%s[\"key\"] or %s[0]); nothing else.", spec.attr, block, block, block)
		return nil, false
	}
	key, ok := l.instanceKey(rng, block, info, idx)
	if !ok {
		return nil, false
	}
	return []declRef{{l.prefix + block + key, k}}, true
}

// instanceKey checks the key of a reference to one instance of a block
// (or module call) against its for_each or count, and returns the key as
// addresses write it.
func (l *loader) instanceKey(rng *hcl.Range, block string, info *blockInfo, idx hcl.TraverseIndex) (string, bool) {
	switch info.mode {
	case single:
		l.errorf(rng, "Invalid instance key", "%s has neither for_each nor count, so it has no instances to index; write %s.", block, block)
		return "", false
	case forEach:
		if idx.Key.Type() != cty.String {
			l.errorf(rng, "Invalid instance key", "%s uses for_each, so its instances have string keys, like %s[\"Berlin\"].", block, block)
			return "", false
		}
		k := idx.Key.AsString()
		if info.expanded && !info.keys[k] {
			var keys []string
			for k := range info.keys {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if len(keys) == 0 {
				l.errorf(rng, "Invalid instance key", "%s has no instance %q: it has no instances (its for_each is empty). Refer to the whole block, %s, which then gives nobody, or give for_each the key.", block, k, block)
				return "", false
			}
			l.errorf(rng, "Invalid instance key", "%s has no instance %q; its keys are %s.", block, k, textfmt.QuoteList(keys, ", "))
			return "", false
		}
		return address.StringKey(k), true
	default:
		if idx.Key.Type() != cty.Number {
			l.errorf(rng, "Invalid instance key", "%s uses count, so its instances have numbers, like %s[0].", block, block)
			return "", false
		}
		bf := idx.Key.AsBigFloat()
		n, acc := bf.Int64()
		if !bf.IsInt() || acc != 0 || (info.expanded && !info.keys[strconv.FormatInt(n, 10)]) {
			l.errorf(rng, "Invalid instance key", "%s has %d instances (count); %s is not one of their indexes.", block, len(info.keys), bf.Text('g', -1))
			return "", false
		}
		return address.IndexKey(int(n)), true
	}
}

// namedRef resolves a reference to a block without instances (an enrich
// or track block) declared in this module, whose names are declared.
func (l *loader) namedRef(t hcl.Traversal, rng *hcl.Range, spec refList, k kind.Kind, name string, declared map[string]bool, what string) ([]declRef, bool) {
	root := string(k)
	if len(t) > 2 {
		block := root + "." + name
		why := ""
		if k == kind.Enrich && spec.attr == "from" {
			why = " (it watches the people the block enriched)"
		}
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s is %s, which has no instances: write %s%s. %s lists %s (or outputs of module calls that give them).",
			block, what, block, why, spec.attr, spec.kindsText())
		return nil, false
	}
	if !declared[name] {
		var names []string
		for n := range declared {
			names = append(names, n)
		}
		sort.Strings(names)
		hint := didYouMean(name, names)
		if hint == "" {
			hint = fmt.Sprintf(" Declare %s %q block, or remove the reference.", textfmt.WithArticle(root), name)
		}
		l.errorf(rng, "Reference to undeclared "+root+" block", "No %s block named %q is declared.%s", root, name, hint)
		return nil, false
	}
	return []declRef{{l.prefix + root + "." + name, k}}, true
}

// moduleRef resolves a reference to an output of a module call:
// module.NAME.OUTPUT gives the addresses of the output of every instance
// of the call, module.NAME["key"].OUTPUT (or [0]) of one. Each address
// must be of a kind the list takes.
func (l *loader) moduleRef(t hcl.Traversal, spec refList) ([]declRef, bool) {
	rng := t.SourceRange().Ptr()
	form := "module.NAME.OUTPUT, like module.dach.ctos (or module.dach[\"de\"].ctos for one instance)"
	if len(t) < 2 {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "module is followed by a module name and one of its outputs: %s.", form)
		return nil, false
	}
	at, isAttr := t[1].(hcl.TraverseAttr)
	if !isAttr {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "module is followed by a module name and one of its outputs: %s.", form)
		return nil, false
	}
	call := l.calls[at.Name]
	if call == nil {
		var names []string
		for n := range l.calls {
			names = append(names, n)
		}
		sort.Strings(names)
		hint := didYouMean(at.Name, names)
		if hint == "" {
			hint = fmt.Sprintf(" Declare a module %q block, or remove the reference.", at.Name)
		}
		l.errorf(rng, "Reference to undeclared module", "No module block named %q is declared.%s", at.Name, hint)
		return nil, false
	}
	callAddr := "module." + at.Name
	rest := t[2:]
	instances := call.instances
	if len(rest) > 0 {
		if idx, isIdx := rest[0].(hcl.TraverseIndex); isIdx {
			key, ok := l.instanceKey(rng, callAddr, call.info, idx)
			if !ok {
				return nil, false
			}
			instances = nil
			for i, child := range call.instances {
				if child.call.addr == l.prefix+callAddr+key {
					instances = call.instances[i : i+1]
				}
			}
			rest = rest[1:]
		}
	}
	if len(rest) != 1 {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s refers to a module's output, not to the module or its blocks: %s.", spec.attr, form)
		return nil, false
	}
	out, isAttr := rest[0].(hcl.TraverseAttr)
	if !isAttr {
		l.errorf(rng, "Invalid "+spec.attr+" reference", "%s refers to a module's output: %s.", spec.attr, form)
		return nil, false
	}
	if call.src == nil {
		return nil, false // the module could not be read: already reported
	}
	if !contains(call.src.outputs, out.Name) {
		hint := didYouMean(out.Name, call.src.outputs)
		switch {
		case hint != "":
		case len(call.src.outputs) == 0:
			hint = fmt.Sprintf(" It has no output blocks: add one to %s, like output %q { value = [search.%s] }.", call.src.dir, out.Name, out.Name)
		default:
			hint = " Its outputs: " + strings.Join(call.src.outputs, ", ") + "."
		}
		l.errorf(rng, "Reference to undeclared output", "The module of %s (%s) has no output %q.%s", callAddr, call.src.dir, out.Name, hint)
		return nil, false
	}
	var refs []declRef
	for _, child := range instances {
		for _, r := range child.output(out.Name) {
			if !spec.takes(r.kind) {
				l.errorf(rng, "Invalid "+spec.attr+" reference", "%s.%s gives %s, %s block, and %s lists %s.", callAddr, out.Name, r.addr, textfmt.WithArticle(string(r.kind)), spec.attr, spec.kindsText())
				return nil, false
			}
			refs = append(refs, r)
		}
	}
	return refs, true
}
