package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/leadsync/leadsync/internal/catalog"
)

// scope says which names an expression may reference besides var, local and
// the functions.
type scope struct {
	each, count bool   // inside a block with for_each / count
	lead        bool   // the where expression of an enrich block
	varOnly     string // a validation rule: only var.<varOnly>
}

func nearest(value string, candidates []string, n int) []string {
	return catalog.Nearest(value, candidates, n)
}

func validIdentifier(s string) bool { return hclsyntax.ValidIdentifier(s) }

func sortStrings(s []string) { sort.Strings(s) }

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
		case "search", "profile", "enrich", "export":
			bad(t, "Block reference outside from", "%s.%s can be referred to only in the from list of an enrich block or a sheet.", root, attr)
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
