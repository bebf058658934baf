package engine_test

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

const tracked = `
api {
  sandbox     = true
  parallelism = 4
  max_credits = 1000
}
search "cto" {
  keywords    = "Manager"
  max_results = 80
}
enrich "contacts" {
  from       = [search.cto]
  limit      = 50
  refresh_on = ["company"]
}
track "champions" {
  from  = [search.cto]
  every = "30d"
}
`

// driftWorld is a sandbox that drifts, the client of it, and a state that
// lives across runs.
type driftWorld struct {
	t   *testing.T
	cfg *config.Config
	sb  *sandbox.Server
	svc api.Service
	st  *state.State
}

func newDriftWorld(t *testing.T) *driftWorld {
	sb := sandbox.New(sandbox.Options{RateLimit: -1, NoLatency: true, People: 6000, Seed: 3})
	c, err := api.New(api.Options{Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
		HTTPClient: &http.Client{Transport: sb.Transport()}, RateLimit: 10000, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	return &driftWorld{t: t, cfg: load(t, tracked), sb: sb, svc: c, st: state.New()}
}

// apply plans at now (with targets) and runs the plan; it returns both and
// the calls the sandbox saw.
func (w *driftWorld) apply(now time.Time, targets ...string) (*plan.Plan, *engine.Summary, int) {
	w.t.Helper()
	p := w.plan(now, targets...)
	sum, calls := w.run(p, now)
	return p, sum, calls
}

// plan plans at now (with targets).
func (w *driftWorld) plan(now time.Time, targets ...string) *plan.Plan {
	w.t.Helper()
	p, diags := plan.Build(w.cfg, w.st, plan.Options{Now: now, Offline: true, Targets: targets})
	if diags.HasErrors() {
		w.t.Fatalf("plan: %s", diags.Error())
	}
	return p
}

// planInSketch plans targets at now over the records of w.st and its
// people in sketch, as a plan of a track read so (plan.Reads.Sketched):
// its people due are listed when asked (plan.Change.People). It is the
// plan of w.st read whole, change for change.
func (w *driftWorld) planInSketch(now time.Time, targets ...string) *plan.Plan {
	w.t.Helper()
	records := *w.st
	records.People = map[string]*state.Person{}
	records.SetTrackSketches(sketchesOf(w.st))
	p, diags := plan.Build(w.cfg, &records, plan.Options{Now: now, Offline: true, Targets: targets})
	if diags.HasErrors() {
		w.t.Fatalf("plan: %s", diags.Error())
	}
	whole := w.plan(now, targets...)
	for _, c := range whole.Changes {
		if !c.Equal(p.Change(c.Address)) {
			w.t.Fatalf("the plan in sketch differs from the whole state's at %s", c.Address)
		}
	}
	return p
}

// run runs p at now; it returns the summary and the calls the sandbox saw.
func (w *driftWorld) run(p *plan.Plan, now time.Time) (*engine.Summary, int) {
	w.t.Helper()
	before := w.sb.Stats().Accepted
	sum, err := engine.Run(context.Background(), engine.Options{Config: w.cfg, Plan: p, State: w.st, Journal: &memJournal{},
		Service: w.svc, Now: func() time.Time { return now }})
	if err != nil || sum.Failed() {
		w.t.Fatalf("run: %v %+v", err, sum.Failures)
	}
	return sum, w.sb.Stats().Accepted - before
}

// TestTrackFindsEveryJobChange: people tracked at epoch 0, the network
// moves to epoch 1; the track reads find every job change of a tracked
// person the sandbox made, and invent none; people who left or turned
// private are recorded so, without a failure; the contacts whose company
// changed are enriched again, and only they; every run makes the calls its
// plan said.
func TestTrackFindsEveryJobChange(t *testing.T) {
	w := newDriftWorld(t)
	// Run 1: the search and the enrichments; nobody is known to track yet.
	p, sum, calls := w.apply(t0)
	if c := p.Change("track.champions"); c.CallsMax != 0 || sum.Tracked != 0 {
		t.Fatalf("first run tracks %+v", c)
	}
	if calls < p.Totals.Calls || calls > p.Totals.CallsMax {
		t.Fatalf("first run: %d calls, plan %d..%d", calls, p.Totals.Calls, p.Totals.CallsMax)
	}
	people := w.st.Searches["search.cto"].LeadIDs
	if len(people) != 80 {
		t.Fatalf("%d managers kept, want 80", len(people))
	}
	// Run 2, the same epoch: every person read once, nothing changed.
	p, sum, calls = w.apply(t0.Add(24 * time.Hour))
	if c := p.Change("track.champions"); c.Calls != 80 || c.CallsMax != 80 {
		t.Fatalf("second run plans %d..%d track reads, want 80", c.Calls, c.CallsMax)
	}
	if calls != 80 || sum.Tracked != 80 || len(sum.Drift.Jobs)+len(sum.Drift.Left)+len(sum.Drift.Private) != 0 {
		t.Fatalf("second run: %d calls, %d tracked, drift %+v; want 80 reads and no change", calls, sum.Tracked, sum.Drift)
	}
	before := map[string]state.Person{} // what state held of each person before the network moved
	enrichedBefore := map[string]time.Time{}
	for _, id := range people {
		p := w.st.People[id]
		before[p.Lead.PageName] = *p
		if p.Enrichment != nil {
			enrichedBefore[p.Lead.PageName] = p.Enrichment.EnrichedAt
		}
	}
	if len(enrichedBefore) != 50 {
		t.Fatalf("%d contacts enriched, want the limit of 50", len(enrichedBefore))
	}

	// The network moves on; a month later only the track reads are due.
	if err := w.sb.SetDrift(0.3, 1); err != nil {
		t.Fatal(err)
	}
	now := t0.Add(32 * 24 * time.Hour)
	p, sum, calls = w.apply(now, "track.champions")
	if c := p.Change("track.champions"); c.Calls != 80 || calls != 80 || sum.Tracked != 80 {
		t.Fatalf("third run: plan %d reads, %d calls, %d tracked; want 80", c.Calls, calls, sum.Tracked)
	}
	// The ground truth, person by person.
	truth := map[string]sandbox.Change{}
	for _, c := range w.sb.Changes() {
		truth[c.PageName] = c // at most one change per person at epoch 1
	}
	wantRefresh := map[string]bool{}
	found := 0
	for page, old := range before {
		p := w.st.Person(old.ID)
		c, moved := truth[page]
		var seen []string
		for _, d := range p.History {
			if d.By == "track.champions" {
				seen = append(seen, d.Field)
			}
		}
		switch {
		case !moved:
			if len(seen) > 0 {
				t.Errorf("%s did not move, yet the track recorded %v", page, seen)
			}
		case c.Kind == sandbox.DriftLeft:
			if p.Status != state.StatusLeft || !slices.Equal(seen, []string{state.DriftStatus}) {
				t.Errorf("%s left the network: status %q, drifts %v", page, p.Status, seen)
			}
		case c.Kind == sandbox.DriftPrivate:
			if p.Status != state.StatusPrivate || !slices.Equal(seen, []string{state.DriftStatus}) {
				t.Errorf("%s turned private: status %q, drifts %v", page, p.Status, seen)
			}
		default:
			// A profile shows title and company, never the location.
			want := slices.DeleteFunc(c.Fields(), func(f string) bool { return f == "location" })
			if !slices.Equal(seen, want) || p.Lead.Title != c.After.Title || p.Lead.Company != c.After.Company {
				t.Errorf("%s: the sandbox changed %v (%+v -> %+v); the track recorded %v, state holds %q at %q",
					page, want, c.Before, c.After, seen, p.Lead.Title, p.Lead.Company)
			}
			found += len(want)
			if _, enriched := enrichedBefore[page]; enriched && slices.Contains(want, "company") {
				wantRefresh[page] = true
			}
		}
	}
	if found == 0 || len(wantRefresh) == 0 {
		t.Fatalf("the drift changed no tracked job (%d) or no contact's company (%d): the test proves nothing", found, len(wantRefresh))
	}
	t.Logf("%d job fields changed among the 80 tracked, %d left, %d private; %d contacts changed company",
		found, len(sum.Drift.Left), len(sum.Drift.Private), len(wantRefresh))
	if len(sum.Drift.Jobs) == 0 || len(sum.Failures) != 0 {
		t.Errorf("summary: %d job changes, failures %+v", len(sum.Drift.Jobs), sum.Failures)
	}
	for _, j := range sum.Drift.Jobs {
		if a, err := address.Parse(j.By); err != nil || j.Call != a.Kind {
			t.Errorf("job change of %s seen by %s: its call is of kind %q", j.PersonID, j.By, j.Call)
		}
	}

	// Run 4: the changes are in state, so the plan counts the
	// enrichments again exactly; apply makes those and no other.
	p, sum, calls = w.apply(now.Add(time.Hour))
	c := p.Change("enrich.contacts")
	if c.Calls != len(wantRefresh) || c.CallsMax != len(wantRefresh) {
		t.Errorf("plan enriches %d..%d again, want exactly %d (company changed)", c.Calls, c.CallsMax, len(wantRefresh))
	}
	if calls != p.Totals.Calls || calls != p.Totals.CallsMax || sum.Enriched != len(wantRefresh) {
		t.Errorf("run 4: %d calls, %d enriched; plan %d..%d", calls, sum.Enriched, p.Totals.Calls, p.Totals.CallsMax)
	}
	for page := range enrichedBefore {
		p := w.st.Person(before[page].ID)
		again := p.Enrichment.EnrichedAt.After(enrichedBefore[page])
		if again != wantRefresh[page] {
			t.Errorf("%s enriched again: %v, want %v", page, again, wantRefresh[page])
		}
		if again && p.EmailStale() {
			t.Errorf("%s: enriched again, yet the e-mail is still of the old employer", page)
		}
	}
}

// TestTrackAndReEnrichInOneRun: with the reads and the enrichments again in
// one apply, the plan says "up to" for the enrichments, and the run stays
// within it, enriching again exactly the contacts whose company changed.
// So it does with the reads queued from people in sketch, one of them gone
// since the plan: the enrichments wait for the reads made, not for the
// read of nobody.
func TestTrackAndReEnrichInOneRun(t *testing.T) {
	for _, sketched := range []bool{false, true} {
		w := newDriftWorld(t)
		w.apply(t0)
		w.apply(t0.Add(24 * time.Hour)) // the first reads: the baseline
		enrichedBefore := map[string]time.Time{}
		for id, p := range w.st.People {
			if p.Enrichment != nil {
				enrichedBefore[id] = p.Enrichment.EnrichedAt
			}
		}
		if err := w.sb.SetDrift(0.3, 1); err != nil {
			t.Fatal(err)
		}
		now := t0.Add(32 * 24 * time.Hour)
		p := w.plan(now)
		gone := 0
		if sketched {
			// Someone not enriched: an enriched one gone frees a place.
			i := slices.IndexFunc(p.Change("track.champions").People(), func(id string) bool { return enrichedBefore[id].IsZero() })
			sketchAndRemove(w.st, p.Change("track.champions").People()[i])
			gone = 1
		}
		sum, calls := w.run(p, now)
		c := p.Change("enrich.contacts")
		if c.Calls != 0 || c.CallsMax != 50 {
			t.Errorf("sketched %v: before the reads the plan enriches %d..%d; want up to the 50 contacts", sketched, c.Calls, c.CallsMax)
		}
		if calls < p.Totals.Calls-gone || calls > p.Totals.CallsMax {
			t.Errorf("sketched %v: %d calls, plan %d..%d", sketched, calls, p.Totals.Calls, p.Totals.CallsMax)
		}
		changed := 0
		for id, at := range enrichedBefore {
			q := w.st.People[id]
			if q == nil {
				continue // gone since the plan
			}
			companyChanged := q.ChangedSince(state.DriftCompany, at) && q.Status != state.StatusLeft
			if again := q.Enrichment.EnrichedAt.After(at); again != companyChanged {
				t.Errorf("sketched %v: %s: enriched again %v, company changed %v", sketched, q.Lead.PageName, again, companyChanged)
			}
			if companyChanged {
				changed++
			}
		}
		if changed == 0 || sum.Enriched != changed || calls != 80-gone+changed {
			t.Errorf("sketched %v: %d contacts changed company, %d enriched, %d calls (want %d reads + them)", sketched, changed, sum.Enriched, calls, 80-gone)
		}
	}
}

// sketchAndRemove gives st its people in sketch as well (the track reads
// of a run are then queued as one task: plan.Reads.Sketched), then
// removes the person of id, as state rm after the plan would.
func sketchAndRemove(st *state.State, id string) {
	st.SetTrackSketches(sketchesOf(st))
	delete(st.People, id)
}

// sketchesOf are the people of st in sketch.
func sketchesOf(st *state.State) *state.TrackSketches {
	var sketches []state.TrackSketch
	for _, p := range st.People {
		sketches = append(sketches, state.SketchOf(p))
	}
	return state.TrackSketchesOf(sketches)
}

// sizedStore is the store of a partial state over the people of a state
// read whole: it records the size of each Get and how often each person
// was read.
type sizedStore struct {
	state.PeopleStore // unused questions panic
	s                 *state.State
	gets              []int
	reads             map[string]int
}

func (m *sizedStore) Get(ids []string) ([]*state.Person, error) {
	m.gets = append(m.gets, len(ids))
	var out []*state.Person
	for _, id := range ids {
		if p := m.s.People[id]; p != nil {
			m.reads[id]++
			out = append(out, p)
		}
	}
	return out, nil
}

func (m *sizedStore) LeadIDs(addr string) ([]string, error) { return m.s.Searches[addr].LeadIDs, nil }
func (m *sizedStore) Names() (state.Names, error)           { return state.NamesOf(m.s.People), nil }

// TestTrackReadsInSketchQueuedAPageAtATime runs a track's plan over a
// partial state holding its people in sketch (plan.Reads.Sketched): the
// reads are queued as one task of their people, read from the store a
// page at a time as they come to the head of the queue (7 here). Each
// person the plan lists is read once, but those gone from the state since
// the plan (state rm): the calls are the plan's less theirs, never more.
func TestTrackReadsInSketchQueuedAPageAtATime(t *testing.T) {
	defer engine.SetTrackHeadPage(7)()
	w := newDriftWorld(t)
	w.apply(t0)
	now := t0.Add(24 * time.Hour)
	p := w.planInSketch(now, "track.champions")
	ids := p.Change("track.champions").People()
	sketches := sketchesOf(w.st)
	gone := map[string]bool{ids[0]: true, ids[7]: true, ids[len(ids)-1]: true}
	for id := range gone {
		delete(w.st.People, id)
	}
	records := *w.st
	records.People = map[string]*state.Person{}
	store := &sizedStore{s: w.st, reads: map[string]int{}}
	st, err := state.NewStoredBase(&records, nil, store).Writable()
	if err != nil {
		t.Fatal(err)
	}
	st.SetTrackSketches(sketches)
	before := w.sb.Stats().ByOp[sandbox.OpPage]
	sum, err := engine.Run(context.Background(), engine.Options{Config: w.cfg, Plan: p, State: st, Journal: &memJournal{},
		Service: w.svc, Now: func() time.Time { return now }})
	if err != nil || sum.Failed() {
		t.Fatalf("run: %v %+v", err, sum.Failures)
	}
	reads := w.sb.Stats().ByOp[sandbox.OpPage] - before
	if want := len(ids) - len(gone); reads != want || sum.Tracked != want {
		t.Fatalf("%d reads, %d tracked, of the plan's %d (%d gone): want %d", reads, sum.Tracked, len(ids), len(gone), want)
	}
	if len(store.gets) < len(ids)/7 || slices.Max(store.gets) > 7 {
		t.Errorf("the store was asked %v people at a time, want pages of at most 7", store.gets)
	}
	for _, id := range ids {
		q := st.People[id]
		if read := q != nil && !q.Tracked["track.champions"].IsZero(); read == gone[id] || store.reads[id] > 1 {
			t.Fatalf("person %s (gone %v) tracked %v, read from the store %d times", id, gone[id], read, store.reads[id])
		}
	}
}
