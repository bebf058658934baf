package arguments

import "testing"

func TestParsePlan(t *testing.T) {
	checkParse(t, (*PlanFlags).Register, ParsePlan, []parseCase[*Plan]{
		{line: nil, want: &Plan{}},
		{line: []string{"--out", "leads.plan", "--detailed-exitcode", "--offline"},
			want: &Plan{Out: "leads.plan", DetailedExitcode: true, Offline: true}},
		{line: []string{"--json", "--target", `search.cto["Berlin"]`, "--target", "profile.founder", "--replace", "search.cfo"},
			want: &Plan{View: ViewJSON, Targets: []string{`search.cto["Berlin"]`, "profile.founder"}, Replace: []string{"search.cfo"}}},
		{line: []string{"--markdown", "--compare-to", "base.json"}, want: &Plan{View: ViewMarkdown, CompareTo: "base.json"}},
		{line: []string{"--take-over"}, want: &Plan{TakeOver: true}},
		{line: []string{"--var", "k=v", "--var-file", "a.leadvars.hcl", "--var", "k=w"},
			want: &Plan{Vars: Vars{Vars: []string{"k=v", "k=w"}, Files: []string{"a.leadvars.hcl"}}}},
		{line: []string{"--markdown", "--json"}, err: "--markdown and --json cannot be used together: choose one form"},
		{line: []string{"--compare-to", "base.json"}, err: "--compare-to needs --markdown: the difference is shown in the pull-request comment"},
		{line: []string{"--json", "--compare-to", "base.json"}, err: "--compare-to needs --markdown: the difference is shown in the pull-request comment"},
		{line: []string{"leads.plan"}, err: `leadsync plan takes no arguments, got "leads.plan"`, usage: true},
	})
}
