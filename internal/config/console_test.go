package config

import (
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// consoleConfig declares what the console's table evaluates against: a
// variable (one of them sensitive), locals, and searches and a profile of
// each form (for_each, count, single) in the root and in a module.
const consoleConfig = `
api {
  sandbox = true
}
variable "market" {
  type    = string
  default = "de"
}
variable "token" {
  type      = string
  default   = "s3cr3t-token"
  sensitive = true
}
locals {
  cities = ["Berlin", "Hamburg"]
  by_city = { for c in local.cities : c => upper(c) }
}
search "cto" {
  for_each    = toset(local.cities)
  keywords    = "CTO"
  city        = each.key
  max_results = 5
}
search "eng" {
  count       = 2
  keywords    = "Engineer ${count.index}"
  max_results = 5
}
profile "founder" {
  page_name = "ada-lovelace"
}
module "uk" {
  source = "./mod"
}
module "dach" {
  for_each = toset(["de", "at"])
  source   = "./mod"
}
`

const consoleModule = `
search "cto" {
  keywords    = "CTO UK"
  max_results = 5
}
module "team" {
  count  = 2
  source = "./team"
}
`

const consoleInner = `
profile "lead" {
  page_name = "grace-hopper"
}
`

func consoleScope(t *testing.T) *Scope {
	t.Helper()
	cfg := mustLoad(t, LoadOptions{Dir: "c", FS: memFS(map[string]string{"main.leads.hcl": consoleConfig, "mod/m.leads.hcl": consoleModule, "mod/team/t.leads.hcl": consoleInner})})
	return cfg.ConsoleScope(map[string]int{`search.cto["Berlin"]`: 3, "profile.founder": 1, "module.uk.search.cto": 9})
}

func strs(ss ...string) cty.Value {
	vals := make([]cty.Value, len(ss))
	for i, s := range ss {
		vals[i] = cty.StringVal(s)
	}
	return cty.TupleVal(vals)
}

func TestConsoleEval(t *testing.T) {
	s := consoleScope(t)
	cases := []struct {
		expr      string
		want      cty.Value
		sensitive bool
		err       string
	}{
		{expr: "local.cities", want: strs("Berlin", "Hamburg")},
		{expr: "var.market", want: cty.StringVal("de")},
		{expr: `upper(var.market)`, want: cty.StringVal("DE")},
		{expr: `[for c in local.cities : lower(c) if c != "Hamburg"]`, want: strs("berlin")},
		{expr: `local.by_city["Hamburg"]`, want: cty.StringVal("HAMBURG")},
		{expr: "leadsync.workspace", want: cty.StringVal("default")},
		// What a for_each expands to: its keys, each instance's address,
		// request and the people of the state it found.
		{expr: "keys(search.cto)", want: strs("Berlin", "Hamburg")},
		{expr: `search.cto["Berlin"].address`, want: cty.StringVal(`search.cto["Berlin"]`)},
		{expr: `search.cto["Berlin"].request.city`, want: cty.StringVal("Berlin")},
		{expr: `search.cto["Berlin"].people`, want: cty.NumberIntVal(3)},
		{expr: `search.cto["Hamburg"].people`, want: cty.NumberIntVal(0)},
		{expr: "length(search.eng)", want: cty.NumberIntVal(2)},
		{expr: "search.eng[1].request.keywords", want: cty.StringVal("Engineer 1")},
		{expr: "search.eng[*].address", want: strs("search.eng[0]", "search.eng[1]")},
		{expr: "profile.founder.request.pageName", want: cty.StringVal("ada-lovelace")},
		{expr: "profile.founder.people", want: cty.NumberIntVal(1)},
		// A module's blocks are not the root's: they are its instance's.
		{expr: "keys(search)", want: strs("cto", "eng")},
		{expr: "module.uk.address", want: cty.StringVal("module.uk")},
		{expr: "module.uk.search.cto.people", want: cty.NumberIntVal(9)},
		{expr: "keys(module.dach)", want: strs("at", "de")},
		{expr: `module.dach["de"].search.cto.address`, want: cty.StringVal(`module.dach["de"].search.cto`)},
		{expr: `module.dach["de"].search.cto.request.keywords`, want: cty.StringVal("CTO UK")},
		{expr: `module.dach["at"].module.team[1].profile.lead.address`, want: cty.StringVal(`module.dach["at"].module.team[1].profile.lead`)},
		{expr: `length(module.uk.module.team)`, want: cty.NumberIntVal(2)},
		{expr: "var.token", want: cty.StringVal("s3cr3t-token"), sensitive: true},
		{expr: "upper(var.token)", want: cty.StringVal("S3CR3T-TOKEN"), sensitive: true},
		{expr: "local.nope", err: `This object does not have an attribute named "nope".`},
		{expr: "serch.cto", err: `There is no variable named "serch". Did you mean "search"?`},
		{expr: "search.cto.address", err: `This object does not have an attribute named "address".`},
		{expr: "tonumber(var.token)", err: "[redacted]"},
		{expr: "1 +", err: "Expected the start of an expression"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			expr, diags := ParseConsoleLine(c.expr, 1)
			var v cty.Value
			if !diags.HasErrors() {
				v, diags = s.Eval(expr, nil)
			}
			if c.err != "" {
				if !diags.HasErrors() || !strings.Contains(diags.Error(), c.err) {
					t.Fatalf("diagnostics %v, want one saying %q", diags, c.err)
				}
				if strings.Contains(diags.Error(), "s3cr3t") {
					t.Errorf("diagnostics show the sensitive value: %v", diags)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatalf("unexpected diagnostics: %v", diags)
			}
			if v.IsMarked() != c.sensitive {
				t.Errorf("marked = %v, want %v", v.IsMarked(), c.sensitive)
			}
			v, _ = v.UnmarkDeep()
			if !v.RawEquals(c.want) {
				t.Errorf("= %#v\nwant %#v", v, c.want)
			}
		})
	}
}

func TestWhereRoots(t *testing.T) {
	cases := []struct {
		expr   string
		fields []string
		lead   bool
		err    string
	}{
		{expr: `person.validationStatus == "valid"`, fields: []string{"validationStatus"}},
		{expr: `person.title == "CTO" && person.company != person.title`, fields: []string{"title", "company"}},
		{expr: `lead.title == "CTO"`, lead: true},
		{expr: `startswith(lead.fullName, var.market)`, lead: true},
		{expr: `person.titel == "CTO"`, err: `person has no field "titel". Did you mean "title"?`},
		{expr: `lead.email != ""`, err: `lead has no field "email". It has firstName, lastName, fullName, title`},
		{expr: `lead.title == person.title`, err: "this one reads both"},
		{expr: `var.market == "de"`, err: "this one reads neither"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			expr, diags := ParseConsoleLine(c.expr, 1)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			fields, lead, diags := WhereRoots(expr)
			if c.err != "" {
				if !strings.Contains(diags.Error(), c.err) {
					t.Fatalf("diagnostics %v, want one saying %q", diags, c.err)
				}
				return
			}
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if strings.Join(fields, ",") != strings.Join(c.fields, ",") || lead != c.lead {
				t.Errorf("fields %v lead %v, want %v %v", fields, lead, c.fields, c.lead)
			}
		})
	}
}
