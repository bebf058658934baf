package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"
)

// ciExample is the CI example's folder.
const ciExample = "../../examples/ci"

// TestCIExampleCommandsExist parses the GitHub Actions workflow and the
// pre-commit configuration of examples/ci and checks that every leadsync
// command they run exists, with those flags and arguments: a renamed flag
// must not leave a team's CI broken.
func TestCIExampleCommandsExist(t *testing.T) {
	var scripts []string // shell scripts and hook entries, with where they are

	var wf struct {
		On   map[string]any `yaml:"on"`
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
				Uses string `yaml:"uses"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, filepath.Join(ciExample, ".github/workflows/leadsync.yml"), &wf)
	if wf.On["pull_request"] == nil || wf.On["push"] == nil {
		t.Errorf("the workflow runs on %v, want pull_request and push", wf.On)
	}
	for _, job := range []string{"plan", "apply"} {
		if len(wf.Jobs[job].Steps) == 0 {
			t.Errorf("the workflow has no %s job", job)
		}
		for _, st := range wf.Jobs[job].Steps {
			if st.Run != "" {
				scripts = append(scripts, st.Run)
			}
		}
	}

	var pc struct {
		Repos []struct {
			Hooks []struct {
				ID    string `yaml:"id"`
				Entry string `yaml:"entry"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	readYAML(t, filepath.Join(ciExample, ".pre-commit-config.yaml"), &pc)
	hooks := 0
	for _, r := range pc.Repos {
		for _, h := range r.Hooks {
			scripts = append(scripts, h.Entry)
			hooks++
		}
	}
	if hooks < 2 {
		t.Errorf("%d pre-commit hooks, want fmt and validate", hooks)
	}

	var seen []string
	for _, s := range scripts {
		for _, args := range leadsyncInvocations(s) {
			seen = append(seen, strings.Join(args, " "))
			if err := checkInvocation(args); err != nil {
				t.Errorf("leadsync %s: %v", strings.Join(args, " "), err)
			}
		}
	}
	// The commands the example promises, each at least once.
	for _, want := range []string{"fmt --check", "validate", "plan --out", "--markdown", "--compare-to", "plan --offline --json", "apply leads.plan"} {
		found := false
		for _, s := range seen {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("no leadsync command with %q in the example; it runs: %q", want, seen)
		}
	}
}

// TestCIExampleConfigIsValid: the lead lists shipped with the example
// validate and are formatted.
func TestCIExampleConfigIsValid(t *testing.T) {
	dir := filepath.Join(ciExample, "leads")
	if code, out, errOut := runIn(t, dir, "validate"); code != 0 {
		t.Errorf("validate: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := runIn(t, dir, "fmt", "--check"); code != 0 {
		t.Errorf("fmt --check: exit %d\n%s%s", code, out, errOut)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

var assignRE = regexp.MustCompile(`(?m)\b([A-Za-z_][A-Za-z0-9_]*)="([^"$]*)"`)

// leadsyncInvocations returns the arguments of each leadsync command in a
// shell script: lines joined at a trailing backslash, variables set in the
// script to a literal expanded, words split as the shell does for quotes,
// and a command ending at a redirection or a control operator.
func leadsyncInvocations(script string) [][]string {
	script = strings.ReplaceAll(script, "\\\n", " ")
	vars := map[string]string{}
	for _, m := range assignRE.FindAllStringSubmatch(script, -1) {
		if m[2] != "" {
			vars[m[1]] = m[2]
		}
	}
	var out [][]string
	for _, line := range strings.Split(script, "\n") {
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ') {
			line = line[:i]
		}
		line = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`).ReplaceAllStringFunc(line, func(v string) string {
			name := strings.Trim(v, "${}")
			if val, ok := vars[name]; ok {
				return val
			}
			return v
		})
		words := shellWords(line)
		for i := 0; i < len(words); i++ {
			if words[i] != "leadsync" {
				continue
			}
			var args []string
			for _, w := range words[i+1:] {
				if w == ">" || w == "|" || w == "||" || w == "&&" || w == ";" || strings.HasPrefix(w, ">") || w == "2>&1" {
					break
				}
				args = append(args, w)
			}
			out = append(out, args)
		}
	}
	return out
}

// shellWords splits a line into words, honouring single and double quotes
// and keeping operators as words of their own.
func shellWords(line string) []string {
	var words []string
	var cur strings.Builder
	in := false
	var quote rune
	flush := func() {
		if in {
			words = append(words, cur.String())
			cur.Reset()
			in = false
		}
	}
	for _, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t':
			flush()
		case r == ';' || r == '|' || r == '>':
			flush()
			words = append(words, string(r))
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	flush()
	// Join "|" "|" into "||".
	var out []string
	for _, w := range words {
		if n := len(out); n > 0 && w == "|" && out[n-1] == "|" {
			out[n-1] = "||"
			continue
		}
		out = append(out, w)
	}
	return out
}

// checkInvocation finds the command of args in the real command tree and
// parses its flags and arguments as cobra would.
func checkInvocation(args []string) error {
	f, _, _ := configTestFactory(".")
	root := NewRootCmd(f)
	cmd, rest, err := root.Find(args)
	if err != nil {
		return err
	}
	if cmd == root {
		return errUnknownCommand(args)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return err
	}
	if cmd.Args != nil {
		return cmd.Args(cmd, cmd.Flags().Args())
	}
	return cobra.ArbitraryArgs(cmd, cmd.Flags().Args())
}

type errUnknownCommand []string

func (e errUnknownCommand) Error() string { return "no such leadsync command: " + strings.Join(e, " ") }

// TestCheckInvocation: the checker itself finds wrong commands, flags and
// arguments, and reads shell lines as the shell would.
func TestCheckInvocation(t *testing.T) {
	for _, tc := range []struct {
		script string
		ok     []bool
	}{
		{"leadsync plan --out x.plan --markdown > plan.md", []bool{true}},
		{"leadsync plan --markdwn", []bool{false}},
		{"leadsync nosuch", []bool{false}},
		{"leadsync --chdir ../base plan --offline --json > b.json || true", []bool{true}},
		{"leadsync show --markdown a.plan b.plan", []bool{false}},
		{"c=\"--compare-to b.json\"\nleadsync plan --markdown $c", []bool{true}},
		{"c=\"--compare-too b.json\"\nleadsync plan --markdown $c", []bool{false}},
		{"leadsync fmt --check && leadsync validate; leadsync apply x.plan \\\n  --json", []bool{true, true, true}},
		{"echo 'leadsync is great'", nil},
	} {
		invs := leadsyncInvocations(tc.script)
		if len(invs) != len(tc.ok) {
			t.Errorf("%q: %d invocations %q, want %d", tc.script, len(invs), invs, len(tc.ok))
			continue
		}
		for i, args := range invs {
			if err := checkInvocation(args); (err == nil) != tc.ok[i] {
				t.Errorf("%q: leadsync %q: error %v, want ok=%v", tc.script, args, err, tc.ok[i])
			}
		}
	}
}

// TestCIExampleIsSafe: the workflow can be dropped in as it is. Pull-request
// plans and main-branch applies have concurrency groups of their own (one
// shared group let a push cancel a queued apply), applies are never
// cancelled, every artifact (personal data) is kept a week at most,
// leadsync is built from its repository (go install ...@latest cannot
// fetch an unpublished module), and the lead lists set a profile link
// template (validated without a warning by TestCIExampleConfigIsValid).
func TestCIExampleIsSafe(t *testing.T) {
	path := filepath.Join(ciExample, ".github/workflows/leadsync.yml")
	var wf struct {
		Concurrency any `yaml:"concurrency"`
		Jobs        map[string]struct {
			Concurrency struct {
				Group            string `yaml:"group"`
				CancelInProgress bool   `yaml:"cancel-in-progress"`
			} `yaml:"concurrency"`
			Steps []struct {
				Uses string            `yaml:"uses"`
				Run  string            `yaml:"run"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	readYAML(t, path, &wf)
	if wf.Concurrency != nil {
		t.Errorf("a workflow-wide concurrency group (%v): plans and applies would share one queue", wf.Concurrency)
	}
	plan, apply := wf.Jobs["plan"].Concurrency, wf.Jobs["apply"].Concurrency
	if plan.Group == "" || apply.Group == "" || plan.Group == apply.Group {
		t.Errorf("concurrency groups: plan %q, apply %q; want one of its own each", plan.Group, apply.Group)
	}
	if !strings.Contains(plan.Group, "github.event.pull_request.number") {
		t.Errorf("plan group %q: want one per pull request", plan.Group)
	}
	if apply.CancelInProgress {
		t.Error("an apply in progress may be cancelled")
	}
	uploads := 0
	for name, job := range wf.Jobs {
		for _, st := range job.Steps {
			if strings.Contains(st.Run, "go install") {
				t.Errorf("job %s installs leadsync with go install: %q", name, st.Run)
			}
			if strings.HasPrefix(st.Uses, "actions/upload-artifact") {
				uploads++
				if d, err := strconv.Atoi(st.With["retention-days"]); err != nil || d > 7 {
					t.Errorf("job %s keeps the artifact %q for %q days; it holds personal data: at most 7", name, st.With["name"], st.With["retention-days"])
				}
			}
		}
	}
	if uploads != 2 {
		t.Errorf("%d artifacts uploaded, want the plan and the spreadsheets", uploads)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Personal data") {
		t.Error("the workflow does not say that its artifacts hold personal data")
	}
	cfg, err := os.ReadFile(filepath.Join(ciExample, "leads", "main.leads.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(cfg), "profile_url_template") {
		t.Error("the example's lead lists have no profile_url_template: their Profile columns stay empty")
	}
}
