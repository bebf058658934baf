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
	if be == nil || be.Type != "pg" || be.Value("schema_name") != "team_leads" || be.Value("conn_str") != "postgres://u:s3cretpw@db.example.com/leads" ||
		be.Attrs["conn_str"].Literal || !be.Attrs["conn_str"].Sensitive || be.Attrs["conn_str"].Range.Start.Line != 8 {
		t.Fatalf("backend %+v", be)
	}
	if got := cfg.Scrub("connecting with postgres://u:s3cretpw@db.example.com/leads"); strings.Contains(got, "s3cretpw") {
		t.Fatalf("the connection string is not scrubbed: %s", got)
	}

	// Without conn_str: the backend reads LEADSYNC_PG_CONN_STR when it
	// opens; the schema defaults there too.
	cfg = mustLoad(t, LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": `
leadsync {
  backend "pg" {}
}
api {
  sandbox = true
}
`})})
	be = cfg.Settings.Backend
	if be == nil || be.Type != "pg" || len(be.Attrs) != 0 || be.Where("conn_str", "/x") != "main.leads.hcl:3" {
		t.Fatalf("backend %+v", be)
	}
	cfg = mustLoad(t, LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": "api {\n  sandbox = true\n}\n"})})
	if cfg.Settings.Backend != nil {
		t.Fatal("a backend without a backend block")
	}
}

// The connection string's form is checked at load, wherever it comes
// from: conn_str (a sensitive variable here) with its file:line, or
// LEADSYNC_PG_CONN_STR when the block has none, named as the source. No
// part of the string is shown.
func TestBackendConnStrChecked(t *testing.T) {
	const bad = "postgres://ann:zz@LEAKME/rd@127.0.0.1:46369/leadsync_test"
	const withVar = `
variable "pg" {
  type      = string
  sensitive = true
}
leadsync {
  backend "pg" {
    conn_str = var.pg
  }
}
api {
  sandbox = true
}
`
	const withoutConnStr = "leadsync {\n  backend \"pg\" {}\n}\napi {\n  sandbox = true\n}\n"
	for _, tc := range []struct {
		name, src string
		env       []string
		summary   string // "" for no diagnostic
		line      int    // 0: no subject
	}{
		{"sensitive variable", withVar, []string{"LEADSYNC_VAR_pg=" + bad}, "Invalid conn_str", 8},
		{"environment", withoutConnStr, []string{"LEADSYNC_PG_CONN_STR=" + bad}, "Invalid LEADSYNC_PG_CONN_STR", 0},
		{"environment, key=value", withoutConnStr, []string{"LEADSYNC_PG_CONN_STR=host=db port=notaport"}, "Invalid LEADSYNC_PG_CONN_STR", 0},
		{"environment fine", withoutConnStr, []string{"LEADSYNC_PG_CONN_STR=postgres://u:p%40ss@db.example.com/leads"}, "", 0},
		{"environment unset", withoutConnStr, nil, "", 0},
		// conn_str wins: the environment is not used, so not checked.
		{"environment not used", withVar, []string{"LEADSYNC_VAR_pg=postgres://u@db/leads", "LEADSYNC_PG_CONN_STR=" + bad}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, diags := Load(LoadOptions{Dir: "/x", FS: memFS(map[string]string{"main.leads.hcl": tc.src}), Environ: tc.env})
			if tc.summary == "" {
				for _, d := range diags {
					t.Errorf("unexpected diagnostic: %s", d.Error())
				}
				return
			}
			if len(diags) != 1 || diags[0].Summary != tc.summary {
				t.Fatalf("diagnostics %v, want one %q", diags, tc.summary)
			}
			d := diags[0]
			if strings.Contains(d.Detail, "LEAKME") || strings.Contains(d.Detail, "zz") {
				t.Errorf("the message shows part of the string: %s", d.Detail)
			}
			if tc.line == 0 {
				if d.Subject != nil {
					t.Errorf("a file:line for the environment: %v", d.Subject)
				}
				if !strings.Contains(d.Detail, "from the environment variable LEADSYNC_PG_CONN_STR") {
					t.Errorf("the source is not named: %s", d.Detail)
				}
			} else if d.Subject == nil || d.Subject.Start.Line != tc.line {
				t.Errorf("subject %v, want line %d", d.Subject, tc.line)
			}
			if strings.Contains(tc.env[0], "LEAKME") && !strings.Contains(d.Detail, "must be percent-encoded (%40 %2F %3F %23)") {
				t.Errorf("detail %s", d.Detail)
			}
		})
	}
}
