package arguments

import (
	"testing"
	"time"
)

func TestParseApply(t *testing.T) {
	checkParse(t, (*ApplyFlags).Register, ParseApply, []parseCase[*Apply]{
		{line: nil, want: &Apply{}},
		{line: []string{"leads.plan"}, want: &Apply{PlanFile: "leads.plan"}},
		{line: []string{"--auto-approve", "--json", "--parallelism", "4", "--lock-timeout", "5m"},
			want: &Apply{AutoApprove: true, View: ViewJSON, Parallelism: 4, LockTimeout: 5 * time.Minute}},
		{line: []string{"--json", "leads.plan"}, want: &Apply{PlanFile: "leads.plan", View: ViewJSON}},
		{line: []string{"--take-over", "leads.plan"}, want: &Apply{PlanFile: "leads.plan", TakeOver: true}},
		{line: []string{"--target", "search.cto", "--replace", "profile.founder"},
			want: &Apply{Targets: []string{"search.cto"}, Replace: []string{"profile.founder"}}},
		{line: []string{"a.plan", "b.plan"}, err: `leadsync apply takes at most 1 argument ([PLANFILE]), got "a.plan" "b.plan"`, usage: true},
		{line: []string{"--target", "search.cto", "leads.plan"},
			err: "--target and --replace cannot be used with a saved plan: they were fixed when the plan was made"},
		{line: []string{"leads.plan", "--replace", "search.cto"},
			err: "--target and --replace cannot be used with a saved plan: they were fixed when the plan was made"},
		{line: []string{"--json"}, err: "--json needs --auto-approve or a saved plan: a JSON stream cannot ask for confirmation"},
		{line: []string{"--parallelism", "0"}, err: "--parallelism must be at least 1, got 0"},
		{line: []string{"--parallelism", "-3"}, err: "--parallelism must be at least 1, got -3"},
		{line: []string{"--lock-timeout", "-1m"}, err: "--lock-timeout -1m0s: want a duration of 0 or more, like 5m (0: do not wait)"},
	})
}

// TestApplyParallelismFlag: the flag reads as an int in the help, and a
// value that is not a number is refused by the flag itself.
func TestApplyParallelismFlag(t *testing.T) {
	if _, err := parseLine((*ApplyFlags).Register, ParseApply, []string{"--parallelism", "many"}); err == nil ||
		err.Error() != `invalid argument "many" for "--parallelism" flag: want a whole number` {
		t.Errorf("error %v", err)
	}
	var fl ApplyFlags
	if fl.Parallelism.Type() != "int" || fl.Parallelism.String() != "" {
		t.Errorf("type %q, unset value %q", fl.Parallelism.Type(), fl.Parallelism.String())
	}
	_ = fl.Parallelism.Set("7")
	if fl.Parallelism.String() != "7" {
		t.Errorf("set value %q", fl.Parallelism.String())
	}
}
