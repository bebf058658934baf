package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// domainService is fakeService whose enrichments give the company's
// domain, acme.example (every person of fakeService works at ACME).
type domainService struct{ *fakeService }

func (d domainService) Enrich(ctx context.Context, req api.PageRequest) (*api.EnrichedProfile, error) {
	r, err := d.fakeService.Enrich(ctx, req)
	if r != nil {
		r.Company, r.CompanyDomain = "ACME", "acme.example"
	}
	return r, err
}

// TestDomainLearnedMidApplyStopsColleagues: an exclude block lists the
// domain acme.example, which nobody's company is known by when the apply
// starts, so all five colleagues at ACME are chosen for enrichment. The
// first enrichment gives ACME's domain: before each paid call the
// exclusion is checked again, and the four others are not enriched.
func TestDomainLearnedMidApplyStopsColleagues(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.leads.hcl": `
api {
  sandbox     = true
  parallelism = 1
  max_credits = 1000
}
search "a" {
  keywords = "alpha"
}
enrich "all" {
  from = [search.a]
}
exclude "customers" {
  file   = "customers.csv"
  column = "Domain"
  by     = "domain"
}
`,
		"customers.csv": "Domain\nwww.acme.example\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		t.Fatalf("config: %s", diags.Error())
	}
	st := state.New()
	svc := newFake()
	sum := run(t, cfg, st, build(t, cfg, st), domainService{svc}, &memJournal{}, nil)
	if got := svc.count("enrich:"); got != 1 {
		t.Errorf("enrichments = %d, want 1 (the first gives ACME's domain, which the exclude block lists)", got)
	}
	if sum.NotSpent.Excluded != 4 {
		t.Errorf("excluded %d, want 4", sum.NotSpent.Excluded)
	}
	if sum.Credits != 1 {
		t.Errorf("credits spent %d, want 1", sum.Credits)
	}
}
