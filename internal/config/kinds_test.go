package config

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// everyKindConfig declares one block of each kind of block, and one more
// of each kind with instances.
var everyKindConfig = map[string]string{
	"main.leads.hcl": `
api { sandbox = true }
search "cto" {
  for_each = toset(["Berlin", "Köln"])
  keywords = "CTO"
  city     = each.key
}
profile "founder" {
  for_each  = toset(["Max_Mustermann", "Erika_Musterfrau"])
  page_name = each.key
}
import "crm" {
  file    = "legacy/crm.csv"
  columns = { profile_url = "LinkedIn URL", email = "Email" }
}
enrich "contacts" {
  from = [search.cto, import.crm]
}
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
  sheet "People" {
    from = [search.cto, profile.founder]
  }
}
`,
	"legacy/crm.csv":    "LinkedIn URL;Email\nhttps://network.example/profile/Ann_A;ann@acme.example\n",
	"crm/customers.csv": "Kunde\nAcme GmbH\n",
}

// TestEveryBlockKindHasItsEntry fails when a kind of block of the table
// (internal/kind) has no entry in config: no schema, no accessor of its
// blocks, or moved blocks that do not follow its row.
func TestEveryBlockKindHasItsEntry(t *testing.T) {
	cfg := loadDir(t, everyKindConfig)
	for _, k := range kind.Blocks() {
		if _, ok := blockKinds[k]; !ok {
			t.Errorf("%s: no entry in blockKinds", k)
			continue
		}
		if !slices.ContainsFunc(topSchema.Blocks, func(b hcl.BlockHeaderSchema) bool { return b.Type == string(k) }) {
			t.Errorf("%s: no block of the top-level schema", k)
		}
		addrs := cfg.Addresses(k)
		if len(addrs) == 0 {
			t.Errorf("%s: Addresses gives none of the configuration's", k)
		}
		for _, d := range cfg.Declared(k) {
			if d.Addr.Kind != k {
				t.Errorf("%s: Declared gives %s, of kind %q", k, d.Address, d.Addr.Kind)
			}
		}
		if k.HasInstances() && len(addrs) < 2 {
			t.Errorf("%s: Addresses gives %v, not every instance", k, addrs)
		}
		_, err := NewMove(string(k)+".a", string(k)+".b")
		if k.Moves() != (err == nil) {
			t.Errorf("%s: the table says it moves: %v; state mv says %v", k, k.Moves(), err)
		}
		if _, err := NewMove(string(k)+`.a["x"]`, string(k)+`.b["x"]`); k.Moves() && k.HasInstances() != (err == nil) {
			t.Errorf("%s: the table says it has instances: %v; state mv of an instance says %v", k, k.HasInstances(), err)
		}
	}
	for k := range blockKinds {
		if !k.IsBlock() {
			t.Errorf("blockKinds has %q, no kind of block of the table", k)
		}
	}
	if got := cfg.Addresses(kind.Person); got != nil {
		t.Errorf("Addresses(person) = %v; no block declares a person", got)
	}
}

// checkTypedAddresses fails when a block, an instance or a module of cfg
// has a typed address (Addr) that is not its address as text reads.
func checkTypedAddresses(t *testing.T, cfg *Config) {
	t.Helper()
	check := func(text string, typed address.Address) {
		t.Helper()
		want, err := address.Parse(text)
		if err != nil {
			t.Errorf("%s: %v", text, err)
			return
		}
		if !cmp.Equal(typed, want) || typed.String() != text {
			t.Errorf("%s: typed as %#v, reads as %#v", text, typed, want)
		}
		if got, ok := cfg.Addr(text); !ok || !cmp.Equal(got, want) {
			t.Errorf("Addr(%s) = %#v, %v; want %#v", text, got, ok, want)
		}
	}
	n := 0
	for _, k := range kind.Blocks() {
		for _, d := range cfg.Declared(k) {
			check(d.Address, d.Addr)
			n++
		}
	}
	for _, m := range cfg.Modules {
		check(m.Address, m.Addr)
	}
	if n == 0 {
		t.Error("no blocks to check")
	}
	for _, text := range []string{"search.nothing", "", "module.nowhere"} {
		if a, ok := cfg.Addr(text); ok {
			t.Errorf("Addr(%q) = %v: the configuration declares nothing there", text, a)
		}
	}
}

// TestTypedAddresses checks the typed address the loader gives each
// block of each kind (and each instance of a search or profile).
func TestTypedAddresses(t *testing.T) {
	checkTypedAddresses(t, loadDir(t, everyKindConfig))
}
