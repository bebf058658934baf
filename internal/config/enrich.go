package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var enrichSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "where"}, {Name: "limit"}, {Name: "refresh"}, {Name: "for_each"}, {Name: "count"},
}}

func (l *loader) decodeEnrich(b *hcl.Block) {
	content, meant := l.content(b, enrichSchema, "An enrich block")
	l.noRepeat(content, "an enrich block already works on every lead of its from list. To enrich several groups differently, write several enrich blocks.")
	e := &Enrich{Address: l.prefix + "enrich." + b.Labels[0], Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange, ctx: l.base}
	at := content.Attributes
	if a := at["from"]; a == nil && meant["from"] {
		// Misspelt: that error is the one to fix.
	} else if a == nil {
		l.errorf(b.DefRange.Ptr(), "Missing from", "An enrich block needs from, the searches and profiles whose people it enriches, like from = [search.cto].")
	} else {
		e.From, _ = l.fromList(a)
	}
	if a := at["where"]; a != nil {
		if l.checkWhere(a) {
			e.Where = a.Expr
		}
	}
	if n, astate := l.intAttr(at["limit"], l.base, scope{}, 1, -1); astate == ok {
		e.Limit = n
	}
	if d, astate := l.durationAttr(at["refresh"], l.base, scope{}); astate == ok {
		e.Refresh = d
	}
	l.cfg.Enriches = append(l.cfg.Enriches, e)
}

// leadType is the object type of `lead` in where expressions.
func leadType() cty.Type {
	attrs := map[string]cty.Type{}
	for _, f := range LeadFields {
		attrs[f] = cty.String
	}
	return cty.Object(attrs)
}

// checkWhere checks a where expression's references and that it yields a
// bool for a lead whose fields are not known yet.
func (l *loader) checkWhere(a *hcl.Attribute) bool {
	if !l.add(l.checkRefs(a.Expr, scope{lead: true})) {
		return false
	}
	ctx := l.evalContext(map[string]cty.Value{"lead": cty.UnknownVal(leadType())})
	v, ds := a.Expr.Value(ctx)
	if !l.add(ds) {
		return false
	}
	v, _ = v.UnmarkDeep()
	if ty := v.Type(); ty != cty.Bool && ty != cty.DynamicPseudoType {
		l.errorf(a.Expr.Range().Ptr(), "Invalid where", "where must be true or false for each lead, like lead.company != \"\"; this expression gives %s.", typeName(ty))
		return false
	}
	return true
}
