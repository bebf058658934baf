package backendtest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// trackPlanConfig is three searches and a track (FROM replaced): the
// applies track search.s["Hamburg"], the plans search.s["Berlin"] and
// import.crm (of crm.csv), so that the track's people are its source's,
// the file's and those it read before.
const trackPlanConfig = `api {
  sandbox     = true
  rate_limit  = 50
  parallelism = 2
}
search "s" {
  for_each    = toset(["Berlin", "Hamburg", "Munich"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
track "t" {
  from  = [FROM]
  every = "30d"
}
`

// testTrackPlan: the plan of a track and of an import on a backend that
// reads people on request reads no state whole (plan.ReadsOf names the
// track's source, the people it read before through the store's
// Tracked, the file's members by network ID) and is the plan of the
// state loaded whole, byte for byte.
func testTrackPlan(t *testing.T, k Kind) {
	open := k.New(t)
	probe := open("", Alice)
	inPart := backend.ReadsInPart(probe)
	backend.Close(probe)
	if !inPart {
		t.Skip("the backend reads its state whole")
	}
	dir := t.TempDir()
	for range 2 { // the searches, then the track's reads
		trackPlanStep(t, open, dir, `search.s["Hamburg"]`, "", nil, true)
	}
	whole, err := loadOnce(open("", Alice))
	must(t, err, "load")
	csv := "ID,Email\n99999.abc,new@crm.example\n"
	for _, id := range whole.Searches[`search.s["Munich"]`].LeadIDs[:2] {
		csv += id + ",a" + id + "@crm.example\n"
	}
	for _, targets := range [][]string{nil, {"track.t"}, {"import.crm"}} {
		p, cfg, loads := trackPlanStep(t, open, dir, `search.s["Berlin"], import.crm`, csv, targets, false)
		if loads != 0 {
			t.Errorf("targets %q: the plan loaded the state whole %d times", targets, loads)
		}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: At(120), Targets: targets, Offline: true})
		if d := cmp.Diff(planText(t, want), planText(t, p)); d != "" {
			t.Errorf("targets %q: the plan differs from the plan of the state loaded whole (-whole +read):\n%s", targets, d)
		}
		if c := p.Change("track.t"); c != nil && !strings.Contains(c.Detail, "3 no longer in its sources") {
			t.Errorf("targets %q: the track's people read before are not watched: %s", targets, c.Detail)
		}
	}
}

// trackPlanStep applies (apply) or plans trackPlanConfig of a track from
// from, with import.crm of csv when csv is not empty, and returns the
// plan, its configuration and how often the state was loaded whole.
func trackPlanStep(t *testing.T, open func(string, Who) backend.Backend, dir, from, csv string, targets []string, apply bool) (*plan.Plan, *config.Config, int) {
	t.Helper()
	text := strings.Replace(trackPlanConfig, "FROM", from, 1)
	fsys := fstest.MapFS{}
	if csv != "" {
		text += "import \"crm\" {\n  file    = \"crm.csv\"\n  columns = { network_id = \"ID\", email = \"Email\" }\n}\n"
		fsys["crm.csv"] = &fstest.MapFile{Data: []byte(csv)}
	}
	return trackPlanFiles(t, open, dir, text, fsys, targets, apply)
}

// trackPlanFiles is trackPlanStep of the configuration text, with the
// files of fsys beside it.
func trackPlanFiles(t *testing.T, open func(string, Who) backend.Backend, dir, text string, fsys fstest.MapFS, targets []string, apply bool) (*plan.Plan, *config.Config, int) {
	t.Helper()
	fsys["main.leads.hcl"] = &fstest.MapFile{Data: []byte(text)}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b := open("", Bob)
	defer backend.Close(b)
	lc := &loadCounter{Backend: b}
	svc := sandboxClient(t)
	d := run.Deps{Backend: lc, Service: func() (api.Service, error) { return svc, nil }, Now: func() time.Time { return At(120) },
		Interrupt: make(chan os.Signal)}
	if apply {
		err := run.Apply(context.Background(), d, run.ApplyOptions{Config: cfg, AutoApprove: true}, &applyView{})
		if err != nil && !errors.Is(err, run.ErrFailed) {
			t.Fatalf("apply: %v", err)
		}
		return nil, cfg, lc.loads
	}
	p, diags, err := run.Plan(context.Background(), d, run.PlanOptions{Config: cfg, Targets: targets, Offline: true})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	return p, cfg, lc.loads
}

func planText(t *testing.T, p *plan.Plan) string {
	t.Helper()
	b, err := json.MarshalIndent(p, "", " ")
	must(t, err, "plan as JSON")
	return string(b)
}

// colleagueImport imports crm.csv (a person new to the state, with a
// company and its domain); colleagueExclude excludes by domain the domains
// of domains.csv.
const (
	colleagueImport = `import "crm" {
  file    = "crm.csv"
  columns = { network_id = "ID", email = "Email", company = "Company", company_domain = "Domain" }
}
`
	colleagueExclude = `exclude "rivals" {
  file   = "domains.csv"
  column = "Domain"
  by     = "domain"
}
`
)

// testTrackPlanColleagues: an exclude block by domain matches a person of
// a planned track by a colleague's company domain (the same company),
// which the enrichment of someone the plan reads not gives: a person an
// import brought. The plan asks the store for the company domains of the
// enrichments (Base.CompanyDomains) and loads no state whole; it is the
// plan of the state loaded whole, the colleague excluded.
func testTrackPlanColleagues(t *testing.T, k Kind) {
	open := k.New(t)
	probe := open("", Alice)
	inPart := backend.ReadsInPart(probe)
	backend.Close(probe)
	if !inPart {
		t.Skip("the backend reads its state whole")
	}
	dir := t.TempDir()
	trackPlanStep(t, open, dir, `search.s["Hamburg"]`, "", nil, true)
	before, err := loadOnce(open("", Alice))
	must(t, err, "load")
	berlin := before.People[before.Searches[`search.s["Berlin"]`].LeadIDs[0]]
	company := `"` + strings.ReplaceAll(berlin.Lead.Company, `"`, `""`) + `"`
	text := strings.Replace(trackPlanConfig, "FROM", `search.s["Hamburg"]`, 1) + colleagueImport
	fsys := fstest.MapFS{"crm.csv": &fstest.MapFile{Data: []byte(
		"ID,Email,Company,Domain\n99999.abc,new@rival.example," + company + ",rival.example\n")}}
	trackPlanFiles(t, open, dir, text, fsys, []string{"import.crm"}, true)
	whole, err := loadOnce(open("", Alice))
	must(t, err, "load")
	if p := whole.People["99999.abc"]; p == nil || p.Enrichment == nil || p.Enrichment.Result.CompanyDomain != "rival.example" {
		t.Fatalf("the import recorded no company domain: %+v", p)
	}
	text = strings.Replace(trackPlanConfig, "FROM", `search.s["Berlin"]`, 1) + colleagueImport + colleagueExclude
	for _, targets := range [][]string{nil, {"track.t"}} {
		fsys["domains.csv"] = &fstest.MapFile{Data: []byte("Domain\nrival.example\n")}
		p, cfg, loads := trackPlanFiles(t, open, dir, text, fsys, targets, false)
		if loads != 0 {
			t.Errorf("targets %q: the plan loaded the state whole %d times", targets, loads)
		}
		want, _ := plan.Build(cfg, whole, plan.Options{Now: At(120), Targets: targets, Offline: true})
		if d := cmp.Diff(planText(t, want), planText(t, p)); d != "" {
			t.Errorf("targets %q: the plan differs from the plan of the state loaded whole (-whole +read):\n%s", targets, d)
		}
		if c := p.Change("track.t"); c == nil || !strings.Contains(c.Detail, "excluded") {
			t.Errorf("targets %q: the colleague of the imported person is not excluded: %+v", targets, c)
		}
	}
}
