package plan

import (
	"testing"
	"testing/fstest"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
)

// TestEveryPlannedKindHasAChange fails when the plan forgets a kind of
// block: the plan of a configuration with a block of every kind
// (internal/kind) has a change of that kind for each kind whose row says
// Planned, and none for the others.
func TestEveryPlannedKindHasAChange(t *testing.T) {
	fsys := fstest.MapFS{
		"main.leads.hcl": {Data: []byte(`
api { sandbox = true }
search "cto" { keywords = "CTO" }
profile "founder" { page_name = "Max_Mustermann" }
import "crm" {
  file    = "legacy/crm.csv"
  columns = { profile_url = "LinkedIn URL", email = "Email" }
}
enrich "contacts" { from = [search.cto, import.crm] }
track "champions" {
  from  = [enrich.contacts, profile.founder]
  every = "30d"
}
exclude "customers" {
  file   = "crm/customers.csv"
  column = "Kunde"
  by     = "company"
}
export "all" {
  path = "out/all.xlsx"
  sheet "People" { from = [search.cto, profile.founder] }
}
`)},
		"legacy/crm.csv":    {Data: []byte("LinkedIn URL;Email\nhttps://network.example/profile/Ann_A;ann@acme.example\n")},
		"crm/customers.csv": {Data: []byte("Kunde\nAcme GmbH\n")},
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: "/cfg", FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	f := newFixture()
	f.cfg = cfg
	p := f.build(t, f.opts())
	changed := map[kind.Kind]bool{}
	for _, c := range p.Changes {
		if got := address.Kind(c.Address); got != c.Kind {
			t.Errorf("the change of %s is of kind %q", c.Address, c.Kind)
		}
		changed[c.Kind] = true
	}
	for _, k := range kind.Blocks() {
		if len(cfg.Addresses(k)) == 0 {
			t.Errorf("%s: the configuration has no block of it", k)
		}
		if changed[k] != k.Row().Planned {
			t.Errorf("%s: planned %v, has a change in the plan %v", k, k.Row().Planned, changed[k])
		}
	}
}
