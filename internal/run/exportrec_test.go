package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run/exportrec"
	"github.com/leadsync/leadsync/internal/state/local"
)

// twoExports is testConfig with a second export, in CSV with two sheets.
const twoExports = testConfig + `
export "crm" {
  path = "out/crm.csv"
  sheet "Berlin" {
    from    = [search.s["Berlin"]]
    columns = ["fullName", "company"]
  }
  sheet "Hamburg" {
    from = [search.s["Hamburg"]]
  }
}
`

func loadConfigText(t *testing.T, dir, src string) *config.Config {
	t.Helper()
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return cfg
}

func readRecord(t *testing.T, dir string) *exportrec.Records {
	t.Helper()
	r, err := exportrec.Read(filepath.Join(dir, ".leadsync", "exports.json"))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// warnings collects what an operation warns about.
type warnings []string

func (w *warnings) add(msg string) { *w = append(*w, msg) }

func planOf(t *testing.T, d Deps, cfg *config.Config) (*plan.Plan, []string) {
	t.Helper()
	p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Offline: true})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	var warns []string
	for _, dg := range diags {
		warns = append(warns, dg.Summary)
	}
	return p, warns
}

// TestApplyRecordsExportsAfterTheCommit: the record names the state as
// committed (its serial raised by the commit), the configuration and the
// files, so that the next plan finds everything up to date.
func TestApplyRecordsExportsAfterTheCommit(t *testing.T) {
	d, b, _, dir := newDeps(t)
	cfg := loadConfigText(t, dir, twoExports)
	before, err := d.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "load, lock apply, load, journal, commit, unlock"; got != want {
		t.Errorf("backend use %s; want %s", got, want)
	}
	st, err := d.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial <= before.Serial {
		t.Fatalf("serial %d after the apply", st.Serial)
	}
	recs := readRecord(t, dir)
	if len(recs.Exports) != 2 {
		t.Fatalf("records: %+v", recs.Exports)
	}
	for _, x := range cfg.Exports {
		rec := recs.Exports[x.Address]
		if rec == nil {
			t.Fatalf("no record of %s", x.Address)
		}
		if !rec.From.Equal(st.DataMark()) {
			t.Errorf("%s recorded as written from %+v; the committed state is %+v", x.Address, rec.From, st.DataMark())
		}
		if rec.ConfigDigest != cfg.ExportDigest(x) || !rec.WrittenAt.Equal(t0) {
			t.Errorf("%s: digest %s at %s", x.Address, rec.ConfigDigest, rec.WrittenAt)
		}
	}
	if got := strings.Join(recs.Exports["export.crm"].Files, " "); got != "out/crm-berlin.csv out/crm-hamburg.csv out/crm.summary.csv" {
		t.Errorf("files of export.crm: %s", got)
	}
	fi, err := os.Stat(filepath.Join(dir, ".leadsync", "exports.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("record mode %v (%v); want 0600", fi.Mode().Perm(), err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, ".leadsync", "exports.json"))
	for id := range st.People {
		if strings.Contains(string(raw), id) {
			t.Fatalf("the record names person %s", id)
		}
	}
	if p, _ := planOf(t, d, cfg); p.HasChanges() {
		t.Errorf("plan after the apply has changes: %+v %+v", p.Change("export.all"), p.Change("export.crm"))
	}
}

// TestApplyOfExportsOnly: a plan whose only changes are spreadsheets to
// write makes no call, opens no journal, commits nothing (the serial
// stays) and writes only the planned spreadsheets; the other stays up to
// date.
func TestApplyOfExportsOnly(t *testing.T) {
	d, b, n, dir := newDeps(t)
	cfg := loadConfigText(t, dir, twoExports)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	st1, _ := d.Backend.Load()
	all1 := readRecord(t, dir).Exports["export.all"]

	cfg2 := loadConfigText(t, dir, strings.Replace(twoExports, `columns = ["fullName", "company"]`, `columns = ["company", "fullName", "email"]`, 1))
	p, _ := planOf(t, d, cfg2)
	if c := p.Change("export.crm"); c.Action != plan.Write || c.Reason != plan.ReasonConfigChanged {
		t.Fatalf("export.crm: %s %s", c.Action, c.Reason)
	}
	if c := p.Change("export.all"); c.Action != plan.None {
		t.Fatalf("export.all: %s %s", c.Action, c.Reason)
	}

	b.ops, n.searches = nil, 0
	v := &recView{}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg2, AutoApprove: true}, v); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock apply, load, unlock"; got != want || n.searches != 0 {
		t.Errorf("backend use %s, searches %d; want %s and none", got, n.searches, want)
	}
	var files []string
	for _, w := range v.written {
		files = append(files, filepath.Base(w.Path))
		if w.Export != "export.crm" {
			t.Errorf("wrote %s of %s, which was up to date", w.Path, w.Export)
		}
	}
	if got := strings.Join(files, " "); got != "crm-berlin.csv crm-hamburg.csv crm.summary.csv" {
		t.Errorf("files written: %s", got)
	}
	head, err := os.ReadFile(filepath.Join(dir, "out", "crm-berlin.csv"))
	if err != nil || !strings.HasPrefix(string(head), "Company,Full name,E-mail\r\n") {
		t.Errorf("crm-berlin.csv starts %q (%v)", strings.SplitN(string(head), "\n", 2)[0], err)
	}
	st2, _ := d.Backend.Load()
	if st2.Serial != st1.Serial {
		t.Errorf("serial %d -> %d: an apply that only writes spreadsheets changed the state", st1.Serial, st2.Serial)
	}
	recs := readRecord(t, dir)
	if rec := recs.Exports["export.crm"]; rec.ConfigDigest != cfg2.ExportDigest(cfg2.Exports[1]) || !rec.From.Equal(st2.DataMark()) {
		t.Errorf("export.crm's record: %+v", rec)
	}
	if rec := recs.Exports["export.all"]; !rec.WrittenAt.Equal(all1.WrittenAt) || !rec.From.Equal(all1.From) {
		t.Errorf("export.all's record changed: %+v, was %+v", rec, all1)
	}
	if p, _ := planOf(t, d, cfg2); p.HasChanges() {
		t.Errorf("plan after the apply has changes: %+v", p.Changes)
	}
}

// TestStateChangedSinceTheWrite: a change of state by another command
// (state rm here, as forget) makes the next plan write the spreadsheets,
// and the apply leaves the record naming the state it wrote from.
func TestStateChangedSinceTheWrite(t *testing.T) {
	d, _, n, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	st, _ := d.Backend.Load()
	victim := ""
	for _, sr := range st.Searches {
		victim = sr.LeadIDs[0]
	}
	if csv, err := os.ReadFile(filepath.Join(dir, "out", "all.csv")); err != nil || !strings.Contains(string(csv), victim) {
		t.Fatalf("person %s is not in out/all.csv to begin with (%v)", victim, err)
	}
	if _, err := StateRm(d, []string{"person." + victim}); err != nil {
		t.Fatal(err)
	}
	p, _ := planOf(t, d, cfg)
	if c := p.Change("export.all"); c.Action != plan.Write || c.Reason != plan.ReasonStateNewer {
		t.Fatalf("export.all after state rm: %s %s", c.Action, c.Reason)
	}
	n.searches = 0
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join(dir, "out", "all.csv"))
	if err != nil || strings.Contains(string(csv), victim) || n.searches != 0 {
		t.Errorf("after the apply: %v, person still listed %v, searches %d", err, strings.Contains(string(csv), victim), n.searches)
	}
	if p, _ := planOf(t, d, cfg); p.HasChanges() {
		t.Errorf("plan after the apply has changes: %+v", p.Change("export.all"))
	}
}

// TestDamagedExportRecord: a record that cannot be read breaks nothing:
// plan warns once and writes every export, apply warns and rewrites them,
// and the record is whole again.
func TestDamagedExportRecord(t *testing.T) {
	d, _, _, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".leadsync", "exports.json")
	if err := os.WriteFile(path, []byte(`{"format_version": 1, "exports": {"export.all": {"files": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, warns := planOf(t, d, cfg)
	if len(warns) != 1 || !strings.HasPrefix(warns[0], ".leadsync/exports.json cannot be read (") || !strings.Contains(warns[0], "every export will be written again") {
		t.Errorf("plan warnings: %q", warns)
	}
	if c := p.Change("export.all"); c.Action != plan.Write || c.Reason != plan.ReasonNoRecord {
		t.Errorf("export.all: %s %s", c.Action, c.Reason)
	}
	var w warnings
	v := &recView{}
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true, Warn: w.add}, v); err != nil {
		t.Fatal(err)
	}
	if len(w) != 1 || strings.Contains(w[0], "\n") || len(v.written) != 2 {
		t.Errorf("apply warned %q and wrote %d files; want one line and 2 files", w, len(v.written))
	}
	if p, warns := planOf(t, d, cfg); p.HasChanges() || len(warns) != 0 {
		t.Errorf("after the apply: changes %v, warnings %q", p.HasChanges(), warns)
	}
}

// TestExportRecordUnwritable: a record that cannot be written is a
// warning; the spreadsheets are written and the next plan writes them
// again.
func TestExportRecordUnwritable(t *testing.T) {
	d, _, _, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	if err := os.MkdirAll(filepath.Join(dir, ".leadsync", "exports.json"), 0o700); err != nil {
		t.Fatal(err)
	}
	var w warnings
	written, err := Export(d, ExportOptions{Config: cfg, Warn: w.add})
	if err != nil || len(written) != 2 {
		t.Fatalf("export: %v, %d files", err, len(written))
	}
	if len(w) != 2 || !strings.Contains(w[0], "cannot be read") || !strings.Contains(w[1], "cannot record the exports written in .leadsync/exports.json") {
		t.Errorf("warnings %q", w)
	}
}

// TestExportCommandRecords: leadsync export records what it wrote; an
// export that fails loses its record (some of its files may be new, some
// old) while those written before it keep theirs.
func TestExportCommandRecords(t *testing.T) {
	d, b, _, dir := newDeps(t)
	cfg := loadConfigText(t, dir, twoExports)
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
		t.Fatal(err)
	}
	cfg2 := loadConfigText(t, dir, strings.Replace(twoExports, `columns = ["fullName", "company"]`, `columns = ["company"]`, 1))
	b.ops = nil
	if _, err := Export(d, ExportOptions{Config: cfg2}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.ops, ", "); got != "load" {
		t.Errorf("export used the backend for %s; want a load", got)
	}
	if p, _ := planOf(t, d, cfg2); p.HasChanges() {
		t.Errorf("plan after export: %+v", p.Change("export.crm"))
	}

	// export.crm's summary file cannot be written: a folder stands there.
	summary := filepath.Join(dir, "out", "crm.summary.csv")
	if err := os.Remove(summary); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(summary, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Export(d, ExportOptions{Config: cfg}); err == nil {
		t.Fatal("export over a folder succeeded")
	}
	recs := readRecord(t, dir)
	if recs.Exports["export.crm"] != nil || recs.Exports["export.all"] == nil {
		t.Errorf("records after a failed export.crm: %v", recs.Exports)
	}
	if rec := recs.Exports["export.all"]; rec.ConfigDigest != cfg.ExportDigest(cfg.Exports[0]) {
		t.Errorf("export.all's record: %+v", rec)
	}

	// An export gone from the configuration leaves the record.
	if _, err := Export(d, ExportOptions{Config: loadConfig(t, dir)}); err != nil {
		t.Fatal(err)
	}
	if recs := readRecord(t, dir); len(recs.Exports) != 1 || recs.Exports["export.all"] == nil {
		t.Errorf("records: %v", recs.Exports)
	}
}

// inWorkspace is d and the configuration src of workspace ws ("" for the
// default), with its own local state beside the default one, in dir.
func inWorkspace(t *testing.T, d Deps, dir, ws, src string) (Deps, *config.Config) {
	t.Helper()
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, Workspace: ws, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if ws != "" {
		d.Backend = &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "workspaces", ws, "state.json"))}
	}
	return d, cfg
}

// TestExportRecordsByWorkspace: each workspace has its own record of an
// export. With a path per workspace (leadsync.workspace), an apply in one
// leaves the other's spreadsheet up to date; with one path for both, the
// write in one drops the other's record (the file holds the other
// workspace's data now), so switching back writes it again.
func TestExportRecordsByWorkspace(t *testing.T) {
	for _, c := range []struct {
		name, path string
		// rewrite is whether the default workspace writes again after
		// uk wrote.
		rewrite bool
	}{
		{"per workspace", "out/${leadsync.workspace}.csv", false},
		{"shared", "out/all.csv", true},
		{"shared, other case", "${leadsync.workspace == \"uk\" ? \"OUT/./All.csv\" : \"out/all.csv\"}", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, _, _, dir := newDeps(t)
			src := strings.Replace(testConfig, `path = "out/all.csv"`, `path = "`+c.path+`"`, 1)
			if !strings.Contains(src, c.path) {
				t.Fatal("the path was not replaced")
			}
			dDef, cfgDef := inWorkspace(t, d, dir, "", src)
			dUK, cfgUK := inWorkspace(t, d, dir, "uk", src)
			for _, w := range []struct {
				d   Deps
				cfg *config.Config
			}{{dDef, cfgDef}, {dUK, cfgUK}} {
				if err := Apply(context.Background(), w.d, ApplyOptions{Config: w.cfg, AutoApprove: true}, &recView{}); err != nil {
					t.Fatal(err)
				}
				if p, _ := planOf(t, w.d, w.cfg); p.HasChanges() {
					t.Fatalf("workspace %q: plan right after its apply: %+v", w.cfg.Workspace, p.Change("export.all"))
				}
			}
			recs := readRecord(t, dir)
			if got := recs.Exports["uk/export.all"]; got == nil || got.From.Workspace != "uk" {
				t.Errorf("uk's record: %+v", got)
			}
			if p, _ := planOf(t, dUK, cfgUK); p.HasChanges() {
				t.Errorf("uk after its own apply: %+v", p.Change("export.all"))
			}
			p, _ := planOf(t, dDef, cfgDef)
			ch := p.Change("export.all")
			if !c.rewrite {
				if ch.Action != plan.None || recs.Exports["export.all"] == nil {
					t.Errorf("default after uk's apply: %s %s (%s); records %v", ch.Action, ch.Reason, ch.Detail, recs.Exports)
				}
				return
			}
			if ch.Action != plan.Write || ch.Reason != plan.ReasonNoRecord || recs.Exports["export.all"] != nil {
				t.Errorf("default after uk wrote the same file: %s %s; records %v", ch.Action, ch.Reason, recs.Exports)
			}
			// Writing it back drops uk's record in turn.
			if err := Apply(context.Background(), dDef, ApplyOptions{Config: cfgDef, AutoApprove: true}, &recView{}); err != nil {
				t.Fatal(err)
			}
			if recs := readRecord(t, dir); recs.Exports["uk/export.all"] != nil || recs.Exports["export.all"] == nil {
				t.Errorf("records after the default wrote back: %v", recs.Exports)
			}
		})
	}
}

// TestExportRecordsOfOtherWorkspacesStay: an export gone from this
// workspace's configuration loses its record here only; another
// workspace's record of an address this one has not (for_each on
// leadsync.workspace) stays; old records, keyed by address, are the
// default workspace's.
func TestExportRecordsOfOtherWorkspacesStay(t *testing.T) {
	d, _, _, dir := newDeps(t)
	path := filepath.Join(dir, ".leadsync", "exports.json")
	old := &exportrec.Record{Files: []string{"out/old.csv"}, ConfigDigest: "x"}
	if err := exportrec.Write(path, &exportrec.Records{Exports: map[string]*exportrec.Record{
		"export.gone":        old,
		"uk/export.gone":     old,
		`uk/export.x["a/b"]`: old,
	}}); err != nil {
		t.Fatal(err)
	}
	cfg := loadConfig(t, dir)
	if _, err := Export(d, ExportOptions{Config: cfg}); err != nil {
		t.Fatal(err)
	}
	recs := readRecord(t, dir)
	if recs.Exports["export.gone"] != nil || recs.Exports["uk/export.gone"] == nil || recs.Exports[`uk/export.x["a/b"]`] == nil || recs.Exports["export.all"] == nil {
		t.Errorf("records: %v", recs.Exports)
	}
}
