package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/kind"
)

// sheetWhere checks a sheet's where: references to person.<field> only
// (PersonAttributes) besides var, local and the functions, and true or false
// for a person whose fields are not known yet. It returns the expression
// and the fields it reads.
func (l *loader) sheetWhere(a *hcl.Attribute) (hcl.Expression, []string) {
	if !l.add(l.checkRefs(a.Expr, scope{person: true})) {
		return nil, nil
	}
	var fields []string
	for _, t := range a.Expr.Variables() {
		if t.RootName() != "person" || len(t) < 2 {
			continue
		}
		if at, ok := t[1].(hcl.TraverseAttr); ok && !contains(fields, at.Name) {
			fields = append(fields, at.Name)
		}
	}
	if contains(fields, "validationStatus") && !l.statusWords(a.Expr) {
		return nil, nil
	}
	ctx := l.evalContext(map[string]cty.Value{"person": cty.UnknownVal(personType())})
	v, ds := a.Expr.Value(ctx)
	if !l.add(ds) {
		return nil, nil
	}
	v, _ = v.UnmarkDeep()
	if ty := v.Type(); ty != cty.Bool && ty != cty.DynamicPseudoType {
		l.errorf(a.Expr.Range().Ptr(), "Invalid where", "A sheet's where must be true or false for each person, like person.validationStatus == \"valid\"; this expression gives %s.", typeName(ty))
		return nil, nil
	}
	return a.Expr, fields
}

// personBoolFields and personNumberFields are the person fields that are
// not text: a profile's flags and the counts of raw results.
var (
	personBoolFields   = []string{"premiumProfile", "private"}
	personNumberFields = []string{"contactsCount", "sharedContacts", "contactDistance"}
)

// PersonFieldType is the type of person.<field> in a sheet's where: a
// bool, a number or a string.
func PersonFieldType(field string) cty.Type {
	switch {
	case contains(personBoolFields, field):
		return cty.Bool
	case contains(personNumberFields, field):
		return cty.Number
	}
	return cty.String
}

// personType is the object type of `person` in a sheet's where.
func personType() cty.Type {
	attrs := make(map[string]cty.Type, len(PersonAttributes))
	for _, f := range PersonAttributes {
		attrs[f] = PersonFieldType(f)
	}
	return cty.Object(attrs)
}

// MatchPerson reports whether a person passes the where of sheet sh (true
// when it has none). fields holds the person's values of sh.WhereFields
// (the others are null). An evaluation that fails or gives something other
// than true or false is an error naming the place in the configuration.
func (c *Config) MatchPerson(sh *Sheet, fields map[string]cty.Value) (bool, error) {
	if sh == nil || sh.Where == nil {
		return true, nil
	}
	base := sh.ctx
	if base == nil {
		base = c.evalCtx
	}
	if base == nil {
		base = &hcl.EvalContext{}
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{"person": PersonValue(fields)}
	v, ds := sh.Where.Value(ctx)
	where := sh.Where.Range()
	if ds.HasErrors() {
		var msgs []string
		for _, d := range ds.Errs() {
			msgs = append(msgs, d.Error())
		}
		return false, fmt.Errorf("%s: where of sheet %q: %s", shortRange(where), sh.Name, c.Scrub(strings.Join(msgs, "; ")))
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
		return false, fmt.Errorf("%s: where of sheet %q gave %s; it must give true or false", shortRange(where), sh.Name, typeDesc(v))
	}
	return v.True(), nil
}

// changesSheet decodes a sheet of changes: changes (the blocks whose
// changes it lists), since, where and labels of its columns; from,
// columns, dedupe and only_new belong to sheets of people.
func (l *loader) changesSheet(s *Sheet, content *hcl.BodyContent) {
	at := content.Attributes
	for _, name := range []string{"from", "columns", "dedupe", "only_new", "labels"} {
		if a := at[name]; a != nil {
			l.errorf(a.NameRange.Ptr(), name+" in a changes sheet", "A sheet lists changes (changes = [...]), one row per change with the columns %s, or people (from = [...]), not both; remove %s, or write a second sheet for the people.", changeColumnNames(), name)
		}
	}
	s.From, s.Columns = nil, nil
	s.Changes = l.changesList(at["changes"])
	if d, astate := l.durationAttr(at["since"], l.base, scope{}); astate == ok {
		s.Since = d
	}
}

func changeColumnNames() string {
	var names []string
	for _, c := range ChangeColumns {
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// changesRefs are the references of a changes list: the blocks (or
// instances) whose calls see changes: searches, profiles, enrich and track
// blocks, or outputs of module calls that give them. Anything else (an
// export) sees none, and is an error.
var changesRefs = refList{attr: "changes", kinds: []kind.Kind{kind.Search, kind.Profile, kind.Enrich, kind.Track},
	empty: "changes lists at least one block whose calls see changes, like changes = [track.champions, search.cto].",
	wrongKind: func(root string) (string, string) {
		what := fmt.Sprintf("%q is no block", root)
		if kind.Kind(root) == kind.Export {
			what = "an export writes files and makes no call"
		}
		return "Block that cannot see changes", fmt.Sprintf("A changes sheet lists the changes that calls saw: those of searches, profiles, track and enrich blocks (like changes = [track.champions, search.cto]); %s, so it sees no change.", what)
	}}

// changesList decodes changes (see changesRefs).
func (l *loader) changesList(a *hcl.Attribute) []string {
	out, _ := l.refs(a, changesRefs)
	return out
}

// statusWords refuses, in a where that reads person.validationStatus, the
// service's word "empty" (emptyStatusWords). It reports whether expr is
// free of it.
func (l *loader) statusWords(expr hcl.Expression) bool {
	return l.add(emptyStatusWords(expr))
}

// emptyStatusWords are the errors of the service's word "empty" in a
// where that reads person.validationStatus: leadsync names that status
// "not found" in the sheets, the terminal and where alike, and a where
// comparing with "empty" would match nobody without a word.
func emptyStatusWords(expr hcl.Expression) hcl.Diagnostics {
	node, isSyntax := expr.(hclsyntax.Node)
	if !isSyntax {
		return nil
	}
	var diags hcl.Diagnostics
	_ = hclsyntax.VisitAll(node, func(n hclsyntax.Node) hcl.Diagnostics {
		t, isTemplate := n.(*hclsyntax.TemplateExpr)
		if !isTemplate || !t.IsStringLiteral() {
			return nil
		}
		if v, _ := t.Value(nil); v.Type() == cty.String && v.IsKnown() && strings.EqualFold(strings.TrimSpace(v.AsString()), "empty") {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Status \"empty\" is named \"not found\"",
				Detail:  "leadsync names the service's validation status \"empty\" (no e-mail found) \"not found\", in the sheets, the terminal and a sheet's where alike: write person.validationStatus == \"not found\".",
				Subject: t.Range().Ptr()})
		}
		return nil
	})
	return diags
}
