package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/leadsync/leadsync/internal/person"
)

// TestMatchNarrowLead checks that a where reading lead only by field
// names gets a lead of those fields alone (whereLeadKeys), and that it
// then gives what it gives with every field, and fails alike, with the
// same message; a where reading lead whole (checkRefs refuses it today)
// would get every field.
func TestMatchNarrowLead(t *testing.T) {
	wheres := []struct {
		expr   string
		narrow bool
	}{
		{`lead.company != ""`, true},
		{`lead.company != var.skip && contains(["CTO"], lead.title)`, true},
		{`jsondecode(lead.location)`, true},
		{`length(lead.company) > 3 ? lead.title == "CTO" : lead.company == ""`, true},
		{`tonumber(lead.networkId) > 2`, true},
		{`"${lead.firstName} ${lead.lastName}" != " "`, true},
		{`var.skip == "Acme"`, true},
	}
	var src strings.Builder
	src.WriteString(base + "variable \"skip\" {\n  type = string\n}\nsearch \"s\" {\n  keywords = \"x\"\n}\n")
	for i, w := range wheres {
		fmt.Fprintf(&src, "enrich \"e%d\" {\n  from  = [search.s]\n  where = %s\n}\n", i, w.expr)
	}
	cfg := mustLoad(t, LoadOptions{Dir: "/cfg", Vars: []string{"skip=Acme"}, FS: memFS(map[string]string{"main.leads.hcl": src.String()})})
	leads := []person.Lead{
		{},
		{Company: "Acme", Title: "CTO", FirstName: "Ada", LastName: "L", Location: "true", NetworkID: "3"},
		{Company: "Other", Title: "CTO", Location: `"yes"`, NetworkID: "x"},
		{Company: "Initech", Title: "Intern", Location: "{", NetworkID: "1", PageName: "p"},
	}
	for _, expr := range []string{`lookup(lead, "company", "") != ""`, `length([for k, v in lead : v if v != ""]) > 3`, `lead["company"] != ""`} {
		x, diags := hclsyntax.ParseExpression([]byte(expr), "w.hcl", hcl.InitialPos)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if keys, narrow := whereLeadKeys(x); narrow {
			t.Errorf("%s reads lead whole, whereLeadKeys gives %q", expr, keys)
		}
	}
	for i, w := range wheres {
		e := cfg.Enriches[i]
		if e.narrow != w.narrow {
			t.Errorf("%s: narrow %v, want %v (keys %q)", w.expr, e.narrow, w.narrow, e.leadKeys)
		}
		whole := *e
		whole.leadKeys, whole.narrow = nil, false
		for _, l := range leads {
			got, err := cfg.Match(e, l)
			want, wantErr := cfg.Match(&whole, l)
			if got != want || fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Errorf("%s on %+v: %v, %v; with every field %v, %v", w.expr, l, got, err, want, wantErr)
			}
		}
	}
}
