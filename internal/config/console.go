package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
)

// ConsoleFile names the expressions leadsync console reads, in diagnostics.
const ConsoleFile = "<console>"

// ParseExpression parses one expression typed at leadsync console.
func ParseExpression(src string) (hcl.Expression, hcl.Diagnostics) {
	return hclsyntax.ParseExpression([]byte(src), ConsoleFile, hcl.InitialPos)
}

// Eval evaluates expr as the configuration's attributes are: with var.*,
// local.* and the functions. A sensitive value stays marked: the caller
// shows it as such.
func (c *Config) Eval(expr hcl.Expression) (cty.Value, hcl.Diagnostics) {
	ctx := c.evalCtx
	if ctx == nil {
		ctx = &hcl.EvalContext{}
	}
	return expr.Value(ctx)
}

// MatchWhere is Match for a where expression that is not in the
// configuration (leadsync console's where): whether lead passes it.
func (c *Config) MatchWhere(where hcl.Expression, lead person.Lead) (bool, error) {
	return c.Match(&Enrich{Address: "the console", Where: where}, lead)
}
