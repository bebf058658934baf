package config

import (
	"github.com/hashicorp/hcl/v2"
)

// Budget is leadsync { budget { ... } }: what the API account may spend
// per billing month, across runs, teammates and workspaces of the backend.
type Budget struct {
	// CreditsPerMonth and RequestsPerMonth are the limits; 0: none.
	CreditsPerMonth  int
	RequestsPerMonth int
	// Hard (enforce = "hard", the default) refuses a plan that may pass a
	// limit and stops an apply before it would; soft (enforce = "soft")
	// warns.
	Hard      bool
	DeclRange hcl.Range
}

// Enforce is how the budget is enforced, as written: "hard" or "soft".
func (b *Budget) Enforce() string {
	if b.Hard {
		return "hard"
	}
	return "soft"
}

var budgetSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "credits_per_month"}, {Name: "requests_per_month"}, {Name: "enforce"},
}}

func (l *loader) decodeBudget(blocks hcl.Blocks) {
	for i, b := range blocks {
		if i > 0 {
			l.errorf(b.DefRange.Ptr(), "Duplicate budget block", "There is already a budget block at %s; merge the two.", shortRange(blocks[0].DefRange))
			continue
		}
		content, _ := l.content(b, budgetSchema, "A budget block")
		at := content.Attributes
		bg := &Budget{Hard: true, DeclRange: b.DefRange}
		good := true
		if n, st := l.intAttr(at["credits_per_month"], l.base, scope{}, 1, -1); st == ok {
			bg.CreditsPerMonth = n
		} else if st == bad {
			good = false
		}
		if n, st := l.intAttr(at["requests_per_month"], l.base, scope{}, 1, -1); st == ok {
			bg.RequestsPerMonth = n
		} else if st == bad {
			good = false
		}
		if s, _, st := l.stringAttr(at["enforce"], l.base, scope{}, false); st == ok {
			switch s {
			case "hard":
			case "soft":
				bg.Hard = false
			default:
				l.errorf(at["enforce"].Expr.Range().Ptr(), "Invalid enforce", "enforce is \"hard\" (plan and apply refuse to pass the budget) or \"soft\" (they warn); got %q.", s)
				good = false
			}
		} else if st == bad {
			good = false
		}
		if good && bg.CreditsPerMonth == 0 && bg.RequestsPerMonth == 0 {
			l.errorf(b.DefRange.Ptr(), "Empty budget", "A budget sets credits_per_month, requests_per_month or both, like credits_per_month = 2000.")
			good = false
		}
		if good {
			l.cfg.Settings.Budget = bg
		}
	}
}
