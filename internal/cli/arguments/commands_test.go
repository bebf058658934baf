package arguments

import (
	"errors"
	"testing"
)

// The parsers of the commands with few choices, one table each.

func TestParseValidate(t *testing.T) {
	checkParse(t, (*ValidateFlags).Register, ParseValidate, []parseCase[*Validate]{
		{line: nil, want: &Validate{}},
		{line: []string{"--json", "--var-file", "prod.leadvars.hcl"}, want: &Validate{View: ViewJSON, Vars: Vars{Files: []string{"prod.leadvars.hcl"}}}},
		{line: []string{"extra"}, err: `leadsync validate takes no arguments, got "extra"`, usage: true},
	})
}

func TestParseConsole(t *testing.T) {
	checkParse(t, (*ConsoleFlags).Register, ParseConsole, []parseCase[*Console]{
		{line: nil, want: &Console{}},
		{line: []string{"--var", "market=uk", "--var-file", "uk.leadvars.hcl", "--state", "old.json"},
			want: &Console{State: State{Path: "old.json", Vars: Vars{Vars: []string{"market=uk"}, Files: []string{"uk.leadvars.hcl"}}}}},
		{line: []string{"local.cities"}, err: `leadsync console takes no arguments, got "local.cities"; it reads expressions from standard input: echo 'local.cities' | leadsync console`, usage: true},
	})
}

func TestParseFmt(t *testing.T) {
	checkParse(t, (*FmtFlags).Register, ParseFmt, []parseCase[*Fmt]{
		{line: nil, want: &Fmt{Paths: []string{"."}}},
		{line: []string{"--check", "--diff", "--recursive", "a.leads.hcl", "conf"},
			want: &Fmt{Check: true, Diff: true, Recursive: true, Paths: []string{"a.leads.hcl", "conf"}}},
		{line: []string{"-"}, want: &Fmt{Paths: []string{"-"}}},
		{line: []string{"-", "a.leads.hcl", "-"}, err: `fmt: "-" (standard input) is named more than once: standard input can be read once`},
	})
}

func TestParseCompletion(t *testing.T) {
	checkParse(t, (*CompletionFlags).Register, ParseCompletion, []parseCase[*Completion]{
		{line: []string{"bash"}, want: &Completion{Shell: "bash"}},
		{line: []string{"powershell"}, want: &Completion{Shell: "powershell"}},
		{line: []string{"tcsh"}, err: `leadsync completion: "tcsh" is not one of bash, fish, powershell, zsh`, usage: true},
		{line: nil, err: "leadsync completion takes exactly 1 argument (bash|zsh|fish|powershell), got none", usage: true},
	})
}

func TestParseVersion(t *testing.T) {
	checkParse(t, (*VersionFlags).Register, ParseVersion, []parseCase[*Version]{
		{line: nil, want: &Version{}},
		{line: []string{"now"}, err: `leadsync version takes no arguments, got "now"`, usage: true},
	})
}

func TestParseHelp(t *testing.T) {
	checkParse(t, (*HelpFlags).Register, ParseHelp, []parseCase[*Help]{
		{line: nil, want: &Help{}},
		{line: []string{"state", "rm"}, want: &Help{Topic: []string{"state", "rm"}}},
	})
}

func TestParseExport(t *testing.T) {
	checkParse(t, (*ExportFlags).Register, ParseExport, []parseCase[*Export]{
		{line: nil, want: &Export{}},
		{line: []string{"--bom", "--json"}, want: &Export{BOM: true, View: ViewJSON}},
		{line: []string{"out.xlsx"}, err: `leadsync export takes no arguments, got "out.xlsx"`, usage: true},
	})
}

func TestParseFields(t *testing.T) {
	checkParse(t, (*FieldsFlags).Register, ParseFields, []parseCase[*Fields]{
		{line: nil, want: &Fields{}},
		{line: []string{"--refresh", "--json"}, want: &Fields{Refresh: true, View: ViewJSON}},
		{line: []string{"city"}, err: `leadsync fields takes no arguments, got "city"`, usage: true},
	})
}

func TestParseUsage(t *testing.T) {
	checkParse(t, (*UsageFlags).Register, ParseUsage, []parseCase[*Usage]{
		{line: nil, want: &Usage{}},
		{line: []string{"--json"}, want: &Usage{View: ViewJSON}},
		{line: []string{"month"}, err: `leadsync usage takes no arguments, got "month"`, usage: true},
	})
}

func TestParseForceUnlock(t *testing.T) {
	checkParse(t, (*ForceUnlockFlags).Register, ParseForceUnlock, []parseCase[*ForceUnlock]{
		{line: []string{"0f8fad5b"}, want: &ForceUnlock{LockID: "0f8fad5b"}},
		{line: []string{"--force", "--state", "s.json", "0f8fad5b"}, want: &ForceUnlock{LockID: "0f8fad5b", Force: true, State: State{Path: "s.json"}}},
		{line: nil, err: "leadsync force-unlock takes exactly 1 argument (LOCK_ID), got none", usage: true},
		{line: []string{" "}, err: `force-unlock: LOCK_ID is empty; give the ID that the "state is locked" message (or leadsync show) prints`},
	})
}

func TestParseForget(t *testing.T) {
	checkParse(t, (*ForgetFlags).Register, ParseForget, []parseCase[*Forget]{
		{line: []string{"ACoAAB12345", "Max_Mustermann"}, want: &Forget{People: []string{"ACoAAB12345", "Max_Mustermann"}}},
		{line: nil, err: "leadsync forget takes at least 1 argument (PERSON...), got none", usage: true},
		{line: []string{"Max_Mustermann", "  "}, err: ErrBlankPerson.Error()},
		{line: []string{"--lock-timeout", "-1s", "x"}, err: "--lock-timeout -1s: want a duration of 0 or more, like 5m (0: do not wait)"},
	})
	if _, err := ParseForget(ForgetFlags{}, []string{""}); !errors.Is(err, ErrBlankPerson) {
		t.Errorf("blank PERSON: %v, want ErrBlankPerson", err)
	}
}

func TestParseWorkspaces(t *testing.T) {
	checkParse(t, (*WorkspaceListFlags).Register, ParseWorkspaceList, []parseCase[*WorkspaceList]{
		{line: nil, want: &WorkspaceList{}},
		{line: []string{"uk"}, err: `leadsync workspace list takes no arguments, got "uk"`, usage: true},
	})
	checkParse(t, (*WorkspaceNewFlags).Register, ParseWorkspaceNew, []parseCase[*WorkspaceNew]{
		{line: []string{"uk"}, want: &WorkspaceNew{Name: "uk"}},
		{line: nil, err: "leadsync workspace new takes exactly 1 argument (NAME), got none", usage: true},
	})
	checkParse(t, (*WorkspaceDeleteFlags).Register, ParseWorkspaceDelete, []parseCase[*WorkspaceDelete]{
		{line: []string{"uk", "--force"}, want: &WorkspaceDelete{Name: "uk", Force: true}},
		{line: []string{"uk", "de"}, err: `leadsync workspace delete takes exactly 1 argument (NAME), got "uk" "de"`, usage: true},
	})
	checkParse(t, (*WorkspaceSelectFlags).Register, ParseWorkspaceSelect, []parseCase[*WorkspaceSelect]{
		{line: []string{"uk"}, want: &WorkspaceSelect{Name: "uk"}},
		{line: []string{"--or-create", "campaign"}, want: &WorkspaceSelect{Name: "campaign", OrCreate: true}},
		{line: nil, err: "leadsync workspace select takes exactly 1 argument (NAME), got none", usage: true},
		{line: []string{"uk", "de"}, err: `leadsync workspace select takes exactly 1 argument (NAME), got "uk" "de"`, usage: true},
	})
	checkParse(t, (*WorkspaceShowFlags).Register, ParseWorkspaceShow, []parseCase[*WorkspaceShow]{
		{line: nil, want: &WorkspaceShow{}},
		{line: []string{"uk"}, err: `leadsync workspace show takes no arguments, got "uk"`, usage: true},
	})
}
