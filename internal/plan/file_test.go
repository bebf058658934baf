package plan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

func TestSaveLoad(t *testing.T) {
	f := designFixture()
	f.cfg.API.APIKey = "key-never-saved"
	f.cfg.Variables["token"] = &config.Variable{Name: "token", Sensitive: true, Value: cty.StringVal("CTO")}
	f.ran(`search.cto["Hamburg"]`, t0.Add(-9*day), ids(1, 3)...)
	p := f.build(t, f.opts())
	path := filepath.Join(t.TempDir(), "leads.plan")
	if err := Save(path, p); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	for _, secret := range []string{"key-never-saved", "CTO"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("plan file holds %q", secret)
		}
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(p, got); diff != "" {
		t.Errorf("loaded plan differs (-saved +loaded):\n%s", diff)
	}
	if err := got.Stale(f.cfg, f.st); err != nil {
		t.Errorf("fresh plan is stale: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestLoadRefusesGarbage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, content, want string }{
		{"empty", "", "not a leadsync plan file"},
		{"text", "hello", "not a leadsync plan file"},
		{"state", `{"format_version":1,"lineage":"x"}`, "not a leadsync plan file"},
		{"newer", `{"kind":"leadsync-plan","format_version":"2"}`, `plan format_version "2"; this leadsync reads "1"`},
		{"damaged", `{"kind":"leadsync-plan","format_version":"1","changes":[{"address":""}]}`, "does not match its checksum"},
		{"bad type", `{"kind":"leadsync-plan","format_version":"1","serial":"x"}`, "does not match its checksum"},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		os.WriteFile(path, []byte(tt.content), 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	missing := filepath.Join(dir, "missing")
	if _, err := Load(missing); err == nil || err.Error() != "reading plan file "+missing+`: no such file or directory; save one with "leadsync plan --out `+missing+`"` || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestStale(t *testing.T) {
	f := designFixture()
	p := f.build(t, f.opts())
	tests := []struct {
		name   string
		change func(cfg *config.Config, st *state.State)
		want   string
	}{
		{"same", func(*config.Config, *state.State) {}, ""},
		{"config", func(c *config.Config, _ *state.State) { c.Hash = "other" }, "the configuration (or a variable value) changed"},
		{"serial", func(_ *config.Config, s *state.State) { s.Serial++ }, "the state changed since the plan was made (serial 7, now 8)"},
		{"lineage", func(_ *config.Config, s *state.State) { s.Lineage = "other" }, "made from another state"},
		{"default named", func(c *config.Config, _ *state.State) { c.Workspace = "default" }, ""},
		{"workspace", func(c *config.Config, _ *state.State) { c.Workspace = "uk"; c.Hash = "other" },
			`it was made in workspace "default", and this command uses workspace "uk"; apply it in its workspace: leadsync --workspace default apply PLANFILE`},
	}
	for _, tt := range tests {
		cfg, st := *f.cfg, *f.st
		tt.change(&cfg, &st)
		err := p.Stale(&cfg, &st)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tt.name, err)
			}
			continue
		}
		if err == nil || !errors.Is(err, ErrStale) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// A plan made in uk records it, and is applied only there.
	cfg := *f.cfg
	cfg.Workspace = "uk"
	uk, diags := Build(&cfg, f.st, f.opts())
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if uk.Workspace != "uk" || p.Workspace != "" {
		t.Fatalf("plans record workspaces %q and %q", uk.Workspace, p.Workspace)
	}
	if err := uk.Stale(&cfg, f.st); err != nil {
		t.Errorf("in its workspace: %v", err)
	}
	if err := uk.Stale(f.cfg, f.st); err == nil || !strings.Contains(err.Error(), `made in workspace "uk", and this command uses workspace "default"; apply it in its workspace: leadsync --workspace uk apply PLANFILE`) {
		t.Errorf("in the default workspace: %v", err)
	}
	// Before any state was written, every fresh state matches.
	p.Lineage, p.Serial = "", 0
	if err := p.Stale(f.cfg, &state.State{Lineage: "b"}); err != nil {
		t.Errorf("unwritten states: %v", err)
	}
	if err := p.Stale(f.cfg, &state.State{Lineage: "b", Serial: 1}); err == nil || !strings.Contains(err.Error(), "there was no state when the plan was made") {
		t.Errorf("state written since: %v", err)
	}
}

// FuzzDecode feeds arbitrary bytes to the plan file parser: it must never
// panic, and whatever it accepts must survive a save and a load unchanged.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"kind":"leadsync-plan","format_version":"1","changes":[{"address":"search.a","kind":"search","action":"run"}]}`))
	f.Add([]byte(`{"kind":"leadsync-plan","format_version":"1","changes":[null]}`))
	f.Add([]byte(`{"kind":"leadsync-plan","format_version":"2"}`))
	f.Add([]byte(`[]`))
	// A plan as Save writes it, checksum and all.
	saved := filepath.Join(f.TempDir(), "seed.plan")
	if err := Save(saved, &Plan{FormatVersion: FormatVersion, Changes: []*Change{{Address: "search.a", Kind: kind.Search, Action: Run, Calls: 1, CallsMax: 1}}}); err != nil {
		f.Fatal(err)
	}
	seed, err := os.ReadFile(saved)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// What follows the checksum is parsed as if the checksum held, so
		// that the fuzzer reaches the parser behind it.
		p, err := Decode("fuzz.plan", data)
		if errors.Is(err, ErrEdited) {
			p, err = decodeBody("fuzz.plan", data)
		}
		if err != nil {
			return
		}
		path := filepath.Join(t.TempDir(), "p")
		if err := Save(path, p); err != nil {
			t.Fatal(err)
		}
		q, err := Load(path)
		if err != nil {
			t.Fatalf("a plan Decode accepted does not load after Save: %v", err)
		}
		if diff := cmp.Diff(p, q); diff != "" {
			t.Errorf("round trip differs:\n%s", diff)
		}
	})
}

// TestSaveErrorsNameThePath: a missing folder or a directory given as the
// file is said plainly, without the temporary file's name.
func TestSaveErrorsNameThePath(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ path, want string }{
		{filepath.Join(dir, "missing", "x.plan"), "the folder " + filepath.Join(dir, "missing") + " does not exist; create it or save the plan elsewhere"},
		{dir, "that is a directory; give a file name, like " + filepath.Join(dir, "leads.plan")},
	}
	for _, tt := range tests {
		err := Save(tt.path, &Plan{FormatVersion: FormatVersion})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), ".tmp-") {
			t.Errorf("Save(%s) = %v, want it to say %q", tt.path, err, tt.want)
		}
	}
}

// TestSaveNeverOverwritesWhatIsNotAPlan: plan --out over a configuration
// file, the state or any other file is refused and leaves it as it was; an
// earlier plan and an empty file are overwritten.
func TestSaveNeverOverwritesWhatIsNotAPlan(t *testing.T) {
	dir := t.TempDir()
	p := &Plan{FormatVersion: FormatVersion}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct{ name, content, want string }{
		{"main.leads.hcl", "search \"a\" {}\n", "is configuration, never a plan"},
		{"new.leads.hcl", "", "is configuration, never a plan"},
		{"prod.leadvars.hcl", "x = 1\n", "is configuration, never a plan"},
		{"state.json", `{"format_version": 1, "lineage": "x"}`, "is not a leadsync plan; leadsync does not overwrite it"},
		{"notes.txt", "my notes", "is not a leadsync plan; leadsync does not overwrite it"},
	} {
		path := filepath.Join(dir, tc.name)
		if tc.content != "" || !strings.HasSuffix(tc.name, ".hcl") {
			path = write(tc.name, tc.content)
		}
		err := Save(path, p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Save over %s = %v, want it refused (%q)", tc.name, err, tc.want)
		}
		if b, _ := os.ReadFile(path); string(b) != tc.content {
			t.Errorf("%s changed to %q", tc.name, b)
		}
	}
	old := filepath.Join(dir, "leads.plan")
	if err := Save(old, p); err != nil {
		t.Fatal(err)
	}
	if err := Save(old, p); err != nil {
		t.Errorf("Save over an earlier plan: %v", err)
	}
	if err := Save(write("empty.plan", ""), p); err != nil {
		t.Errorf("Save over an empty file: %v", err)
	}
	// The hint for a file that is no plan never suggests writing over it.
	if _, err := Load(write("other.leads.hcl", "x = 1\n")); err == nil || strings.Contains(err.Error(), "--out "+filepath.Join(dir, "other.leads.hcl")) {
		t.Errorf("Load of a configuration file: %v", err)
	}
}

// FuzzDecodeBase: the base plan of --compare-to (a plan --json or a saved
// plan, from a file anyone can edit) never panics, and a plan it accepts
// has no nil change and no null list.
func FuzzDecodeBase(f *testing.F) {
	f.Add([]byte(`{"format_version":"1","changes":[],"totals":{}}`))
	f.Add([]byte(`{"format_version":"1","changes":[{"address":"search.a","calls_max":3}],"totals":{"calls_max":3},"diagnostics":null}`))
	f.Add([]byte(`{"kind":"leadsync-plan","format_version":"1","changes":[]}`))
	f.Add([]byte(`{"format_version":"2","changes":[],"totals":{}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeBase("base.json", data)
		if err != nil {
			return
		}
		if p.Changes == nil || p.Diagnostics == nil || p.Targets == nil {
			t.Fatalf("null list in an accepted plan: %+v", p)
		}
		for _, c := range p.Changes {
			if c == nil || c.Address == "" {
				t.Fatalf("accepted a change without an address: %+v", c)
			}
		}
	})
}

// TestEditedPlanIsRefused: a saved plan carries a checksum of its whole
// content; a file changed after plan --out wrote it (an up-to-date search
// made to run, a bound lowered, even the spacing) is refused, with a
// message that says so and how to make it again.
func TestEditedPlanIsRefused(t *testing.T) {
	f := designFixture()
	f.ran(`search.cto["Hamburg"]`, t0.Add(-time.Hour), ids(1, 3)...)
	p := f.build(t, f.opts())
	path := filepath.Join(t.TempDir(), "leads.plan")
	if err := Save(path, p); err != nil {
		t.Fatal(err)
	}
	saved, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(saved), `"checksum": "sha256:`) {
		t.Fatalf("the saved plan has no checksum:\n%s", saved)
	}
	for _, tc := range []struct {
		name, old, new string
	}{
		{"action none to run", `"action": "none"`, `"action": "run"`},
		{"credits_max lowered", `"credits_max": 50`, `"credits_max": 1`},
		{"spacing", "\n  ", "\n   "},
		{"checksum removed", `"checksum": "sha256:`, `"checksum_": "sha256:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(saved), tc.old) {
				t.Fatalf("the saved plan has no %q:\n%s", tc.old, saved)
			}
			edited := filepath.Join(t.TempDir(), "edited.plan")
			if err := os.WriteFile(edited, []byte(strings.Replace(string(saved), tc.old, tc.new, 1)), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Load(edited)
			if err == nil || !errors.Is(err, ErrEdited) || !strings.Contains(err.Error(), edited+": ") || !strings.Contains(err.Error(), `leadsync plan --out`) {
				t.Errorf("edited plan: %v; want it refused as edited, naming the file and how to make it again", err)
			}
		})
	}
	if _, err := Load(path); err != nil {
		t.Errorf("the plan as saved: %v", err)
	}
}

// TestForgedPlanIsHeldToTheConfiguration: a plan file's checksum is no
// security boundary (a SHA-256 anyone can compute again), so Within holds
// a saved plan, however edited, to what the configuration and the state
// it was made from allow: an up-to-date search made to run, a bound
// raised past the enrich block's limit, totals raised, are refused; the
// plan as made passes, also when it was made online (the billing answer)
// with targets.
func TestForgedPlanIsHeldToTheConfiguration(t *testing.T) {
	f := designFixture()
	f.ran(`search.cto["Hamburg"]`, t0.Add(-time.Hour), ids(1, 3)...)
	for _, tc := range []struct {
		name string
		edit func(p *Plan)
		want string // "" for none
	}{
		{"as made", func(*Plan) {}, ""},
		{"an up-to-date search made to run", func(p *Plan) {
			c := p.Change(`search.cto["Hamburg"]`)
			c.Action, c.Calls, c.CallsMax = Run, 1, 1
			p.Totals.CallsMax++
		}, `run search.cto["Hamburg"], which they do not call for`},
		{"enrichments past the block's limit", func(p *Plan) {
			c := p.Change("enrich.cto_contacts")
			c.CallsMax, c.CreditsMax = c.CallsMax+10, c.CreditsMax+10
		}, "for enrich.cto_contacts, where they allow 50 calls"},
		{"totals raised", func(p *Plan) { p.Totals.CreditsMax += 100 }, "credits in all, where they allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := f.build(t, f.opts())
			tc.edit(p)
			err := p.Within("leads.plan", f.cfg, f.st)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("the plan as made is refused: %v", err)
			case tc.want != "" && (err == nil || !errors.Is(err, ErrBeyondConfig) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "leads.plan: ")):
				t.Fatalf("edited plan: %v; want it refused saying %q", err, tc.want)
			}
		})
	}
	o := f.opts()
	o.Targets = []string{"enrich.cto_contacts"}
	if err := f.build(t, o).Within("leads.plan", f.cfg, f.st); err != nil {
		t.Errorf("a targeted plan as made is refused: %v", err)
	}
}
