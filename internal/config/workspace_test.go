package config

import (
	"fmt"
	"strings"
	"testing"
)

// leadsync.workspace is the workspace in use, so that each workspace can
// write its own spreadsheets; it enters the hash only when used.
func TestLeadsyncWorkspace(t *testing.T) {
	const src = base + `
locals {
  suffix = "-${leadsync.workspace}"
}
search "s" {
  keywords = "CTO${local.suffix}"
}
export "leads" {
  path = "out/${leadsync.workspace}.xlsx"
  sheet "All" {
    from = [search.s]
  }
}
`
	load := func(src, ws string) *Config {
		return mustLoad(t, LoadOptions{Dir: "/cfg", Workspace: ws, FS: memFS(map[string]string{"main.leads.hcl": src})})
	}
	for _, tt := range []struct{ ws, path, keywords string }{
		{"", "out/default.xlsx", "CTO-default"},
		{"default", "out/default.xlsx", "CTO-default"},
		{"uk", "out/uk.xlsx", "CTO-uk"},
	} {
		cfg := load(src, tt.ws)
		if got := cfg.Exports[0].Path; got != tt.path {
			t.Errorf("workspace %q: path %q, want %q", tt.ws, got, tt.path)
		}
		if got := fmt.Sprint(cfg.Searches[0].Request.Params); !strings.Contains(got, tt.keywords) {
			t.Errorf("workspace %q: request %s, want keywords %q", tt.ws, got, tt.keywords)
		}
	}
	if load(src, "uk").Hash == load(src, "dach").Hash {
		t.Error("the hash of a configuration that reads leadsync.workspace ignores the workspace")
	}
	if load(src, "").Hash != load(src, "default").Hash {
		t.Error("no workspace and \"default\" hash differently")
	}
	plain := base + "search \"s\" {\n  keywords = \"x\"\n}\n"
	if load(plain, "uk").Hash != load(plain, "").Hash {
		t.Error("the hash of a configuration that does not read leadsync.workspace depends on the workspace")
	}

	for _, tt := range []struct{ src, want string }{
		{base + "search \"s\" {\n  keywords = leadsync.name\n}\n", "leadsync has one attribute in expressions: leadsync.workspace"},
		{base + "search \"s\" {\n  keywords = leadsync\n}\n", "leadsync has one attribute in expressions: leadsync.workspace"},
		{base + "variable \"v\" {\n  default = \"x\"\n  validation {\n    condition = leadsync.workspace != \"\"\n    error_message = \"no\"\n  }\n}\n",
			"may refer only to var.v"},
		{base + "search \"s\" {\n  keywords = leadsynk.workspace\n}\n", `references start with var, local, leadsync`},
	} {
		_, diags := Load(LoadOptions{Dir: "/cfg", Workspace: "uk", FS: memFS(map[string]string{"main.leads.hcl": tt.src})})
		if !diags.HasErrors() || !strings.Contains(diags.Error(), tt.want) {
			t.Errorf("%s\n=> %v; want %q", tt.src, diags, tt.want)
		}
	}
}
