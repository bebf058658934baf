package plan

import (
	"bytes"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestExamples plans the repository's examples from an empty state, with the
// real configuration loader: the actions, counts and totals a new user sees.
func TestExamples(t *testing.T) {
	for _, name := range []string{"quickstart", "team"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "examples", name)
			cfg, diags := config.Load(config.LoadOptions{Dir: dir, Environ: []string{"LEADSYNC_API_KEY=test-key"}})
			if diags.HasErrors() {
				t.Skipf("example does not load (being edited?): %s", diags.Error())
			}
			p, _ := Build(cfg, state.New(), Options{Now: t0, Offline: true, FileExists: func(string) bool { return false }})
			var b bytes.Buffer
			if err := RenderText(&b, p, false); err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", "example_"+name+".txt"), b.Bytes())
		})
	}
}

// TestWhereWithConfig evaluates a real where expression through the
// configuration: people without a company are not counted.
func TestWhereWithConfig(t *testing.T) {
	fsys := fstest.MapFS{"main.leads.hcl": {Data: []byte(`
api {
  sandbox = true
}
search "a" {
  keywords = "CTO"
}
enrich "e" {
  from  = [search.a]
  where = lead.company != "" && !strcontains(lower(lead.title), "assistant")
}
`)}}
	cfg, diags := config.Load(config.LoadOptions{Dir: "/cfg", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	f := newFixture()
	f.cfg = cfg
	f.ran("search.a", t0.Add(-day), ids(1, 6)...)
	f.st.People[ids(1, 1)[0]].Lead.Company = ""
	f.st.People[ids(2, 1)[0]].Lead.Title = "Assistant to the CTO"
	o := f.opts()
	o.Usage = nil
	c := f.build(t, o).Change("enrich.e")
	if c.Calls != 4 || c.CallsMax != 4 {
		t.Errorf("calls %d..%d, want 4..4: %s", c.Calls, c.CallsMax, c.Detail)
	}
}
