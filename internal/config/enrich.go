package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

var enrichSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "from"}, {Name: "where"}, {Name: "limit"}, {Name: "refresh"}, {Name: "refresh_on"}, {Name: "for_each"}, {Name: "count"},
}}

func (l *loader) decodeEnrich(b *hcl.Block) {
	content, meant := l.content(b, enrichSchema, "An enrich block")
	l.noRepeat(content, "an enrich block already works on every lead of its from list. To enrich several groups differently, write several enrich blocks.")
	e := &Enrich{Address: l.prefix + "enrich." + b.Labels[0], Addr: l.blockAddr(kind.Enrich, b.Labels[0], ""), Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange, ctx: l.base}
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
			e.leadKeys, e.narrow = whereLeadKeys(a.Expr)
			e.memo = newWhereMemo(e.narrow)
		}
	}
	if n, astate := l.intAttr(at["limit"], l.base, scope{}, 1, -1); astate == ok {
		e.Limit = n
	}
	if d, astate := l.durationAttr(at["refresh"], l.base, scope{}); astate == ok {
		e.Refresh = d
	}
	if a := at["refresh_on"]; a != nil {
		e.RefreshOn = l.refreshOn(a)
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

// refreshOn decodes refresh_on: a list of RefreshOnFields, each once.
func (l *loader) refreshOn(a *hcl.Attribute) []string {
	fields, rngs, _, astate := l.stringListAttr(a, l.base, scope{}, `["company"]`)
	if astate != ok {
		return nil
	}
	var out []string
	for i, f := range fields {
		switch {
		case !contains(RefreshOnFields, f):
			hint := didYouMean(f, RefreshOnFields)
			if hint == "" {
				hint = " A change of company or title is what makes an e-mail go stale; a location (which only searches and enrichments see) does not."
			}
			l.errorf(rngs[i].Ptr(), "Unknown refresh_on field", "refresh_on takes %s; %q is not one of them.%s", textfmt.QuoteList(RefreshOnFields, " and "), f, hint)
		case contains(out, f):
			l.errorf(rngs[i].Ptr(), "Duplicate refresh_on field", "%q is listed twice.", f)
		default:
			out = append(out, f)
		}
	}
	return out
}
