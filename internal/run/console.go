package run

import (
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// ConsoleResult is what one line typed at leadsync console gave.
type ConsoleResult struct {
	// Value is the value of an expression (not for a where).
	Value cty.Value
	// Where is set for a line "where EXPR": Matched of Total people of the
	// state pass EXPR (an enrich block's where, on lead.<field>); Names
	// are the first of them, by person ID.
	Where          bool
	Matched, Total int
	Names          []string
	// Diags are the line's errors (parse or evaluation); Err a where that
	// failed on a person.
	Diags hcl.Diagnostics
	Err   error
}

// consoleNames is how many people a where result names.
const consoleNames = 5

// ConsoleLine evaluates one line of leadsync console: an expression, with
// var.*, local.* and the functions of cfg; or "where EXPR", an enrich
// block's where tried on every person of st. Nothing is written.
func ConsoleLine(cfg *config.Config, st *state.State, line string) ConsoleResult {
	src, isWhere := strings.CutPrefix(strings.TrimSpace(line), "where ")
	expr, diags := config.ParseExpression(src)
	if diags.HasErrors() {
		return ConsoleResult{Diags: diags}
	}
	if !isWhere {
		v, diags := cfg.Eval(expr)
		return ConsoleResult{Value: v, Diags: diags}
	}
	r := ConsoleResult{Where: true, Total: len(st.People)}
	ids := make([]string, 0, len(st.People))
	for id := range st.People {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		p := st.People[id]
		ok, err := cfg.MatchWhere(expr, p.Lead)
		if err != nil {
			return ConsoleResult{Where: true, Err: err}
		}
		if !ok {
			continue
		}
		r.Matched++
		if len(r.Names) < consoleNames {
			name := p.Lead.FullName
			if name == "" {
				name = "person." + id
			}
			r.Names = append(r.Names, name)
		}
	}
	return r
}
