package plan

import (
	"testing"
	"testing/fstest"

	"github.com/leadsync/leadsync/internal/config"
)

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
