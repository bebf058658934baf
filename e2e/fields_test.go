package e2e

// Every person field of the one table (person.PersonFields) goes the whole
// way: into a state file, through each backend, out again, into the
// spreadsheets and into a where.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// The tags of the values (statetest.FieldValue) of Hal's lead, enrichment
// and profile read, and of Ida's lead: each answer's values are its own,
// so that a field read from the wrong one shows.
const (
	halLead, halEnrichment, halProfile, idaLead = "hal", "hal's enrichment", "hal's profile", "ida"
)

// fieldsState is a state of two people: Hal, read (every profile field),
// enriched (every enrichment field) and then found by search.fields (every
// lead field, the newest answer: his lead holds it); and Ida, found by the
// same search, not enriched.
func fieldsState(t *testing.T) *state.State {
	t.Helper()
	s := state.New()
	// Hal's company is the same in his enrichment and in the search after
	// it: a search that showed another company would make his e-mail a
	// former employer's, never shown as current (docs/lists.md), and its
	// columns empty. His other fields differ by answer; the title and
	// location the search brings go into his history.
	halEnriched := statetest.FullEnrichment(halEnrichment, "1.hal", "hal", 96)
	halEnriched.Company = statetest.FieldValue("company", halLead)
	for _, e := range []state.Event{
		{At: statetest.Day(0), Kind: state.EventProfile, Address: "profile.hal", Profile: &state.ProfileEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"hal"}`), PageName: "hal", Profile: statetest.FullProfile(halProfile)}},
		{At: statetest.Day(1), Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: state.PagePrefix + "hal", Credits: 1,
			Result: halEnriched}},
		{At: statetest.Day(2), Kind: state.EventSearch, Address: "search.fields", Search: &state.SearchEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"keywords":"fields"}`),
			Leads:   []person.Lead{statetest.FullLead(halLead, "1.hal", "hal"), statetest.FullLead(idaLead, "2.ida", "ida")}}},
	} {
		if err := s.Fold(e); err != nil {
			t.Fatalf("fold %s: %v", e.Kind, err)
		}
	}
	return s
}

// fieldsConfig reads the people of fieldsState: a where that holds for Ida
// only if every lead attribute of `lead` is hers, and two exports (XLSX,
// CSV) of every column of a person field. backend is the leadsync block's
// backend, "" for the local state file.
func fieldsConfig(backend string, ida *person.Lead) string {
	var where, cols []string
	for _, f := range person.LeadFields {
		if f.Where {
			where = append(where, fmt.Sprintf("lead.%s == %s", f.Key, strconv.Quote(*f.Lead(ida))))
		}
	}
	for _, f := range person.PersonFields {
		if f.Column != "" {
			cols = append(cols, strconv.Quote(f.Column))
		}
	}
	sheet := fmt.Sprintf(`sheet "People" {
    from    = [search.fields, profile.hal]
    columns = [%s]
  }`, strings.Join(cols, ", "))
	return fmt.Sprintf(`%s
api {
  sandbox = true
}

search "fields" {
  keywords = "fields"
}

profile "hal" {
  page_name = "hal"
}

enrich "ida" {
  from  = [search.fields]
  where = (
    %s
  )
}

export "xlsx" {
  path = "out/people.xlsx"
  %s
}

export "csv" {
  path = "out/people.csv"
  %s
}
`, backend, strings.Join(where, " &&\n    "), sheet, sheet)
}

// TestEveryPersonField: one person with every field of person.PersonFields
// (filled from the table) and another with every lead field, on each
// backend: state push reads them from a state file (the codec) into the
// backend, state pull prints the same people back, state show names
// them, export writes every field's column, in XLSX and CSV, with its
// value, and a where on every attribute of lead finds Ida. A field the
// table has and any of these drops (the codec, the pg columns, state
// show, the where, the export) fails here; a field of the structs the
// table lacks fails in internal/api (TestPersonFieldsCover), one the
// fold's merge or the identity hash leaves out in internal/state
// (TestFoldMergesEveryLeadField, TestPersonIDHashesTheIdentityFields).
func TestEveryPersonField(t *testing.T) {
	t.Parallel()
	want := fieldsState(t)
	var seed bytes.Buffer
	if err := statefile.Encode(&seed, want); err != nil {
		t.Fatal(err)
	}
	hal, ida := want.People["1.hal"], want.People["2.ida"]
	if hal == nil || ida == nil || hal.Enrichment == nil || hal.Profile == nil {
		t.Fatalf("the fixture has not the people it needs: %v", want.People)
	}
	for _, kind := range []string{"local", "pg"} {
		t.Run(kind, func(t *testing.T) {
			h := newProject(t, "")
			block := ""
			if kind == "pg" {
				block = fmt.Sprintf("leadsync {\n  backend \"pg\" {\n    schema_name = %q\n  }\n}\n", h.usePG())
			}
			h.writeConfig(fieldsConfig(block, &ida.Lead))
			writeFile(t, filepath.Join(h.dir, "seed.json"), seed.String())
			if r := h.run("state", "push", "--from", "seed.json"); r.code != 0 {
				t.Fatalf("%s", r)
			}

			// state pull: the people as they went in, read with
			// encoding/json rather than the codec.
			r := h.run("state", "pull")
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			var pulled state.State
			if err := json.Unmarshal([]byte(r.stdout), &pulled); err != nil {
				t.Fatalf("state pull: %v\n%s", err, r.stdout)
			}
			if d := cmp.Diff(peopleJSON(t, want), peopleJSON(t, &pulled)); d != "" {
				t.Errorf("state pull gives other people (-pushed +pulled):\n%s", d)
			}

			// state show names every lead field, and what only the
			// enrichment says that a sheet shows.
			if r = h.run("state", "show", "person.1.hal"); r.code != 0 {
				t.Fatalf("%s", r)
			}
			for _, f := range person.PersonFields {
				var v string
				switch {
				case f.Lead != nil:
					v = *f.Lead(&hal.Lead)
				case f.Enriched != nil && f.Column != "":
					v = *f.Enriched(&hal.Enrichment.Result)
				default:
					continue
				}
				if !strings.Contains(r.stdout, f.Key) || !strings.Contains(r.stdout, v) {
					t.Errorf("state show does not show %s (%q):\n%s", f.Key, v, r.stdout)
				}
			}

			// where: every attribute of lead is Ida's.
			r = h.run("plan", "--offline", "--json")
			if r.code != 0 {
				t.Fatalf("%s", r)
			}
			var plan struct {
				Changes []struct {
					Address string `json:"address"`
					Calls   int    `json:"calls"`
				} `json:"changes"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &plan); err != nil {
				t.Fatalf("plan --json: %v\n%s", err, r.stdout)
			}
			calls := -1
			for _, c := range plan.Changes {
				if c.Address == "enrich.ida" {
					calls = c.Calls
				}
			}
			if calls != 1 {
				t.Errorf("enrich.ida, whose where names every attribute of lead, plans %d calls; want 1 (Ida)\n%s", calls, r.stdout)
			}

			// export: every field's column, in both formats.
			if r := h.run("export"); r.code != 0 {
				t.Fatalf("%s", r)
			}
			x, err := excelize.OpenFile(filepath.Join(h.dir, "out", "people.xlsx"))
			if err != nil {
				t.Fatal(err)
			}
			defer x.Close()
			rows, err := x.GetRows("People")
			if err != nil {
				t.Fatal(err)
			}
			checkFieldCells(t, "XLSX", rows, hal)
			b, err := os.ReadFile(filepath.Join(h.dir, "out", "people.csv"))
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			checkFieldCells(t, "CSV", recs, hal)
		})
	}
}

// peopleJSON is the people of s as sorted, indented JSON.
func peopleJSON(t *testing.T, s *state.State) string {
	t.Helper()
	ids := make([]string, 0, len(s.People))
	for id := range s.People {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out strings.Builder
	for _, id := range ids {
		b, err := json.MarshalIndent(s.People[id], "", " ")
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
		out.WriteByte('\n')
	}
	return out.String()
}

// checkFieldCells checks Hal's row of a sheet (header first): each person
// field's column, under its label, shows his value: the lead's, else the
// enrichment's, else the profile read's. A column with no text accessor
// (the lists and yes/no fields of a profile read, written in a form of
// their own) is not empty, and shows the value's text when it has one.
func checkFieldCells(t *testing.T, format string, rows [][]string, hal *state.Person) {
	t.Helper()
	if len(rows) < 2 {
		t.Fatalf("%s: %d rows", format, len(rows))
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	var row []string
	for _, r := range rows[1:] {
		if i, ok := col["Page name"]; ok && i < len(r) && r[i] == "hal" {
			row = r
		}
	}
	if row == nil {
		t.Fatalf("%s: no row of Hal:\n%q", format, rows)
	}
	for _, f := range person.PersonFields {
		if f.Column == "" {
			continue
		}
		i, ok := col[f.Label]
		if !ok {
			t.Errorf("%s: no column %q (%s) in the header %q", format, f.Label, f.Column, rows[0])
			continue
		}
		cell := ""
		if i < len(row) {
			cell = row[i]
		}
		switch want, text := fieldWant(f, hal); {
		case text && cell != want:
			t.Errorf("%s: %s is %q, want %q", format, f.Column, cell, want)
		case !text && (cell == "" || !strings.Contains(cell, want)):
			t.Errorf("%s: %s is %q, want a cell that shows %q", format, f.Column, cell, want)
		}
	}
}

// fieldWant is what f's column shows of p: the text of the field (text
// true), or for a field with no text accessor, a text the cell contains
// (the profile's value, statetest.FieldValue, where the field has one).
func fieldWant(f *person.PersonField, p *state.Person) (string, bool) {
	if f.Lead != nil {
		if v := *f.Lead(&p.Lead); v != "" {
			return v, true
		}
	}
	if f.Enriched != nil && p.Enrichment != nil {
		if v := *f.Enriched(&p.Enrichment.Result); v != "" {
			return v, true
		}
	}
	if f.Profile != nil && p.Profile != nil {
		return *f.Profile(p.Profile), true
	}
	if v := statetest.FieldValue(f.Key, halProfile); p.Profile != nil && strings.Contains(fmt.Sprintf("%+v", *p.Profile), v) {
		return v, false
	}
	return "", false
}
