package config

import (
	"strings"
	"testing"
)

func TestBackendBlock(t *testing.T) {
	cfg := mustLoad(t, LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": `
variable "pg" {
  type      = string
  sensitive = true
}
leadsync {
  backend "pg" {
    conn_str    = var.pg
    schema_name = "team_leads"
  }
}
api {
  sandbox = true
}
`}), Environ: []string{"LEADSYNC_VAR_pg=postgres://u:s3cretpw@db.example.com/leads"}})
	be := cfg.Settings.Backend
	if be == nil || be.Type != "pg" || be.SchemaName != "team_leads" || be.ConnStr != "postgres://u:s3cretpw@db.example.com/leads" || be.ConnStrRange == nil {
		t.Fatalf("backend %+v", be)
	}
	if got := cfg.Scrub("connecting with postgres://u:s3cretpw@db.example.com/leads"); strings.Contains(got, "s3cretpw") {
		t.Fatalf("the connection string is not scrubbed: %s", got)
	}

	// Without conn_str: the caller reads LEADSYNC_PG_CONN_STR; the schema defaults.
	cfg = mustLoad(t, LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": `
leadsync {
  backend "pg" {}
}
api {
  sandbox = true
}
`})})
	be = cfg.Settings.Backend
	if be == nil || be.ConnStr != "" || be.ConnStrRange != nil || be.SchemaName != "leadsync" {
		t.Fatalf("backend %+v", be)
	}
	cfg = mustLoad(t, LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": "api {\n  sandbox = true\n}\n"})})
	if cfg.Settings.Backend != nil {
		t.Fatal("a backend without a backend block")
	}
}
