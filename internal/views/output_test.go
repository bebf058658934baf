package views

import (
	"bytes"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
)

// TestOutputViews: leadsync output in both forms: an output of a search
// block's instances (one not run yet) and a profile, with its description;
// one of an enrich block; none at all (JSON: an empty list).
func TestOutputViews(t *testing.T) {
	const src = `api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.key
}
profile "founder" {
  page_name = "Max_Mustermann"
}
enrich "contacts" {
  from = [search.cto]
}
output "ctos" {
  description = "The CTOs and the founder"
  value       = [search.cto, profile.founder]
}
output "reachable" {
  value = [enrich.contacts]
}
`
	cfg, diags := config.Load(config.LoadOptions{Dir: t.TempDir(), FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	b := state.NewBase(viewState(t))
	all, err := run.Outputs(cfg, b, "")
	if err != nil {
		t.Fatal(err)
	}
	none, err := run.Outputs(&config.Config{}, b, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		values []run.OutputValue
	}{
		{"all", all},
		{"none", none},
	} {
		for _, asJSON := range []bool{false, true} {
			var b bytes.Buffer
			if err := NewOutput(&b, asJSON).Outputs(c.values); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "output_"+c.name+ext(asJSON)), b.Bytes())
		}
	}
}
