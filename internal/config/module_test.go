package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/person"
)

// personaModule is a module of one persona: a search per city, a profile,
// an enrich block and an export, with its outputs.
const personaModule = `
variable "cities" {
  type = list(string)
}
variable "title" {
  type    = string
  default = "CTO"
  validation {
    condition     = length(var.title) > 1
    error_message = "title is at least two characters."
  }
}
variable "levels" {
  type    = list(string)
  default = ["Executive"]
}
locals {
  keywords = upper(var.title)
}
search "cto" {
  for_each     = toset(var.cities)
  keywords     = local.keywords
  city         = each.value
  level_filter = var.levels
}
profile "founder" {
  page_name = "Founder_${var.title}"
}
enrich "contacts" {
  from  = [search.cto]
  where = lead.title != var.title
  limit = 5
}
export "sheet" {
  path = "${path.module}/out/${var.title}.csv"
  sheet "All" {
    from = [search.cto, profile.founder]
  }
}
output "ctos" {
  value = [search.cto]
}
output "people" {
  value = [search.cto, profile.founder]
}
output "contacts" {
  value = enrich.contacts
}
`

func TestModuleAddresses(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{
		"main.leads.hcl": `
api {
  sandbox = true
}
module "dach" {
  source = "./personas/cto"
  cities = ["Berlin", "Wien"]
}
module "market" {
  for_each = { us = "VP", uk = "Director" }
  source   = "./personas/cto"
  cities   = ["City ${each.key}"]
  title    = each.value
}
enrich "all" {
  from = [module.dach.people, module.market["us"].ctos]
}
export "all" {
  path = "out/all.xlsx"
  sheet "Everyone" {
    from = [module.market.people]
  }
}
`,
		"personas/cto/main.leads.hcl": personaModule,
	})})
	var searches []string
	for _, s := range cfg.Searches {
		searches = append(searches, s.Address)
	}
	want := []string{
		`module.dach.search.cto["Berlin"]`, `module.dach.search.cto["Wien"]`,
		`module.market["uk"].search.cto["City uk"]`, `module.market["us"].search.cto["City us"]`,
	}
	if !cmp.Equal(searches, want) {
		t.Errorf("searches:\n%s\nwant:\n%s", strings.Join(searches, "\n"), strings.Join(want, "\n"))
	}
	s := cfg.Searches[2]
	if s.Block != `module.market["uk"].search.cto` || s.Module != `module.market["uk"]` || s.Name != "cto" {
		t.Errorf("search: %+v", s)
	}
	if s.Request.Params["keywords"] != "DIRECTOR" || s.Request.Params["city"] != "City uk" {
		t.Errorf("module variables and locals: %v", s.Request.Params)
	}
	var profiles []string
	for _, p := range cfg.Profiles {
		profiles = append(profiles, p.Address+"="+p.PageName)
	}
	if want := []string{`module.dach.profile.founder=Founder_CTO`, `module.market["uk"].profile.founder=Founder_Director`, `module.market["us"].profile.founder=Founder_VP`}; !cmp.Equal(profiles, want) {
		t.Errorf("profiles = %q", profiles)
	}
	var enriches []string
	for _, e := range cfg.Enriches {
		enriches = append(enriches, e.Address)
	}
	if want := []string{"module.dach.enrich.contacts", `module.market["uk"].enrich.contacts`, `module.market["us"].enrich.contacts`, "enrich.all"}; !cmp.Equal(enriches, want) {
		t.Errorf("enriches = %q", enriches)
	}
	all := cfg.Enriches[3]
	if want := []string{"module.dach.search.cto", "module.dach.profile.founder", `module.market["us"].search.cto`}; !cmp.Equal(all.From, want) {
		t.Errorf("enrich.all from = %q", all.From)
	}
	if got := cfg.Resolve(all.From); len(got) != 4 {
		t.Errorf("enrich.all resolves to %q", got)
	}
	inner := cfg.Enriches[0]
	if inner.From[0] != "module.dach.search.cto" || inner.Limit != 5 {
		t.Errorf("module enrich: %+v", inner)
	}
	// where evaluates with the module's own variables.
	for _, tc := range []struct {
		e     *Enrich
		title string
		want  bool
	}{{cfg.Enriches[0], "CTO", false}, {cfg.Enriches[0], "VP", true}, {cfg.Enriches[2], "VP", false}} {
		got, err := cfg.Match(tc.e, person.Lead{Title: tc.title})
		if err != nil || got != tc.want {
			t.Errorf("Match(%s, %q) = %v, %v; want %v", tc.e.Address, tc.title, got, err, tc.want)
		}
	}
	var paths []string
	for _, x := range cfg.Exports {
		paths = append(paths, x.Address+"="+x.Path)
	}
	if want := []string{"module.dach.export.sheet=personas/cto/out/CTO.csv", `module.market["uk"].export.sheet=personas/cto/out/Director.csv`, `module.market["us"].export.sheet=personas/cto/out/VP.csv`, "export.all=out/all.xlsx"}; !cmp.Equal(paths, want) {
		t.Errorf("exports = %q", paths)
	}
	if got := cfg.Exports[3].Sheets[0].From; !cmp.Equal(got, []string{`module.market["uk"].search.cto`, `module.market["uk"].profile.founder`, `module.market["us"].search.cto`, `module.market["us"].profile.founder`}) {
		t.Errorf("sheet from = %q", got)
	}
	var mods []string
	for _, m := range cfg.Modules {
		mods = append(mods, m.Address+" "+m.Call+" "+m.Dir)
	}
	if want := []string{"module.dach module.dach personas/cto", `module.market["uk"] module.market personas/cto`, `module.market["us"] module.market personas/cto`}; !cmp.Equal(mods, want) {
		t.Errorf("modules = %q", mods)
	}
	if _, ok := cfg.Files["personas/cto/main.leads.hcl"]; !ok {
		t.Errorf("the module's file is not kept for diagnostics: %v", cfg.Files)
	}
	checkTypedAddresses(t, cfg)
}

func TestModulesNest(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{
		"main.leads.hcl": `
api {
  sandbox = true
}
module "region" {
  count  = 2
  source = "./region"
}
enrich "all" {
  from = [module.region[1].ctos]
}
`,
		"region/main.leads.hcl": `
module "team" {
  source = "../team"
  name   = "Team${path.module}"
}
output "ctos" {
  value = module.team.ctos
}
`,
		"team/main.leads.hcl": `
variable "name" {
  type = string
}
search "cto" {
  keywords = var.name
}
output "ctos" {
  value = search.cto
}
`,
	})})
	var got []string
	for _, s := range cfg.Searches {
		got = append(got, s.Address+"="+s.Request.Params["keywords"].(string))
	}
	want := []string{"module.region[0].module.team.search.cto=Teamregion", "module.region[1].module.team.search.cto=Teamregion"}
	if !cmp.Equal(got, want) {
		t.Errorf("searches = %q", got)
	}
	if from := cfg.Enriches[0].From; !cmp.Equal(from, []string{"module.region[1].module.team.search.cto"}) {
		t.Errorf("from = %q", from)
	}
	checkTypedAddresses(t, cfg)
}

// TestModuleHash checks that the configuration's hash covers the module's
// files: a saved plan made before a module changed is stale.
func TestModuleHash(t *testing.T) {
	files := map[string]string{
		"main.leads.hcl":    "api {\n  sandbox = true\n}\nmodule \"m\" {\n  source = \"./m\"\n}\n",
		"m/main.leads.hcl":  "search \"cto\" {\n  keywords = \"CTO\"\n}\n",
		"m/other.leads.hcl": "",
	}
	a := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(files)})
	files["m/other.leads.hcl"] = "# a comment\n"
	b := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(files)})
	if a.Hash == b.Hash {
		t.Error("the hash does not change with a module's file")
	}
}

// TestModuleTracks: track blocks work in modules: their addresses carry
// the module path, their from resolves in the module, an output may give
// one (or an enrich block) to the caller's track and changes sheet.
func TestModuleTracks(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", FS: memFS(map[string]string{
		"main.leads.hcl": `
api {
  sandbox = true
}
module "dach" {
  for_each = toset(["de", "at"])
  source   = "./persona"
}
track "all" {
  from = [module.dach.contacts]
}
export "changes" {
  path = "out/changes.csv"
  sheet "Changes" {
    changes = [module.dach["de"].champions, track.all]
  }
}
`,
		"persona/main.leads.hcl": `
search "cto" {
  keywords = "CTO"
}
enrich "contacts" {
  from       = [search.cto]
  refresh_on = ["company"]
}
track "champions" {
  from  = [enrich.contacts, search.cto]
  every = "7d"
}
output "contacts" {
  value = enrich.contacts
}
output "champions" {
  value = [track.champions]
}
`,
	})})
	var tracks []string
	for _, tr := range cfg.Tracks {
		tracks = append(tracks, tr.Address+" <- "+strings.Join(tr.From, ", "))
	}
	want := []string{
		`module.dach["at"].track.champions <- module.dach["at"].enrich.contacts, module.dach["at"].search.cto`,
		`module.dach["de"].track.champions <- module.dach["de"].enrich.contacts, module.dach["de"].search.cto`,
		`track.all <- module.dach["at"].enrich.contacts, module.dach["de"].enrich.contacts`,
	}
	if !cmp.Equal(tracks, want) {
		t.Errorf("tracks:\n%s\nwant:\n%s", strings.Join(tracks, "\n"), strings.Join(want, "\n"))
	}
	if got := cfg.TrackSources(cfg.Tracks[2].From); !cmp.Equal(got, []string{`module.dach["at"].search.cto`, `module.dach["de"].search.cto`}) {
		t.Errorf("track.all reads the people of %q", got)
	}
	if got := cfg.Exports[0].Sheets[0].Changes; !cmp.Equal(got, []string{`module.dach["de"].track.champions`, "track.all"}) {
		t.Errorf("changes = %q", got)
	}
}

// TestModuleListBlocks: import and exclude blocks work in modules: their
// addresses carry the module path, their files are found by path.module
// (relative to the root, as every path), an output gives an import to the
// caller's from, and the configuration's hash covers their files.
func TestModuleListBlocks(t *testing.T) {
	files := map[string]string{
		"main.leads.hcl": `
api {
  sandbox = true
}
module "dach" {
  source = "./persona"
}
export "legacy" {
  path = "out/legacy.csv"
  sheet "Legacy" {
    from = [module.dach.legacy]
  }
}
`,
		"persona/main.leads.hcl": `
import "legacy" {
  file    = "${path.module}/legacy.csv"
  columns = { page_name = "Page", email = "Email" }
}
exclude "customers" {
  file   = "${path.module}/customers.csv"
  column = "Company"
  by     = "company"
}
track "legacy" {
  from = [import.legacy]
}
output "legacy" {
  value = import.legacy
}
`,
		"persona/legacy.csv":    "Page,Email\nmax_m,max@acme.example\n",
		"persona/customers.csv": "Company\nAcme GmbH\n",
	}
	cfg := loadDir(t, files)
	if len(cfg.Imports) != 1 || cfg.Imports[0].Address != "module.dach.import.legacy" || len(cfg.Imports[0].People) != 1 {
		t.Fatalf("imports: %+v", cfg.Imports)
	}
	if len(cfg.Excludes) != 1 || cfg.Excludes[0].Address != "module.dach.exclude.customers" {
		t.Fatalf("excludes: %+v", cfg.Excludes)
	}
	if got := cfg.Exports[0].Sheets[0].From; !cmp.Equal(got, []string{"module.dach.import.legacy"}) {
		t.Errorf("sheet from = %q", got)
	}
	if got := cfg.Resolve(cfg.Exports[0].Sheets[0].From); !cmp.Equal(got, []string{"module.dach.import.legacy"}) {
		t.Errorf("resolves to %q", got)
	}
	if got := cfg.Tracks[0].From; !cmp.Equal(got, []string{"module.dach.import.legacy"}) {
		t.Errorf("track from = %q", got)
	}
	files["persona/customers.csv"] = "Company\nAcme GmbH\nInitech\n"
	if other := loadDir(t, files); other.Hash == cfg.Hash {
		t.Error("the hash does not cover a module's list file")
	}
}
