package export

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEveryFormatHasAWriter: the table of formats and the writers agree,
// so that no extension config accepts finds no writer.
func TestEveryFormatHasAWriter(t *testing.T) {
	names := map[string]bool{}
	for _, f := range exportformat.All() {
		names[f.Name] = true
		if writers[f.Name] == nil {
			t.Errorf("format %q (%s) has no writer in export.writers", f.Name, f.Ext)
		}
	}
	for name := range writers {
		if !names[name] {
			t.Errorf("writer %q has no row in exportformat's table", name)
		}
	}
}

// tsvWriter is a format defined only in this test: tab-separated text, a
// file per sheet (a header line, then a line per row) and a summary file.
type tsvWriter struct{}

func (tsvWriter) write(j *job) ([]Written, error) {
	names := make([]string, len(j.sheets))
	for i, s := range j.sheets {
		names[i] = s.conf.Name
	}
	files, summary := config.SheetFiles(j.path, names)
	var out []Written
	for i, s := range j.sheets {
		t := s.table
		b := strings.Join(t.header, "\t") + "\n"
		cells := make([]cellValue, len(t.header))
		for r := 0; r < t.n; r++ {
			t.fill(r, cells)
			texts := make([]string, len(cells))
			for c, cell := range cells {
				texts[c] = cell.Text
			}
			b += strings.Join(texts, "\t") + "\n"
		}
		if err := writeWhole(files[i], b); err != nil {
			return nil, err
		}
		out = append(out, Written{Path: files[i], Export: j.exp.Address, Sheets: 1, Rows: t.n})
	}
	if err := writeWhole(summary, fmt.Sprintf("%d sheets\n", len(j.sheets))); err != nil {
		return nil, err
	}
	return append(out, Written{Path: summary, Export: j.exp.Address, Summary: true}), nil
}

// writeWhole writes a file as the writers do: complete, then renamed.
func writeWhole(path, text string) error {
	af, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer af.abort()
	if _, err := af.WriteString(text); err != nil {
		return err
	}
	if err := af.finish(); err != nil {
		return err
	}
	return af.rename()
}

const tsvConfig = `
api {
  sandbox = true
}

search "cto" {
  keywords = "CTO"
}

export "crm" {
  path = "out/leads.tsv"
  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "title"]
  }
  sheet "All" {
    from = [search.cto]
  }
}
`

// TestRegisteredFormatEndToEnd: a format that is a row in exportformat's
// table and a writer, and nothing else, is accepted by config, its files
// are what config and plan expect, and export writes them with its writer.
// Without the row, config refuses the path.
func TestRegisteredFormatEndToEnd(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(tsvConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := config.Load(config.LoadOptions{Dir: dir})
	if len(diags) != 1 || !strings.Contains(diags.Error(), `path must end in .xlsx or .csv; "out/leads.tsv" does not.`) {
		t.Fatalf("before the format is registered: %v", diags)
	}

	tsv := exportformat.Format{Name: "tsv", Ext: ".tsv", Layout: exportformat.FilePerSheet}
	t.Cleanup(exportformat.Register(tsv))
	writers["tsv"] = tsvWriter{}
	t.Cleanup(func() { delete(writers, "tsv") })

	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("with the format registered: %v", diags)
	}
	x := cfg.Exports[0]
	data, summary := x.Files()
	wantData := []string{"out/leads-ctos.tsv", "out/leads-all.tsv"}
	if x.Format != "tsv" || !slices.Equal(data, wantData) || summary != "out/leads.summary.tsv" {
		t.Fatalf("format %q, files %q, summary %q; want tsv, %q, out/leads.summary.tsv", x.Format, data, summary, wantData)
	}

	st := state.New()
	st.People["p1"] = testPerson("p1", person.Lead{FullName: "Ada Lovelace", Title: "CTO"}, "search.cto")
	st.Searches["search.cto"] = &state.Search{Address: "search.cto", LeadIDs: []string{"p1"}, RanAt: t1}
	p, diags := plan.Build(cfg, st, plan.Options{Now: fixedAt, Offline: true})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if c := exportChange(p, "export.crm"); c == nil || c.Reason != plan.ReasonFileMissing || c.Detail != "out/leads-ctos.tsv (missing)" {
		t.Fatalf("plan before the write: %+v", c)
	}

	written, err := Write(cfg, x, state.NewBase(st), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(written) != 3 {
		t.Fatalf("wrote %+v", written)
	}
	got, err := os.ReadFile(filepath.Join(dir, "out", "leads-ctos.tsv"))
	want := config.ColumnLabels["fullName"] + "\t" + config.ColumnLabels["title"] + "\nAda Lovelace\tCTO\n"
	if err != nil || string(got) != want {
		t.Fatalf("leads-ctos.tsv: %q, %v", got, err)
	}
	p, _ = plan.Build(cfg, st, plan.Options{Now: fixedAt, Offline: true})
	if c := exportChange(p, "export.crm"); c == nil || c.Reason == plan.ReasonFileMissing {
		t.Errorf("plan after the write still misses a file: %+v", c)
	}
}

func exportChange(p *plan.Plan, addr string) *plan.Change {
	for _, c := range p.Changes {
		if c.Address == addr {
			return c
		}
	}
	return nil
}
