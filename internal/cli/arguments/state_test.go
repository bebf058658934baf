package arguments

import (
	"testing"
	"time"
)

func TestParseStateList(t *testing.T) {
	checkParse(t, (*StateListFlags).Register, ParseStateList, []parseCase[*StateList]{
		{line: nil, want: &StateList{People: true}},
		{line: []string{"--no-people", "search.cto", "profile."},
			want: &StateList{Prefixes: []string{"search.cto", "profile."}}},
		{line: []string{"--json", "--state", "s.json", "--var", "a=b"},
			want: &StateList{People: true, View: ViewJSON, State: State{Path: "s.json", Vars: Vars{Vars: []string{"a=b"}}}}},
	})
}

func TestParseStateShow(t *testing.T) {
	checkParse(t, (*StateShowFlags).Register, ParseStateShow, []parseCase[*StateShow]{
		{line: []string{`search.cto["Berlin"]`}, want: &StateShow{Address: `search.cto["Berlin"]`}},
		{line: []string{"--json", "person.1.a"}, want: &StateShow{Address: "person.1.a", View: ViewJSON}},
		{line: nil, err: "leadsync state show takes exactly 1 argument (ADDRESS), got none", usage: true},
		{line: []string{"a", "b"}, err: `leadsync state show takes exactly 1 argument (ADDRESS), got "a" "b"`, usage: true},
	})
}

func TestParseStateRm(t *testing.T) {
	checkParse(t, (*StateRmFlags).Register, ParseStateRm, []parseCase[*StateRm]{
		{line: []string{"search.old", "person.1.a"}, want: &StateRm{Addresses: []string{"search.old", "person.1.a"}}},
		{line: []string{"--lock-timeout", "30s", "search.old"}, want: &StateRm{Addresses: []string{"search.old"}, LockTimeout: 30 * time.Second}},
		{line: nil, err: "leadsync state rm takes at least 1 argument (ADDRESS...), got none", usage: true},
		{line: []string{"--lock-timeout", "-5s", "search.old"}, err: "--lock-timeout -5s: want a duration of 0 or more, like 5m (0: do not wait)"},
	})
}

func TestParseStateMv(t *testing.T) {
	checkParse(t, (*StateMvFlags).Register, ParseStateMv, []parseCase[*StateMv]{
		{line: []string{"search.cto", "module.dach.search.cto"}, want: &StateMv{From: "search.cto", To: "module.dach.search.cto"}},
		{line: []string{"--lock-timeout", "1m", "--state", "s.json", "enrich.a", "enrich.b"},
			want: &StateMv{From: "enrich.a", To: "enrich.b", LockTimeout: time.Minute, State: State{Path: "s.json"}}},
		{line: []string{"search.cto"}, err: `leadsync state mv takes exactly 2 arguments (FROM TO), got "search.cto"`, usage: true},
		{line: nil, err: "leadsync state mv takes exactly 2 arguments (FROM TO), got none", usage: true},
		{line: []string{"--lock-timeout", "-1s", "a.b", "a.c"}, err: "--lock-timeout -1s: want a duration of 0 or more, like 5m (0: do not wait)"},
	})
}

func TestParseStateRecover(t *testing.T) {
	checkParse(t, (*StateRecoverFlags).Register, ParseStateRecover, []parseCase[*StateRecover]{
		{line: nil, want: &StateRecover{}},
		{line: []string{"--state", "backups/state.json"}, want: &StateRecover{State: State{Path: "backups/state.json"}}},
		{line: []string{"now"}, err: `leadsync state recover takes no arguments, got "now"`, usage: true},
	})
}

func TestParseStatePush(t *testing.T) {
	checkParse(t, (*StatePushFlags).Register, ParseStatePush, []parseCase[*StatePush]{
		{line: nil, want: &StatePush{}},
		{line: []string{"--from", "copy.json", "--force", "--lock-timeout", "1m"},
			want: &StatePush{From: "copy.json", Force: true, LockTimeout: time.Minute}},
		{line: []string{"copy.json"}, err: `leadsync state push takes no arguments, got "copy.json"`, usage: true},
		{line: []string{"--lock-timeout", "-1s"}, err: "--lock-timeout -1s: want a duration of 0 or more, like 5m (0: do not wait)"},
	})
}

func TestParseStatePull(t *testing.T) {
	checkParse(t, (*StatePullFlags).Register, ParseStatePull, []parseCase[*StatePull]{
		{line: nil, want: &StatePull{}},
		{line: []string{"--var-file", "prod.leadvars.hcl"}, want: &StatePull{Vars: Vars{Files: []string{"prod.leadvars.hcl"}}}},
		{line: []string{"out.json"}, err: `leadsync state pull takes no arguments, got "out.json"`, usage: true},
	})
}
