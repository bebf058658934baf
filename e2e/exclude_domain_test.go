package e2e

// An exclude block by domain on the real CLI: a domain an apply learns
// from one enrichment keeps the colleagues whose calls wait for the rate
// limit from being sent (the sandbox counts the enrichments it charged).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// domainSpendConfig finds Germany's CTOs and enriches up to 45 of them;
// exclude is appended (an exclude block or nothing).
func domainSpendConfig(exclude string) string {
	return fmt.Sprintf(`variable "sandbox_url" {
  type = string
}
api {
  base_url   = var.sandbox_url
  rate_limit = %d
}
search "ctos" {
  keywords       = "CTO"
  country_filter = ["Germany"]
  max_results    = 60
}
enrich "e" {
  from  = [search.ctos]
  limit = 45
}
export "x" {
  path = "out/leads.csv"
  sheet "Leads" {
    from = [search.ctos]
  }
}
%s`, e2eRate, exclude)
}

// TestDomainLearnedMidApplyIsNotCharged: a first project enriches
// everyone, which tells the company with the most people found and its
// domain. A second project, with a fresh state and an exclude list naming
// that domain under a sub-domain (mail.), enriches the same people: its
// calls all wait for the rate limit at once (parallelism 32), and once the
// first of that company is enriched, her colleagues' calls are not sent
// as they leave the pacer. The sandbox charged exactly the people the
// state holds enriched.
func TestDomainLearnedMidApplyIsNotCharged(t *testing.T) {
	t.Parallel()
	scout := newHarness(t, sandbox.Options{}, domainSpendConfig(""))
	if r := scout.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("first project: %s", r)
	}
	byCompany := map[string][]*state.Person{}
	for _, p := range scout.loadState().People {
		if p.Enrichment != nil && p.Enrichment.Result.CompanyDomain != "" {
			k := listfile.CompanyKey(p.Lead.Company)
			byCompany[k] = append(byCompany[k], p)
		}
	}
	var company []*state.Person
	for _, ps := range byCompany {
		if len(ps) > len(company) || len(ps) == len(company) && ps[0].ID < company[0].ID {
			company = ps
		}
	}
	if len(company) < 3 {
		t.Fatalf("no company with 3 people among the CTOs found (most: %d): the test needs colleagues", len(company))
	}
	domain := company[0].Enrichment.Result.CompanyDomain

	h := newHarness(t, sandbox.Options{}, domainSpendConfig(`exclude "dom" {
  file   = "crm/domains.csv"
  column = "Domain"
  by     = "domain"
}
`))
	writeFile(t, filepath.Join(h.dir, "crm", "domains.csv"), "sep=;\nDomain;Note\nmail."+domain+";a\n")
	before := h.srv.Stats()
	ar := h.applyJSON(nil)
	if ar.code != 0 {
		t.Fatalf("apply: %s", ar.result)
	}
	after := h.srv.Stats()
	st := h.loadState()
	enriched := 0
	for _, p := range st.People {
		if p.Enrichment != nil {
			enriched++
			if n := after.Enriched[p.Lead.PageName] - before.Enriched[p.Lead.PageName]; n != 1 {
				t.Errorf("%s: charged %d times, want once", p.Lead.PageName, n)
			}
		}
	}
	if got := after.CreditsSpent - before.CreditsSpent; got != enriched {
		t.Errorf("the sandbox charged %d credits for %d people enriched", got, enriched)
	}
	atCompany := 0
	for _, p := range company {
		if q := st.Person(p.ID); q != nil && q.Enrichment != nil {
			atCompany++
		}
	}
	// The first of the company is enriched (her enrichment is the first
	// to tell the domain); a colleague whose call was already sent may be
	// too, but not all of them: their calls wait for the rate limit.
	if atCompany == 0 || atCompany == len(company) {
		t.Errorf("%d of the %d people at %s (%s) enriched; want the first and not all of her colleagues", atCompany, len(company), company[0].Lead.Company, domain)
	}
	notEnriched := len(scout.loadState().People) - enriched
	if notEnriched != len(company)-atCompany {
		t.Errorf("%d people not enriched, want the %d colleagues only", notEnriched, len(company)-atCompany)
	}
	// The apply and the Summary sheet count those, not the people the
	// list names who were enriched.
	if want := regexp.MustCompile(fmt.Sprintf(`"not_spent":\{[^}]*"excluded":%d[,}]`, notEnriched)); !want.MatchString(ar.stdout) {
		t.Errorf("apply's summary does not say %s:\n%s", want, ar.stdout)
	}
	sum, err := os.ReadFile(filepath.Join(h.dir, "out", "leads.summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("People not enriched: on an exclude list,%d,", notEnriched)
	if !strings.Contains(string(sum), row) || !strings.Contains(string(sum), "saved 1 credit each") {
		t.Errorf("summary lacks %q (saved 1 credit each):\n%s", row, sum)
	}
}
