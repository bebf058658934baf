package config

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
)

// leadValue is `lead` for a where expression: the lead fields whose row in
// person.PersonFields has Where (LeadFields); with narrow, only those of
// keys (whereLeadKeys).
func leadValue(lead person.Lead, keys []string, narrow bool) cty.Value {
	n := len(LeadFields)
	if narrow {
		n = len(keys)
	}
	m := make(map[string]cty.Value, n)
	for _, f := range person.LeadFields {
		if f.Where && (!narrow || slices.Contains(keys, f.Key)) {
			m[f.Key] = cty.StringVal(*f.Lead(&lead))
		}
	}
	return cty.ObjectVal(m)
}

// whereLeadKeys are the keys of the lead fields expr reads, and true,
// when it reads lead only by the name of such a field (lead.company, as
// checkRefs allows): the other fields cannot change what it gives or how
// it fails, so Match leaves them out (a plan evaluates where on millions
// of leads). False when it reads lead otherwise (lead whole, lead["x"]).
func whereLeadKeys(expr hcl.Expression) ([]string, bool) {
	var keys []string
	for _, t := range expr.Variables() {
		if t.RootName() != "lead" {
			continue
		}
		if len(t) < 2 {
			return nil, false
		}
		a, ok := t[1].(hcl.TraverseAttr)
		if !ok || !slices.ContainsFunc(person.LeadFields, func(f *person.PersonField) bool { return f.Where && f.Key == a.Name }) {
			return nil, false
		}
		if !slices.Contains(keys, a.Name) {
			keys = append(keys, a.Name)
		}
	}
	return keys, true
}

// Match reports whether lead passes the where expression of e (true when e
// has none). A where that fails to evaluate or gives something other than
// true or false is an error naming the place in the configuration. Match is
// safe for concurrent use: each call evaluates in its own child context.
func (c *Config) Match(e *Enrich, lead person.Lead) (bool, error) {
	if e == nil || e.Where == nil {
		return true, nil
	}
	if e.memo == nil || !e.narrow {
		return c.match(e, lead)
	}
	if r, found := e.memo.get(&lead, e.leadKeys); found {
		return r.ok, r.err
	}
	ok, err := c.match(e, lead)
	e.memo.put(&lead, e.leadKeys, ok, err)
	return ok, err
}

// match is Match without its memo: where evaluated on lead.
func (c *Config) match(e *Enrich, lead person.Lead) (bool, error) {
	base := e.ctx
	if base == nil {
		base = c.evalCtx
	}
	if base == nil {
		base = &hcl.EvalContext{}
	}
	ctx := base.NewChild()
	ctx.Variables = map[string]cty.Value{"lead": leadValue(lead, e.leadKeys, e.narrow)}
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
