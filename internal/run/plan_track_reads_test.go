package run

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/local"
)

// trackConfig is two searches and a track of some (from, the import
// added by loadTrackConfig).
const trackConfig = `
api {
  sandbox     = true
  rate_limit  = 50
  parallelism = 2
}
search "s" {
  for_each    = toset(["Berlin", "Hamburg", "Munich"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
track "t" {
  from  = [%s]
  every = "30d"
}
`

// crmImport is the import block trackConfig adds, of crm.csv by columns.
const crmImport = `
import "crm" {
  file    = "crm.csv"
  columns = { %s, email = "Email" }
}
`

// loadTrackConfig loads trackConfig of a track from search.s["Berlin"],
// or from, with the import of csv by columns, which the track watches,
// when csv is not empty.
func loadTrackConfig(t *testing.T, dir, from, columns, csv string) *config.Config {
	t.Helper()
	if from == "" {
		from = `search.s["Berlin"]`
	}
	src, fsys := fmt.Sprintf(trackConfig, from), fstest.MapFS{}
	if csv != "" {
		src = fmt.Sprintf(trackConfig, from+", import.crm") + fmt.Sprintf(crmImport, columns)
		fsys["crm.csv"] = &fstest.MapFile{Data: []byte(csv)}
	}
	fsys["main.leads.hcl"] = &fstest.MapFile{Data: []byte(src)}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return cfg
}

// TestPlanOfATrackAndAnImportLoadsNoState plans a track of a search and
// of an import of a CSV file (of people of a third search) of a state in
// the local database, after an apply read the people of another search
// for the track (still watched): the whole configuration, the track
// targeted, the import targeted. None reads every person (plan.ReadsOf
// names the track's search, the people it read before, the file's members
// by network ID), and each is the plan of the state loaded whole, byte
// for byte. A file of page names to import that the track watches, in
// any letter case, is read through the index of page keys: no load either.
func TestPlanOfATrackAndAnImportLoadsNoState(t *testing.T) {
	dir := t.TempDir()
	rec := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.db"))}
	d, _, _, _ := newDeps(t)
	d.Backend = seeThrough{rec}
	for range 2 { // the searches, then the track's reads of their people
		cfg := loadTrackConfig(t, dir, `search.s["Hamburg"]`, "", "")
		if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := rec.Backend.Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.People) != 9 {
		t.Fatalf("%d people in the state, want 9", len(whole.People))
	}
	// Two of Munich's people, with an e-mail, and one new to the state.
	byID, byPage, byUpper := "ID,Email\n", "Page,Email\n", "Page,Email\n"
	for _, id := range whole.Searches[`search.s["Munich"]`].LeadIDs[:2] {
		p := whole.People[id]
		byID += p.Lead.NetworkID + ",a" + p.Lead.NetworkID + "@crm.example\n"
		byPage += p.Lead.PageName + ",a" + p.Lead.NetworkID + "@crm.example\n"
		byUpper += strings.ToUpper(p.Lead.PageName) + ",a" + p.Lead.NetworkID + "@crm.example\n"
	}
	byID += "99999.abc,new@crm.example\n"
	for _, tt := range []struct {
		columns, csv string
		targets      []string
		loads        bool
	}{
		{`network_id = "ID"`, byID, nil, false},
		{`network_id = "ID"`, byID, []string{"track.t"}, false},
		{`network_id = "ID"`, byID, []string{"import.crm"}, false},
		{"", "", []string{"track.t"}, false},
		{`page_name = "Page"`, byPage, nil, false},
		{`page_name = "Page"`, byUpper, nil, false},
		{`page_name = "Page"`, byPage, []string{"import.crm"}, false}, // no track reads the file
		{`page_name = "Page"`, byPage, []string{"track.t"}, false},    // nor imports it
	} {
		cfg := loadTrackConfig(t, dir, "", tt.columns, tt.csv)
		rec.ops = nil
		p, diags, err := Plan(context.Background(), d, PlanOptions{Config: cfg, Targets: tt.targets, Offline: true})
		if err != nil || diags.HasErrors() {
			t.Fatal(err, diags)
		}
		what := fmt.Sprintf("%s, targets %q", strings.SplitN(tt.csv, ",", 2)[0], tt.targets)
		if loaded := slices.Contains(rec.ops, "load"); loaded != tt.loads {
			t.Errorf("%s: the whole state loaded: %v, want %v (%v)", what, loaded, tt.loads, rec.ops)
		}
		if c := p.Change("track.t"); c != nil && !strings.Contains(c.Detail, "3 no longer in its sources, still watched") {
			t.Errorf("%s: the track's people were not read before: %s", what, c.Detail)
		}
		// Build over the state loaded whole (Plan over a state read whole
		// plans from what ReadsOf names too).
		want, _ := plan.Build(cfg, whole, plan.Options{Now: t0, Targets: tt.targets, Offline: true})
		if diff := cmp.Diff(jsonOf(t, want), jsonOf(t, p)); diff != "" {
			t.Errorf("%s: the plan differs from the plan of the whole state (-whole +read):\n%s", what, diff)
		}
	}
}
