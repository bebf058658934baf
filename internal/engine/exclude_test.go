package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// domainService is fakeService whose enrichments give the company's
// domain, acme.example (every person of fakeService works at ACME).
type domainService struct{ *fakeService }

func (d domainService) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	r, err := d.fakeService.Enrich(ctx, req)
	if r != nil {
		r.Company, r.CompanyDomain = "ACME", "acme.example"
	}
	return r, err
}

// domainConfig loads a configuration whose exclude block lists the domain
// acme.example, which nobody's company is known by when the apply starts,
// so that all five colleagues at ACME are chosen for enrichment; the
// first enrichment gives ACME's domain.
func domainConfig(t *testing.T, parallelism int) *config.Config {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.leads.hcl": fmt.Sprintf(`
api {
  sandbox     = true
  parallelism = %d
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
`, parallelism),
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
	return cfg
}

// TestDomainLearnedMidApplyStopsColleagues: before each paid call the
// exclusion is checked again, and the four colleagues of the first person
// enriched are not enriched.
func TestDomainLearnedMidApplyStopsColleagues(t *testing.T) {
	cfg := domainConfig(t, 1)
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

// pacedService is domainService behind a pacer that lets one call through
// at a time, the next once the journal has the last one's result (as the
// rate limit of 1 call/s does with a fast service): the calls wait for it
// in flight, started before anything was learned.
type pacedService struct {
	domainService
	turn chan struct{}
}

func (p pacedService) Enrich(ctx context.Context, req api.PageRequest) (*person.EnrichedProfile, error) {
	<-p.turn
	if err := api.Started(ctx); err != nil {
		p.turn <- struct{}{} // not sent: the next goes
		return nil, err
	}
	return p.domainService.Enrich(ctx, req)
}

// pacedJournal gives the pacer's turn back once an enrichment is written.
type pacedJournal struct {
	memJournal
	turn chan struct{}
}

func (j *pacedJournal) Append(e *state.Event) error {
	err := j.memJournal.Append(e)
	if e.Kind == state.EventEnrich {
		j.turn <- struct{}{}
	}
	return err
}

// TestDomainLearnedStopsCallsWaitingForTheRateLimit: with parallelism 5
// all five colleagues' calls are under way at once, waiting for the rate
// limit, before the first result comes; the check made as each leaves the
// pacer, not only the one made as it was queued, keeps the four others
// from being sent.
func TestDomainLearnedStopsCallsWaitingForTheRateLimit(t *testing.T) {
	cfg := domainConfig(t, 5)
	st := state.New()
	svc := newFake()
	turn := make(chan struct{}, 1)
	turn <- struct{}{}
	j := &pacedJournal{turn: turn}
	sum := run(t, cfg, st, build(t, cfg, st), pacedService{domainService{svc}, turn}, j, nil)
	if got := svc.count("enrich:"); got != 1 {
		t.Errorf("enrichments = %d, want 1 (the others waited for the rate limit while ACME's domain was learned)", got)
	}
	if sum.NotSpent.Excluded != 4 || sum.Credits != 1 || len(sum.Failures) != 0 {
		t.Errorf("excluded %d, credits %d, failures %v; want 4, 1, none", sum.NotSpent.Excluded, sum.Credits, sum.Failures)
	}
	for _, e := range j.events {
		if e.Kind == state.EventEnrichPending && e.Enrich != nil && st.Person(e.Enrich.PersonID).Enrichment == nil {
			t.Errorf("a pending enrichment of %s was noted for a call never sent", e.Enrich.PersonID)
		}
	}
}

// TestExcludedImportIsNoSaving: an import gives two people an e-mail, and
// an exclude block names one of them by it: the apply's saving counts the
// other only (the excluded one would not be enriched anyway).
func TestExcludedImportIsNoSaving(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.leads.hcl": `
api {
  sandbox = true
}
import "crm" {
  file    = "crm.csv"
  columns = { page_name = "Page", email = "Email" }
}
enrich "all" {
  from = [import.crm]
}
exclude "bounced" {
  file   = "bounced.csv"
  column = "Email"
  by     = "email"
}
`,
		"crm.csv":     "Page,Email\nAnn_A,ann@acme.example\nBob_B,bob@acme.example\n",
		"bounced.csv": "Email\nBOB@acme.example\n",
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
	sum := run(t, cfg, st, build(t, cfg, st), svc, &memJournal{}, nil)
	if sum.NotSpent.Imported != 1 || len(sum.Imported) != 1 || sum.Imported[0].Enriched != 2 || sum.Imported[0].Saved != 1 {
		t.Errorf("not spent %+v, imported %+v; want 1 imported saving of 2 e-mails", sum.NotSpent, sum.Imported)
	}
	if n := svc.count("enrich:"); n != 0 {
		t.Errorf("%d enrichments, want none", n)
	}
}

// TestNotSpentWithinLimit: four of five people are excluded, but the
// block's limit is 2: the run could have spent 2 credits at most, and
// says it did not spend up to 2, not 4.
func TestNotSpentWithinLimit(t *testing.T) {
	cfg := domainConfig(t, 1)
	cfg.Enriches[0].Limit = 2
	st := state.New()
	svc := newFake()
	sum := run(t, cfg, st, build(t, cfg, st), domainService{svc}, &memJournal{}, nil)
	if got := svc.count("enrich:"); got != 1 {
		t.Errorf("enrichments = %d, want 1", got)
	}
	if sum.NotSpent.Excluded != 1 || sum.NotSpent.Credits() != 1 {
		t.Errorf("not spent %+v, want 1 excluded: the limit of 2 less the one enriched", sum.NotSpent)
	}
}
