package arguments

import "testing"

func TestParseOutput(t *testing.T) {
	checkParse(t, (*OutputFlags).Register, ParseOutput, []parseCase[*Output]{
		{line: nil, want: &Output{}},
		{line: []string{"ctos", "--json"}, want: &Output{Name: "ctos", View: ViewJSON}},
		{line: []string{"--state", "s.json", "--var", "a=b"}, want: &Output{State: State{Path: "s.json", Vars: Vars{Vars: []string{"a=b"}}}}},
		{line: []string{"a", "b"}, err: `leadsync output takes at most 1 argument ([NAME]), got "a" "b"`, usage: true},
	})
}
