package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
)

// loadDir writes files into a temporary folder and loads it.
func loadDir(t *testing.T, files map[string]string) *Config {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := Load(LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("load: %s", diags.Error())
	}
	return cfg
}

func TestImportBlock(t *testing.T) {
	cfg := loadDir(t, map[string]string{
		"main.leads.hcl": `
api { sandbox = true }
import "evaboot" {
  file    = "legacy/evaboot.csv"
  columns = { profile_url = "LinkedIn URL", email = "Email", validation_status = "Email status",
              company_domain = "Domain", enriched_at = "Exported", first_name = "First", last_name = "Last",
              company = "Company" }
}
enrich "more" {
  from = [import.evaboot]
}
export "all" {
  path = "out/all.xlsx"
  sheet "Imported" {
    from = [import.evaboot]
  }
}
`,
		"legacy/evaboot.csv": "First;Last;Company;LinkedIn URL;Email;Email status;Domain;Exported\n" +
			"Ann;A;Acme GmbH;https://www.network.example/in/Ann_A/?utm=x;Ann@Acme.example;Valid;acme.example;15.10.2026\n" +
			"Bob;B;Beta;network.example/profile/Bob_B;;;;\n" +
			// Ann again: her later row's values win, her first row's order stays.
			"Ann;A;Acme AG;https://network.example/profile/ann_a;;catch-all;;\n",
	})
	if len(cfg.Imports) != 1 {
		t.Fatalf("imports: %d", len(cfg.Imports))
	}
	im := cfg.Imports[0]
	if im.Address != "import.evaboot" || im.Rows != 3 || len(im.Digest) != 64 {
		t.Errorf("import %+v", im)
	}
	want := []ImportPerson{
		{Line: 2, Result: person.EnrichedProfile{PageName: "Ann_A", FirstName: "Ann", LastName: "A", FullName: "Ann A", Company: "Acme AG",
			Email: "Ann@Acme.example", ValidationStatus: "catch all", CompanyDomain: "acme.example"},
			EnrichedAt: time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)},
		{Line: 3, Result: person.EnrichedProfile{PageName: "Bob_B", FirstName: "Bob", LastName: "B", FullName: "Bob B", Company: "Beta"}},
	}
	if diff := cmp.Diff(want, im.People); diff != "" {
		t.Errorf("people (-want +got):\n%s", diff)
	}
	if got := cfg.Resolve(cfg.Enriches[0].From); len(got) != 1 || got[0] != "import.evaboot" {
		t.Errorf("from resolves to %v", got)
	}
	// A changed file is another configuration.
	before := cfg.Hash
	cfg2 := loadDir(t, map[string]string{
		"main.leads.hcl": "api { sandbox = true }\nimport \"evaboot\" {\n  file = \"e.csv\"\n  columns = { page_name = \"Page\" }\n}\n",
		"e.csv":          "Page\nAnn_A\n",
	})
	cfg3 := loadDir(t, map[string]string{
		"main.leads.hcl": "api { sandbox = true }\nimport \"evaboot\" {\n  file = \"e.csv\"\n  columns = { page_name = \"Page\" }\n}\n",
		"e.csv":          "Page\nAnn_A\nBob_B\n",
	})
	if cfg2.Hash == cfg3.Hash || before == cfg2.Hash {
		t.Error("the file's content is not in the configuration's hash")
	}
}

// TestValidationStatus: an import's validation_status is one of the
// service's three words, or a synonym another tool writes (any case, with
// hyphens, underscores or spaces); anything else is refused at its row.
func TestValidationStatus(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"valid", "valid", true},
		{" Valid ", "valid", true},
		{"VERIFIED", "valid", true},
		{"deliverable", "valid", true},
		{"catch all", "catch all", true},
		{"Catch-All", "catch all", true},
		{"catch_all", "catch all", true},
		{"catchall", "catch all", true},
		{"Accept All", "catch all", true},
		{"accept-all", "catch all", true},
		{"empty", "empty", true},
		{"Not Found", "empty", true},
		{"not_found", "empty", true},
		{"none", "empty", true},
		{"No Email", "empty", true},
		{"OK", "valid", true},
		{"Bogus", "", false},
		{"invalid", "", false},
		{"risky", "", false},
		{"valid?", "", false},
	} {
		got, ok := validationStatus(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("validationStatus(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// TestValidationStatusesDocumented keeps docs/configuration.md's table of
// the statuses an import reads equal to ValidationStatuses.
func TestValidationStatusesDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ValidationStatuses {
		words := make([]string, len(s.Synonyms))
		for i, w := range s.Synonyms {
			words[i] = "`" + w + "`"
		}
		row := "| `" + s.Status + "` | " + strings.Join(words, ", ") + " |"
		if !strings.Contains(string(b), row) {
			t.Errorf("docs/configuration.md lacks the row %s", row)
		}
	}
}
