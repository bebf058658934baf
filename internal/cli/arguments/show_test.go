package arguments

import "testing"

func TestParseShow(t *testing.T) {
	checkParse(t, (*ShowFlags).Register, ParseShow, []parseCase[*Show]{
		{line: nil, want: &Show{}},
		{line: []string{"--json"}, want: &Show{View: ViewJSON}},
		{line: []string{"--state", "backup.json"}, want: &Show{State: State{Path: "backup.json"}}},
		{line: []string{"leads.plan"}, want: &Show{PlanFile: "leads.plan"}},
		{line: []string{"--json", "leads.plan"}, want: &Show{PlanFile: "leads.plan", View: ViewJSON}},
		{line: []string{"--markdown", "--compare-to", "base.json", "leads.plan"},
			want: &Show{PlanFile: "leads.plan", View: ViewMarkdown, CompareTo: "base.json"}},
		{line: []string{"--markdown"}, err: "--markdown shows a saved plan: leadsync show --markdown PLANFILE"},
		{line: []string{"--markdown", "--json", "leads.plan"}, err: "--markdown and --json cannot be used together: choose one form"},
		{line: []string{"--compare-to", "base.json", "leads.plan"}, err: "--compare-to needs --markdown: the difference is shown in the pull-request comment"},
		{line: []string{"a.plan", "b.plan"}, err: `leadsync show takes at most 1 argument ([PLANFILE]), got "a.plan" "b.plan"`, usage: true},
	})
}
