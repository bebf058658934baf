package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/xuri/excelize/v2"
)

const exportTestConfig = `
api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
  city     = "Berlin"
}

profile "founder" {
  page_name = "Max_Mustermann"
}

export "marketing" {
  path = "out/leads.xlsx"
  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "email", "firstSeen"]
  }
}

export "crm" {
  path = "out/crm.csv"
  sheet "Leads" {
    from = [search.cto, profile.founder]
  }
}
`

// noCalls is an HTTP transport that fails every request: export makes none.
type noCalls struct{ t *testing.T }

func (n noCalls) RoundTrip(r *http.Request) (*http.Response, error) {
	n.t.Errorf("export made a call: %s %s", r.Method, r.URL)
	return nil, errors.New("no calls allowed")
}

// exportTestFactory is a world with a fixed clock, dir as the working
// directory and an HTTP client that fails the test on any call.
func exportTestFactory(t *testing.T, dir string) *Factory {
	return &Factory{
		Getenv:     func(string) string { return "" },
		Environ:    func() []string { return nil },
		Now:        func() time.Time { return time.Date(2026, 11, 21, 8, 0, 0, 0, time.UTC) },
		Dir:        dir,
		HTTPClient: &http.Client{Transport: noCalls{t}},
	}
}

func TestExportWritesFromStateWithoutCalls(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(exportTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	st := state.New()
	st.Searches["search.cto"] = &state.Search{Address: "search.cto", RanAt: seen, ResultCount: 2, LeadIDs: []string{"p1", "p2"}}
	st.Profiles["profile.founder"] = &state.ProfileRead{Address: "profile.founder", ReadAt: seen, PersonID: "p3"}
	st.People["p1"] = &state.Person{ID: "p1", Lead: person.Lead{FullName: "Jürgen Müller", NetworkID: "p1"}, FirstSeen: seen, LastSeen: seen,
		FoundBy:    []string{"search.cto"},
		Enrichment: &state.Enrichment{EnrichedAt: seen, Result: person.EnrichedProfile{Email: "j@example.com", ValidationStatus: "valid"}}}
	st.People["p2"] = &state.Person{ID: "p2", Lead: person.Lead{FullName: "=1+1", NetworkID: "p2"}, FirstSeen: seen, LastSeen: seen, FoundBy: []string{"search.cto"}}
	st.People["p3"] = &state.Person{ID: "p3", Lead: person.Lead{FullName: "Max Mustermann", PageName: "Max_Mustermann"}, FirstSeen: seen, LastSeen: seen, FoundBy: []string{"profile.founder"}}
	if err := local.NewStore(filepath.Join(dir, ".leadsync/state.db")).Save(st); err != nil {
		t.Fatal(err)
	}

	streams, _, out, errOut := TestStreams()
	f := exportTestFactory(t, dir)
	f.IO = streams
	if code := Run(context.Background(), f, []string{"export"}); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := "Wrote out/leads.xlsx (1 sheet + Summary, 2 rows) from export.marketing.\n" +
		"Wrote out/crm.csv (3 rows) from export.crm.\n" +
		"Wrote out/crm.summary.csv (summary) from export.crm.\n"
	if out.String() != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if errOut.String() != "" {
		t.Errorf("stderr: %s", errOut)
	}

	x, err := excelize.OpenFile(filepath.Join(dir, "out/leads.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	rows, err := x.GetRows("CTOs")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[1][0] != "Jürgen Müller" || rows[1][1] != "j@example.com" || rows[2][0] != "=1+1" || rows[1][2] != "2026-11-20 10:00" {
		t.Errorf("CTOs rows = %q", rows)
	}

	fh, err := os.Open(filepath.Join(dir, "out/crm.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	recs, err := csv.NewReader(fh).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 4 || recs[2][2] != "'=1+1" || recs[3][2] != "Max Mustermann" {
		t.Errorf("crm.csv = %q", recs)
	}
}

func TestExportWithoutStateAndJSON(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(exportTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	streams, _, _, errOut := TestStreams()
	f := exportTestFactory(t, dir)
	f.IO = streams
	if code := Run(context.Background(), f, []string{"export"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut.String(), "Note: no state at .leadsync/state.db yet") {
		t.Errorf("stderr: %s", errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "state.db")); err == nil {
		t.Errorf("export created a state file")
	}
	// The working copy records what it wrote, from which state (none yet).
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "exports.json")); err != nil {
		t.Errorf("export left no record of the files it wrote: %v", err)
	}

	streams, _, out, errOut := TestStreams()
	f.IO = streams
	if code := Run(context.Background(), f, []string{"export", "--json"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		FormatVersion string `json:"format_version"`
		Written       []struct {
			Path     string   `json:"path"`
			Export   string   `json:"export"`
			Rows     int      `json:"rows"`
			Warnings []string `json:"warnings"`
		} `json:"written"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.FormatVersion != "1" || len(got.Written) != 3 || got.Written[0].Path != "out/leads.xlsx" || len(got.Written[0].Warnings) != 0 {
		t.Errorf("json = %+v", got)
	}
}

func TestExportRefusesInvalidConfig(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(exportTestConfig, `"email"`, `"shoeSize"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	streams, _, out, errOut := TestStreams()
	f := exportTestFactory(t, dir)
	f.IO = streams
	if code := Run(context.Background(), f, []string{"export"}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if out.String() != "" || !strings.Contains(errOut.String(), "shoeSize") {
		t.Errorf("stdout %q, stderr %q", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Errorf("an invalid configuration wrote files")
	}
}

// TestExportJSONErrors: with --json, an invalid configuration or a damaged
// state still gives one JSON object on stdout (a script reads it), exit 1.
func TestExportJSONErrors(t *testing.T) {
	dir := t.TempDir()
	bad := strings.Replace(exportTestConfig, `"email"`, `"shoeSize"`, 1)
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runIn(t, dir, "export", "--json")
	// export's own schema (written, error), with the diagnostics.
	var v struct {
		FormatVersion string   `json:"format_version"`
		Written       []string `json:"written"`
		Error         string   `json:"error"`
		Diagnostics   []struct {
			Detail string `json:"detail"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(out), &v); code != 1 || err != nil || v.FormatVersion != "1" || v.Written == nil || v.Error != "Unknown column" || len(v.Diagnostics) == 0 || !strings.Contains(v.Diagnostics[0].Detail, "shoeSize") {
		t.Errorf("invalid configuration: exit %d, %v, stdout %q", code, err, out)
	}

	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(exportTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".leadsync"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".leadsync", "state.db"), []byte(`{"format_version":1,`), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = runIn(t, dir, "export", "--json")
	var e struct {
		FormatVersion string `json:"format_version"`
		Written       []any  `json:"written"`
		Error         string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &e); code != 1 || err != nil || e.FormatVersion != "1" || e.Written == nil || !strings.Contains(e.Error, "is damaged") {
		t.Errorf("damaged state: exit %d, %v, stdout %q", code, err, out)
	}
}
