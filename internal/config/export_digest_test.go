package config

import (
	"strings"
	"testing"
)

const digestBase = `
leadsync {
  profile_url_template = "https://network.example/profile/{pageName}"
}
api {
  sandbox    = true
  timeout    = "90s"
}
search "cto" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.value
  refresh  = "7d"
}
profile "founder" {
  page_name = "Max_Mustermann"
}
enrich "contacts" {
  from  = [search.cto]
  limit = 5
}
export "marketing" {
  path = "out/leads.xlsx"
  sheet "CTOs" {
    from    = [search.cto]
    columns = ["fullName", "email", "companyDomain"]
  }
  sheet "All" {
    from = [search.cto, profile.founder]
  }
}
export "crm" {
  path = "out/crm.csv"
  sheet "CRM" {
    from = [profile.founder]
  }
}
`

func digestOf(t *testing.T, src, export string) string {
	t.Helper()
	cfg := mustLoad(t, LoadOptions{Dir: "/work/leads", FS: memFS(map[string]string{"main.leads.hcl": src})})
	for _, x := range cfg.Exports {
		if x.Address == export {
			d := cfg.ExportDigest(x)
			if len(d) != 64 {
				t.Fatalf("digest %q", d)
			}
			return d
		}
	}
	t.Fatalf("no %s", export)
	return ""
}

// TestExportDigest: every setting that changes what an export writes
// changes its digest; positions, formatting and settings that change
// nothing in the file do not.
func TestExportDigest(t *testing.T) {
	base := digestOf(t, digestBase, "export.marketing")
	if again := digestOf(t, digestBase, "export.marketing"); again != base {
		t.Fatal("the same configuration gave two digests")
	}
	if other := digestOf(t, digestBase, "export.crm"); other == base {
		t.Fatal("two exports have one digest")
	}
	edit := func(old, new string) string {
		t.Helper()
		if !strings.Contains(digestBase, old) {
			t.Fatalf("the base has no %q", old)
		}
		return strings.Replace(digestBase, old, new, 1)
	}
	changes := map[string]string{
		"columns":          edit(`"fullName", "email", "companyDomain"`, `"fullName", "email"`),
		"column order":     edit(`"fullName", "email", "companyDomain"`, `"email", "fullName", "companyDomain"`),
		"labels":           edit(`columns = ["fullName", "email", "companyDomain"]`, `columns = ["fullName", "email", "companyDomain"]`+"\n    labels = { email = \"Work e-mail\" }"),
		"sheet name":       edit(`sheet "CTOs"`, `sheet "Chief technology officers"`),
		"from":             edit(`from = [search.cto, profile.founder]`, `from = [search.cto]`),
		"from order":       edit(`from = [search.cto, profile.founder]`, `from = [profile.founder, search.cto]`),
		"dedupe":           edit(`from = [search.cto, profile.founder]`, `from = [search.cto, profile.founder]`+"\n    dedupe = false"),
		"only_new":         edit(`from = [search.cto, profile.founder]`, `from = [search.cto, profile.founder]`+"\n    only_new = true"),
		"path":             edit(`out/leads.xlsx`, `out/cto-leads.xlsx`),
		"format":           edit(`out/leads.xlsx`, `out/leads.csv`),
		"sheet added":      edit(`  sheet "All" {`, "  sheet \"Founder\" {\n    from = [profile.founder]\n  }\n  sheet \"All\" {"),
		"link template":    edit(`https://network.example/profile/{pageName}`, `https://people.example/{pageName}`),
		"instances":        edit(`["Berlin", "Hamburg"]`, `["Berlin", "Hamburg", "Köln"]`),
		"search filters":   edit(`keywords = "CTO"`, `keywords = "Chief Technology Officer"`),
		"profile's page":   edit(`page_name = "Max_Mustermann"`, `page_name = "Erika_Musterfrau"`),
		"export renamed":   edit(`export "marketing"`, `export "sales"`),
		"default columns":  edit(`columns = ["fullName", "email", "companyDomain"]`, ``),
		"sheet moved":      strings.Replace(strings.Replace(digestBase, "  sheet \"CTOs\" {\n    from    = [search.cto]\n    columns = [\"fullName\", \"email\", \"companyDomain\"]\n  }\n", "", 1), "    from = [search.cto, profile.founder]\n  }\n", "    from = [search.cto, profile.founder]\n  }\n  sheet \"CTOs\" {\n    from    = [search.cto]\n    columns = [\"fullName\", \"email\", \"companyDomain\"]\n  }\n", 1),
		"template removed": edit("  profile_url_template = \"https://network.example/profile/{pageName}\"\n", ""),
	}
	for name, src := range changes {
		addr := "export.marketing"
		if name == "export renamed" {
			addr = "export.sales"
		}
		if src == digestBase {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if got := digestOf(t, src, addr); got == base {
			t.Errorf("%s: the digest did not change", name)
		}
	}
	same := map[string]string{
		"reformatted":      edit(`  path = "out/leads.xlsx"`, "\n\n  path    =    \"out/leads.xlsx\"   # a comment"),
		"blocks moved":     "# moved\n\n" + digestBase,
		"other export":     edit(`sheet "CRM"`, `sheet "CRM import"`),
		"enrich limit":     edit(`limit = 5`, `limit = 9`),
		"search refresh":   edit(`refresh  = "7d"`, `refresh  = "30d"`),
		"api timeout":      edit(`timeout    = "90s"`, `timeout    = "30s"`),
		"explicit default": edit(`from = [search.cto, profile.founder]`, `from = [search.cto, profile.founder]`+"\n    dedupe = true"),
	}
	for name, src := range same {
		if src == digestBase {
			t.Fatalf("%s: the edit changed nothing", name)
		}
		if got := digestOf(t, src, "export.marketing"); got != base {
			t.Errorf("%s: the digest changed, though the file would not", name)
		}
	}
}

// TestExportDigestSourceLabels: the Summary names the sources by their
// labels, so a changed label changes the digest of an export with no
// Found in column too.
func TestExportDigestSourceLabels(t *testing.T) {
	src := strings.Replace(digestBase, "  sheet \"All\" {\n    from = [search.cto, profile.founder]\n  }\n", "", 1)
	if src == digestBase {
		t.Fatal("the base has no sheet All")
	}
	base := digestOf(t, src, "export.marketing")
	labelled := strings.Replace(src, `city     = each.value`, "city     = each.value\n  label    = \"CTOs in ${each.key}\"", 1)
	if got := digestOf(t, labelled, "export.marketing"); got == base {
		t.Error("a search's label: the digest did not change")
	}
}
