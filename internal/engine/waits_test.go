package engine

import (
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// TestARefreshOnBlockWaitsForTheTrackReads: an enrich block with
// refresh_on makes no pass while a track of the run has reads to make,
// so the people read in sketch are not read whole (fillWhole) before
// them; once the reads are in, it makes its pass and they are read.
func TestARefreshOnBlockWaitsForTheTrackReads(t *testing.T) {
	src := `
api {
  sandbox = true
}
search "s" {
  keywords = "Engineer"
}
enrich "contacts" {
  from       = [search.s]
  limit      = 5
  refresh_on = ["company"]
}
track "watch" {
  from  = [enrich.contacts]
  every = "30d"
}
`
	cfg, diags := config.Load(config.LoadOptions{Dir: t.TempDir(), FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(src)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	b := &enrichBlock{cfg: cfg.Enriches[0], budget: 5}
	r := &runner{opts: Options{Config: cfg, Plan: &plan.Plan{}}, now: time.Now, st: state.New(), cpe: 1,
		pending: map[string]int{"track.watch": 3}, claimed: plan.Claims{}, cands: plan.NewCandidates(cfg, nil),
		enrichBlocks: []*enrichBlock{b}}
	r.sum = &Summary{ByStatus: map[string]int{}}
	r.creditsBudget = 5
	r.enrichDeps()
	r.releaseEnrich(false)
	if b.tried || r.filled {
		t.Fatalf("a pass before the track's reads are in: tried %v, the people in sketch read %v", b.tried, r.filled)
	}
	r.pending["track.watch"] = 0
	r.releaseEnrich(false)
	if !b.tried || !r.filled {
		t.Fatalf("no pass once the track's reads are in: tried %v, the people in sketch read %v", b.tried, r.filled)
	}
}
