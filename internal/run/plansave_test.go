package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/testenv"
)

// TestPlanOutRefusesStateFolders: plan --out never writes into leadsync's
// own state folders (a plan saved as the journal would be taken for one,
// and every command would refuse to run), whatever the case or a symbolic
// link of a folder; a file of the same name elsewhere is fine.
func TestPlanOutRefusesStateFolders(t *testing.T) {
	dir := t.TempDir()
	elsewhere := t.TempDir()
	for _, d := range []string{".leadsync", "state", "plans", "out/.leadsync"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// Windows may not allow symbolic links: that case is then skipped.
	linked := os.Symlink(".leadsync", filepath.Join(dir, "link")) == nil
	const ownFolder = "is leadsync's own state folder: save the plan elsewhere, like leads.plan"
	for _, c := range []struct {
		name, statePath, path, err string
	}{
		{"the journal", "", ".leadsync/state.json.journal", "saving the plan to .leadsync/state.json.journal: .leadsync/ " + ownFolder},
		{"any file there", "", ".leadsync/leads.plan", ".leadsync/ " + ownFolder},
		{"the folder itself", "", ".leadsync", ".leadsync/ " + ownFolder},
		{"another case", "", ".LeadSync/State.json.journal", ".leadsync/ " + ownFolder},
		{"through ..", "", "out/../.leadsync/state.json.lock", ".leadsync/ " + ownFolder},
		{"absolute", "", filepath.Join(dir, ".leadsync", "pace"), ".leadsync/ " + ownFolder},
		{"a workspace", "", ".leadsync/workspaces/uk/state.json.journal", ".leadsync/ " + ownFolder},
		{"through a link", "", "link/state.json.journal", ownFolder},
		{"with a state_path, still .leadsync", "state/leads.json", ".leadsync/exports.json", ".leadsync/ " + ownFolder},
		{"state_path itself", "state/leads.json", "state/leads.json", "saving the plan to state/leads.json: that is the state file, in leadsync's own state folder state/: save the plan elsewhere, like leads.plan"},
		{"state_path's journal", "state/leads.json", "state/leads.json.journal", "that is the state's journal"},
		{"state_path's lock", "state/leads.json", "state/Leads.JSON.lock", "that is the state's lock"},
		{"state_path's backup", "state/leads.json", "state/leads.json.backup", "that is the state's backup"},
		{"the pace file", "state/leads.json", "state/pace", "that is the pace file"},
		{"an export record", "state/leads.json", "state/exports.json", "that is the export record"},
		{"a workspace of state_path", "state/leads.json", "state/workspaces/uk/leads.json.journal", "state/workspaces/ " + ownFolder},
		{"the claims of state_path", "state/leads.json", "state/claims/claims.json", "state/claims/ " + ownFolder},
		{"an absolute state_path", filepath.Join(elsewhere, "leads.json"), filepath.Join(elsewhere, "leads.json.journal"), "that is the state's journal, in leadsync's own state folder " + elsewhere + string(filepath.Separator)},

		{"a plan", "", "leads.plan", ""},
		{"a plan in a subfolder", "", "plans/leads.plan", ""},
		{"a name like the folder", "", ".leadsync.plan", ""},
		{"another .leadsync folder", "", "out/.leadsync/leads.plan", ""},
		{"beside state_path", "state/leads.json", "state/leads.plan", ""},
		{"named after state_path", "state/leads.json", "state/leads.json.plan", ""},
		{"a configuration file", "", "main.leads.hcl", "is configuration, never a plan"},
		{"a folder that does not exist", "", "nowhere/leads.plan", "the folder " + filepath.Join(dir, "nowhere") + " does not exist"},
		{"the default state name beside state_path", "state/leads.json", "state/state.json.journal", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if strings.HasPrefix(c.path, "link/") && !linked {
				testenv.Skip(t, "no symbolic links here")
			}
			src := testConfig
			if c.statePath != "" {
				src += "leadsync {\n  state_path = \"" + filepath.ToSlash(c.statePath) + "\"\n}\n"
			}
			cfg := loadConfigText(t, dir, src)
			o := PlanOut{Config: cfg, StatePath: cfg.Settings.StatePath, Dir: dir, Path: filepath.FromSlash(c.path)}
			err := o.Check()
			switch {
			case c.err == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.err != "" && err == nil:
				t.Errorf("accepted; want an error containing %q", c.err)
			case c.err != "" && !strings.Contains(err.Error(), filepath.FromSlash(c.err)) && !strings.Contains(err.Error(), c.err):
				t.Errorf("error %q; want it to contain %q", err, c.err)
			}
		})
	}
}

// TestSavePlanRefusesTheJournal: with no journal present, saving the plan
// as the journal writes nothing (the state stays usable).
func TestSavePlanRefusesTheJournal(t *testing.T) {
	d, _, _, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	p, _ := planOf(t, d, cfg)
	err := SavePlan(PlanOut{Config: cfg, Dir: dir, Path: ".leadsync/state.json.journal"}, p)
	if err == nil || !strings.Contains(err.Error(), "leadsync's own state folder") {
		t.Fatalf("saving as the journal: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "state.json.journal")); !os.IsNotExist(err) {
		t.Errorf("a journal was written: %v", err)
	}
}
