package config

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/catalog"
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

// checkRefs checks every reference of expr against the scope, so that a typo
// gets a precise message (and a suggestion) instead of a generic "unknown
// variable", and a misplaced reference says where it is allowed.
func (l *loader) checkRefs(expr hcl.Expression, sc scope) hcl.Diagnostics {
	var ds hcl.Diagnostics
	bad := func(t hcl.Traversal, summary, format string, args ...any) {
		ds = append(ds, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary,
			Detail: fmt.Sprintf(format, args...), Subject: t.SourceRange().Ptr()})
	}
	for _, t := range expr.Variables() {
		root := t.RootName()
		attr, hasAttr := "", false
		if len(t) > 1 {
			if a, ok := t[1].(hcl.TraverseAttr); ok {
				attr, hasAttr = a.Name, true
			}
		}
		switch root {
		case "var":
			if !hasAttr {
				bad(t, "Invalid reference", "var is followed by a variable name, like var.cities.")
				continue
			}
			if sc.varOnly != "" && attr != sc.varOnly {
				bad(t, "Invalid reference in validation", "A validation rule of var.%s may refer only to var.%s.", sc.varOnly, sc.varOnly)
				continue
			}
			if l.vars[attr] == nil {
				bad(t, "Reference to undeclared variable", "No variable %q is declared; add a variable %q block.%s", attr, attr, didYouMean(attr, l.varOrder))
			}
		case "local":
			if sc.varOnly != "" {
				bad(t, "Invalid reference in validation", "A validation rule of var.%s may refer only to var.%s.", sc.varOnly, sc.varOnly)
				continue
			}
			if !hasAttr {
				bad(t, "Invalid reference", "local is followed by a local value's name, like local.tech_exec.")
				continue
			}
			if l.locals[attr] == nil {
				bad(t, "Reference to undeclared local value", "No local value %q is declared in a locals block.%s", attr, didYouMean(attr, l.localOrder))
			}
		case "each":
			if !sc.each {
				bad(t, "Reference to \"each\" outside for_each", "each.key and each.value exist only in a search or profile block that has for_each.")
				continue
			}
			if !hasAttr || (attr != "key" && attr != "value") {
				bad(t, "Invalid reference to each", "each has two attributes: each.key and each.value.")
			}
		case "count":
			if !sc.count {
				bad(t, "Reference to \"count\" outside count", "count.index exists only in a search or profile block that has count.")
				continue
			}
			if !hasAttr || attr != "index" {
				bad(t, "Invalid reference to count", "count has one attribute: count.index.")
			}
		case "lead":
			if !sc.lead {
				bad(t, "Reference to \"lead\" outside where", "lead.<field> exists only in the where expression of an enrich block, where it is each lead found.")
				continue
			}
			if !hasAttr || !contains(LeadFields, attr) {
				bad(t, "Unknown lead field", "A lead has the fields %s.%s", strings.Join(LeadFields, ", "), didYouMean(attr, LeadFields))
			}
		case "person":
			if !sc.person {
				bad(t, "Reference to \"person\" outside a sheet's where", "person.<field> exists only in the where expression of a sheet, where it is each person the sheet lists; an enrich block's where reads lead.<field>.")
				continue
			}
			if !hasAttr || !contains(PersonAttributes, attr) {
				hint := didYouMean(attr, PersonAttributes)
				if hint == "" {
					hint = " A sheet's where reads the fields a sheet can show: " + strings.Join(PersonAttributes, ", ") + "."
				}
				bad(t, "Unknown person field", "%q is not a person field.%s", attr, hint)
			}
		case "leadsync":
			if sc.varOnly != "" {
				bad(t, "Invalid reference in validation", "A validation rule of var.%s may refer only to var.%s.", sc.varOnly, sc.varOnly)
				continue
			}
			if !hasAttr || !contains(LeadsyncAttributes, attr) {
				bad(t, "Unknown leadsync attribute", "leadsync has one attribute in expressions: leadsync.workspace, the workspace in use (--workspace).%s", didYouMean(attr, LeadsyncAttributes))
				continue
			}
			l.usesWorkspace = true
		case "search", "profile", "enrich", "export", "track", "import", "exclude":
			bad(t, "Block reference outside from", "%s.%s can be referred to only in the from list of an enrich or track block or a sheet.", root, attr)
		default:
			roots := []string{"var", "local", "leadsync"}
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
			bad(t, "Unknown reference", "There is no %q here; references start with %s. (Strings are written in quotes.)%s", root, strings.Join(roots, ", "), didYouMean(root, roots))
		}
	}
	return ds
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fromList decodes a from list: references to declared search and profile
// blocks or their instances.
func (l *loader) fromList(a *hcl.Attribute) ([]string, bool) {
	exprs, ds := hcl.ExprList(a.Expr)
	if ds.HasErrors() {
		if _, d := hcl.AbsTraversalForExpr(a.Expr); !d.HasErrors() {
			exprs = []hcl.Expression{a.Expr} // a single reference without brackets
		} else {
			l.fromItemError(a.Expr)
			return nil, false
		}
	}
	if len(exprs) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty from", "from lists at least one search or profile block, like from = [search.cto].")
		return nil, false
	}
	var out []string
	good := true
	seen := map[string]bool{}
	for _, e := range exprs {
		addr, ok := l.fromRef(e)
		if !ok {
			good = false
			continue
		}
		if !seen[addr] {
			seen[addr] = true
			out = append(out, addr)
		}
	}
	return out, good
}

func (l *loader) fromItemError(e hcl.Expression) {
	if v, ds := e.Value(nil); !ds.HasErrors() && v.Type() == cty.String && v.IsKnown() && !v.IsNull() {
		s := v.AsString()
		l.errorf(e.Range().Ptr(), "String instead of reference", "from takes references to blocks, not strings: write %s without quotes.", s)
		return
	}
	if v, ds := e.Value(nil); !ds.HasErrors() && (v.Type().IsTupleType() || v.Type().IsListType()) {
		l.errorf(e.Range().Ptr(), "String instead of reference", "from takes references to blocks, not strings: write them without quotes, like [search.cto, profile.founder].")
		return
	}
	l.errorf(e.Range().Ptr(), "Invalid from", "from is a list of references to search and profile blocks, written out, like [search.cto, search.cfo[\"Berlin\"], profile.founder]; it cannot be computed.")
}

func (l *loader) fromRef(e hcl.Expression) (string, bool) {
	t, ds := hcl.AbsTraversalForExpr(e)
	if ds.HasErrors() {
		l.fromItemError(e)
		return "", false
	}
	rng := t.SourceRange().Ptr()
	root := t.RootName()
	if root != "search" && root != "profile" && root != "import" {
		l.errorf(rng, "Invalid from reference", "from lists search, profile and import blocks, like search.cto, profile.founder or import.evaboot; %q is none of them.", root)
		return "", false
	}
	if len(t) < 2 {
		l.errorf(rng, "Invalid from reference", "%s is followed by a block name, like %s.cto.", root, root)
		return "", false
	}
	at, isAttr := t[1].(hcl.TraverseAttr)
	if !isAttr {
		l.errorf(rng, "Invalid from reference", "%s is followed by a block name, like %s.cto.", root, root)
		return "", false
	}
	block := root + "." + at.Name
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
		other := map[string]string{"search": "profile", "profile": "search"}[root]
		if other == "" {
			other = "search"
		}
		if hint == "" {
			hint = fmt.Sprintf(" Declare %s %q block, or remove the reference.", textfmt.Article(root)+" "+root, at.Name)
		}
		if l.blocks[other+"."+at.Name] != nil {
			hint = fmt.Sprintf(" There is %s block named %q: did you mean %s.%s?", textfmt.WithArticle(other), at.Name, other, at.Name)
		}
		l.errorf(rng, "Reference to undeclared "+root+" block", "No %s block named %q is declared.%s", root, at.Name, hint)
		return "", false
	}
	if len(t) == 2 {
		return block, true
	}
	idx, isIdx := t[2].(hcl.TraverseIndex)
	if !isIdx || len(t) > 3 {
		l.errorf(rng, "Invalid from reference", "from refers to a whole block (%s) or one instance (%s[\"key\"] or %s[0]); nothing else.", block, block, block)
		return "", false
	}
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
		return fmt.Sprintf("%s[%s]", block, strconv.Quote(k)), true
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
		return fmt.Sprintf("%s[%d]", block, n), true
	}
}
