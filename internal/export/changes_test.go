package export

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// drifted gives people of the fixture histories: Jürgen changed jobs (seen
// by the track, 10 days before the export), O'Connor's location changed
// (seen by the Berlin search, 40 days before), the formula person left the
// network (seen by the track, 2 days before).
func drifted(st *state.State) {
	at := func(days int) time.Time { return fixedAt.Add(-time.Duration(days) * 24 * time.Hour) }
	j := st.People["n-1"]
	j.Enrichment = &state.Enrichment{EnrichedAt: at(100), By: "enrich.x", Result: api.EnrichedProfile{Email: "j@baeckerei.example", ValidationStatus: api.StatusValid, CompanyDomain: "baeckerei.example"}}
	j.History = []state.Drift{
		{Field: state.DriftTitle, Before: "CTO", After: "VP Engineering", At: at(10), By: "track.champions", Call: state.CallTrack},
		{Field: state.DriftCompany, Before: "Bäckerei Größe GmbH", After: "=Rheinbank", At: at(10), By: "track.champions", Call: state.CallTrack},
	}
	st.People["n-2"].History = []state.Drift{{Field: state.DriftLocation, Before: "Köln", After: "Bonn", At: at(40), By: berlin, Call: state.CallSearch}}
	for _, p := range st.People {
		if p.Lead.PageName == "formula" || p.ID == "n-3" {
			p.Status = state.StatusLeft
			p.History = []state.Drift{{Field: state.DriftStatus, Before: "public", After: state.StatusLeft, At: at(2), By: "track.champions", Call: state.CallTrack}}
		}
	}
}

func TestChangesSheet(t *testing.T) {
	for _, path := range []string{"x.xlsx", "x.csv"} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			sh := &config.Sheet{Name: "Job changes", Changes: []string{"track.champions", "search.cto"}}
			cfg, st := fixture(path, sh)
			cfg.Dir = dir
			drifted(st)
			read := func() [][]string {
				t.Helper()
				if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
					t.Fatal(err)
				}
				if path == "x.xlsx" {
					return rows(t, openXLSX(t, filepath.Join(dir, path)), "Job changes")
				}
				return readCSV(t, filepath.Join(dir, path), false)
			}
			got := read()
			// A value that looks like a formula stays text: quoted in CSV.
			formula := "=Rheinbank"
			if path == "x.csv" {
				formula = "'=Rheinbank"
			}
			jurgen := "https://network.example/profile/J%C3%BCrgen_M%C3%BCller"
			// Jürgen's e-mail is his former employer's: no current e-mail.
			want := [][]string{
				{"Person", "Field", "Before", "After", "Seen at", "Seen by", "Current e-mail", "Profile"},
				{"Siobhán O'Connor", "location", "Köln", "Bonn", "", berlin, "s@oreilly.example", "https://network.example/profile/Siobhan_OConnor"},
				{"Jürgen Müller-Lüdenscheidt", "title", "CTO", "VP Engineering", "", "track.champions", "", jurgen},
				{"Jürgen Müller-Lüdenscheidt", "company", "Bäckerei Größe GmbH", formula, "", "track.champions", "", jurgen},
			}
			if len(got) < 5 {
				t.Fatalf("rows %q", got)
			}
			// The seen-at cells are dates; compare the rest.
			for i := range got {
				if i > 0 && got[i][4] == "" {
					t.Errorf("row %d has no time", i)
				}
				if i > 0 {
					got[i][4] = ""
				}
			}
			if !reflect.DeepEqual(got[:4], want) {
				t.Errorf("rows:\n got %q\nwant %q", got[:4], want)
			}
			if last := got[4]; last[1] != "status" || last[3] != "left the network" || last[5] != "track.champions" {
				t.Errorf("the last row %q, want the person who left", last)
			}
			// since keeps the changes of the last 30 days; where the people.
			sh.Since = 30 * 24 * time.Hour
			if got := read(); len(got) != 4 || got[1][0] != "Jürgen Müller-Lüdenscheidt" {
				t.Errorf("since 30d: %q", got)
			}
			sh.Where, sh.WhereFields = whereExpr(t, `person.fullName == "Jürgen Müller-Lüdenscheidt"`), []string{"fullName"}
			if got := read(); len(got) != 3 {
				t.Errorf("where: %q", got)
			}
		})
	}
}

func whereExpr(t *testing.T, src string) hcl.Expression {
	t.Helper()
	e, ds := hclsyntax.ParseExpression([]byte(src), "main.leads.hcl", hcl.InitialPos)
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return e
}

// TestSheetWhereAndStaleEmails: a sheet's where keeps the people for whom
// it holds, reading their cells (person.validationStatus as shown); a
// person whose company changed after their enrichment shows no e-mail, no
// domain, and "former employer" as the e-mail status.
func TestSheetWhereAndStaleEmails(t *testing.T) {
	dir := t.TempDir()
	sh := &config.Sheet{Name: "Reachable", From: []string{"search.cto"}, Dedupe: true, Columns: []string{"pageName", "email", "validationStatus", "companyDomain"},
		Where: whereExpr(t, `person.validationStatus == "valid" || person.validationStatus == "former employer"`), WhereFields: []string{"validationStatus"}}
	cfg, st := fixture("x.csv", sh)
	cfg.Dir = dir
	drifted(st)
	st.People["n-2"].Enrichment = &state.Enrichment{EnrichedAt: t1, Result: api.EnrichedProfile{Email: "s@oreilly.example", ValidationStatus: api.StatusValid, CompanyDomain: "oreilly.example"}}
	st.People["n-4"].Enrichment = &state.Enrichment{EnrichedAt: t1, Result: api.EnrichedProfile{ValidationStatus: api.StatusEmpty}}
	if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	got := readCSV(t, filepath.Join(dir, "x.csv"), false)
	want := [][]string{
		{"Page name", "E-mail", "E-mail status", "Company domain"},
		{"Jürgen_Müller", "", FormerEmployer, ""},
		{"Siobhan_OConnor", "s@oreilly.example", "valid", "oreilly.example"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("rows:\n got %q\nwant %q", got, want)
	}
}
