package config

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
)

// leadValue is `lead` for a where expression: the lead fields whose row in
// person.PersonFields has Where (LeadFields).
func leadValue(lead person.Lead) cty.Value {
	m := make(map[string]cty.Value, len(LeadFields))
	for _, f := range person.LeadFields {
		if f.Where {
			m[f.Key] = cty.StringVal(*f.Lead(&lead))
		}
	}
	return cty.ObjectVal(m)
}

// Match reports whether lead passes the where expression of e (true when e
// has none). A where that fails to evaluate or gives something other than
// true or false is an error naming the place in the configuration. Match is
// safe for concurrent use: each call evaluates in its own child context.
func (c *Config) Match(e *Enrich, lead person.Lead) (bool, error) {
	if e == nil || e.Where == nil {
		return true, nil
	}
	base := e.ctx
	if base == nil {
		base = c.evalCtx
	}
	if base == nil {
		base = &hcl.EvalContext{}
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{"lead": leadValue(lead)}
	v, ds := e.Where.Value(ctx)
	where := e.Where.Range()
	if ds.HasErrors() {
		var msgs []string
		for _, d := range ds.Errs() {
			msgs = append(msgs, d.Error())
		}
		return false, fmt.Errorf("%s: where of %s: %s", shortRange(where), e.Address, c.Scrub(strings.Join(msgs, "; ")))
	}
	v, _ = v.UnmarkDeep()
	if v.IsNull() || !v.IsKnown() {
		return false, fmt.Errorf("%s: where of %s gave null; it must give true or false", shortRange(where), e.Address)
	}
	if v.Type() != cty.Bool {
		return false, fmt.Errorf("%s: where of %s gave %s; it must give true or false", shortRange(where), e.Address, typeName(v.Type()))
	}
	return v.True(), nil
}
