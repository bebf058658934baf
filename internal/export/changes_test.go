package export

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// drifted gives people of the fixture histories: Jürgen changed jobs (seen
// by the track, 10 days before the export), O'Connor's location changed
// (seen by the Berlin search, 40 days before), the formula person left the
// network (seen by the track, 2 days before).
func drifted(st *state.State) {
	at := func(days int) time.Time { return fixedAt.Add(-time.Duration(days) * 24 * time.Hour) }
	j := st.People["n-1"]
	j.Enrichment = &state.Enrichment{EnrichedAt: at(100), By: "enrich.x", Result: person.EnrichedProfile{Email: "j@baeckerei.example", ValidationStatus: person.StatusValid, CompanyDomain: "baeckerei.example"}}
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
	st.People["n-2"].Enrichment = &state.Enrichment{EnrichedAt: t1, Result: person.EnrichedProfile{Email: "s@oreilly.example", ValidationStatus: person.StatusValid, CompanyDomain: "oreilly.example"}}
	st.People["n-4"].Enrichment = &state.Enrichment{EnrichedAt: t1, Result: person.EnrichedProfile{ValidationStatus: person.StatusEmpty}}
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

// TestLeftNetworkEmailNotCurrent: the e-mail of someone whose profile a
// read found gone after their enrichment is never shown as current, in
// either format: the e-mail cell is empty, the e-mail status says "left
// the network", the company and its domain (the last known) stay; the
// changes sheet shows no current e-mail for them; a where reads the same
// status; the Summary counts the e-mail. An e-mail found after they left
// (an import of another tool's newer list) is current again.
func TestLeftNetworkEmailNotCurrent(t *testing.T) {
	for _, path := range []string{"x.xlsx", "x.csv"} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			people := &config.Sheet{Name: "People", From: []string{berlin}, Dedupe: true, Columns: []string{"pageName", "company", "email", "validationStatus", "companyDomain"}}
			changes := &config.Sheet{Name: "Job changes", Changes: []string{"track.champions"}}
			gone := &config.Sheet{Name: "Gone", From: []string{berlin}, Dedupe: true, Columns: []string{"pageName"},
				Where: whereExpr(t, `person.validationStatus == "left the network"`), WhereFields: []string{"validationStatus"}}
			cfg, st := fixture(path, people, changes, gone)
			cfg.Dir = dir
			// Siobhán, enriched at t1, left the network a day later.
			left := t1.Add(24 * time.Hour)
			p := st.People["n-2"]
			p.Enrichment.Result.CompanyDomain = "oreilly.example"
			p.Status, p.StatusSince = state.StatusLeft, &left
			p.History = []state.Drift{{Field: state.DriftStatus, Before: "public", After: state.StatusLeft, At: left, By: "track.champions", Call: state.CallTrack}}
			sheet := func(name string) [][]string {
				t.Helper()
				if _, err := writeExports(cfg, st, Options{Now: fixedNow}); err != nil {
					t.Fatal(err)
				}
				if path == "x.xlsx" {
					return rows(t, openXLSX(t, filepath.Join(dir, path)), name)
				}
				file := map[string]string{"People": "x-people.csv", "Job changes": "x-job-changes.csv", "Gone": "x-gone.csv", "Summary": "x.summary.csv"}[name]
				return readCSV(t, filepath.Join(dir, file), false)
			}
			if got, want := sheet("People")[2], []string{"Siobhan_OConnor", "O'Reilly & Sons", "", LeftNetwork, "oreilly.example"}; !reflect.DeepEqual(got, want) {
				t.Errorf("her row %q, want %q", got, want)
			}
			ch := sheet("Job changes")
			if len(ch) != 2 || ch[1][1] != "status" || ch[1][3] != "left the network" || ch[1][6] != "" {
				t.Errorf("the changes sheet %q: want her status change with no current e-mail", ch)
			}
			if g := sheet("Gone"); len(g) != 2 || g[1][0] != "Siobhan_OConnor" {
				t.Errorf("where validationStatus == \"left the network\": %q", g)
			}
			summary := map[string]string{}
			for _, r := range sheet("Summary") {
				if len(r) > 1 {
					summary[r[0]] = r[1]
				}
			}
			if summary["E-mail of someone who left"] != "1" || summary["Left the network"] != "1" {
				t.Errorf("Summary: %q", summary)
			}
			// Another tool found her e-mail after she left: current again.
			p.Enrichment.EnrichedAt = left.Add(time.Hour)
			if got := sheet("People")[2]; got[2] != "s@oreilly.example" || got[3] != "catch all" {
				t.Errorf("an e-mail found after she left: %q", got)
			}
		})
	}
}
