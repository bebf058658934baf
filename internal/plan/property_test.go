package plan

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestPlanNeverUnderstates builds random configurations and states, plans
// them, then plays an apply with random search results (new people, people
// already known with changed leads, failed calls) and random timing of the
// enrich blocks and of their enrichments, choosing people with
// EnrichCandidatesClaimed as apply does (and, when every call is done,
// in rounds until one claims nobody). The enrichments made must never
// exceed the plan's calls_max per block, nor its totals; when nothing runs,
// they must equal the plan's certain counts; and the plan after the apply
// has nothing left to enrich.
// The worlds include track blocks (of searches, profiles, enrich blocks
// and imports, with past reads of every outcome) and enrich blocks with
// refresh_on; apply reads the people each track change lists (some reads
// fail), each read finding the same job, a new one, a private profile or
// none (left the network), and the enrich blocks with refresh_on take
// their people again after the reads, as the engine's do. The worlds also
// hold an import of known people, which fills in what state lacks of them
// and replaces older enrichments. Each track makes exactly its plan's
// reads; after the apply, a track reads again only people who were not
// its people when the plan was made (brought by this apply) or whose read
// failed, and no enrich block has a certain enrichment left.
// Split searches are played here by simulateSplit, a model of the
// executor; TestSplitCallsWithinPlanProperty (internal/engine) checks the
// real executor against the sandbox.
func TestPlanNeverUnderstates(t *testing.T) {
	useTestMatch(t)
	runs := 300
	if n, err := strconv.Atoi(os.Getenv("PLAN_PROPERTY_RUNS")); err == nil {
		runs = n
	}
	if testing.Short() {
		runs = 100
	}
	for seed := range runs {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x1ead))
		f, o := randomWorld(rng)
		p, diags := Build(f.cfg, f.st, o)
		if diags.HasErrors() {
			t.Fatalf("seed %d: %s", seed, diags.Error())
		}
		// Saved, the plan as made is within what it was made from.
		if err := p.Within("leads.plan", f.cfg, f.st); err != nil {
			t.Fatalf("seed %d: the plan as made, saved, is refused: %v", seed, err)
		}
		// The people each track reads in this apply or read within its
		// every when the plan was made.
		watched := map[string]map[string]bool{}
		for _, tr := range f.cfg.Tracks {
			watched[tr.Address] = map[string]bool{}
			if c := p.Change(tr.Address); c != nil {
				for _, id := range c.People() {
					watched[tr.Address][id] = true
				}
			}
			for _, q := range TrackedPeople(f.cfg, f.st, tr, t0) {
				if at := q.Checked(); at != nil && q.Lead.PageName != "" && t0.Sub(*at) < tr.Every {
					watched[tr.Address][q.ID] = true
				}
			}
		}
		counts, nothingRan, failedReads := simulateApply(rng, f, p)
		for _, tr := range f.cfg.Tracks {
			if c := p.Change(tr.Address); c != nil && (counts[tr.Address] != c.Calls || c.Calls != c.CallsMax) {
				t.Errorf("seed %d: %s read %d people, plan said %d..%d (%s)", seed, tr.Address, counts[tr.Address], c.Calls, c.CallsMax, c.Detail)
			}
		}
		searchCalls := 0
		for _, s := range f.cfg.Searches {
			c := p.Change(s.Address)
			if c == nil {
				continue
			}
			n := counts[s.Address]
			searchCalls += n
			if n > c.CallsMax {
				t.Errorf("seed %d: %s made %d calls, plan said at most %d (%s)", seed, s.Address, n, c.CallsMax, c.Detail)
			}
		}
		if searchCalls > p.Totals.SearchesMax {
			t.Errorf("seed %d: %d search calls in all, plan said at most %d", seed, searchCalls, p.Totals.SearchesMax)
		}
		total := 0
		for _, e := range f.cfg.Enriches {
			c := p.Change(e.Address)
			if c == nil {
				continue
			}
			n := counts[e.Address]
			total += n
			if n > c.CallsMax {
				t.Errorf("seed %d: %s enriched %d people, plan said at most %d (%s)", seed, e.Address, n, c.CallsMax, c.Detail)
			}
			if nothingRan && n != c.Calls {
				t.Errorf("seed %d: %s enriched %d people with nothing run, plan said %d", seed, e.Address, n, c.Calls)
			}
		}
		if total > p.Totals.EnrichmentsMax || total*f.cfg.API.CreditsPerEnrich > p.Totals.CreditsMax {
			t.Errorf("seed %d: %d enrichments in all, plan said at most %d (%d credits)", seed, total, p.Totals.EnrichmentsMax, p.Totals.CreditsMax)
		}
		if nothingRan && total != p.Totals.Enrichments {
			t.Errorf("seed %d: %d enrichments with nothing run, plan said %d", seed, total, p.Totals.Enrichments)
		}
		// Apply did the job: the plan after it enriches nobody known, and
		// nobody at all unless a source is to run again (it failed).
		o.Replace = nil
		next, diags := Build(f.cfg, f.st, o)
		if diags.HasErrors() {
			t.Fatalf("seed %d, the plan after: %s", seed, diags.Error())
		}
		again := false
		for _, c := range next.Changes {
			if (c.Kind == kind.Search || c.Kind == kind.Profile || c.Kind == kind.Track) && c.CallsMax > 0 {
				again = true
			}
		}
		for _, e := range f.cfg.Enriches {
			if c := next.Change(e.Address); c != nil && (c.Calls > 0 || (!again && c.CallsMax > 0)) {
				t.Errorf("seed %d: after apply the plan still has %s: %s (%d..%d)", seed, e.Address, c.Detail, c.Calls, c.CallsMax)
			}
		}
		for _, tr := range f.cfg.Tracks {
			c := next.Change(tr.Address)
			if c == nil {
				continue
			}
			for _, id := range c.People() {
				if watched[tr.Address][id] && !failedReads[id] {
					t.Errorf("seed %d: after apply %s reads %s again, read by this apply or before it within every (%s)", seed, tr.Address, id, c.Detail)
				}
			}
		}
	}
}

// randomWorld makes a small configuration and a state that partly matches it.
func randomWorld(rng *rand.Rand) (*fixture, Options) {
	f := newFixture()
	f.cfg.API.MaxCredits = 1 << 30
	f.cfg.API.CreditsPerEnrich = 1 + rng.IntN(3)
	pool := 20 + rng.IntN(60)
	personID := func() string { return fmt.Sprintf("%d.p", rng.IntN(pool)) }
	pick := func(xs ...int) int { return xs[rng.IntN(len(xs))] }
	durs := []time.Duration{0, 5 * day, 30 * day}

	// Searches: search.a["0".."n"] and search.b.
	var refs []string
	na := 1 + rng.IntN(4)
	for i := range na {
		f.search(fmt.Sprintf(`search.a["%d"]`, i), kw("a", "city", fmt.Sprint(i)),
			maxResults(pick(0, 3, 8, 20)), refresh(durs[rng.IntN(2)]))
		refs = append(refs, fmt.Sprintf(`search.a["%d"]`, i))
	}
	refs = append(refs, "search.a")
	f.search("search.b", kw("b"), maxResults(pick(0, 5, 12)), refresh(durs[rng.IntN(2)]))
	refs = append(refs, "search.b")
	if rng.IntN(2) == 0 {
		f.search("search.s", kw("s"), maxResults(pick(0, 50, 700)), refresh(durs[rng.IntN(2)]), randomSplit(rng))
		refs = append(refs, "search.s")
	}
	for i := range rng.IntN(3) {
		addr := fmt.Sprintf("profile.p%d", i)
		f.profile(addr, fmt.Sprintf("page-%d.p", rng.IntN(pool)))
		refs = append(refs, addr)
	}
	if rng.IntN(3) == 0 {
		refs = append(refs, worldImport(rng, f, pool))
	}

	// State: people known to the searches that ran.
	leadOf := func(id string) person.Lead {
		l := lead(id)
		if rng.IntN(3) == 0 {
			l.Company = ""
		}
		return l
	}
	runSearch := func(addr string, req api.SearchRequest, mr int, at time.Time) {
		n := rng.IntN(30)
		leads := make([]person.Lead, n)
		for i := range leads {
			leads[i] = leadOf(personID())
		}
		body, _ := json.Marshal(req)
		f.apply(state.Event{At: at, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{
			Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads, MaxResults: mr}})
	}
	for _, s := range f.cfg.Searches {
		if s.SplitBy != nil {
			worldSplit(rng, f, s)
			continue
		}
		switch rng.IntN(4) {
		case 0: // never ran
		case 1: // ran with another request
			runSearch(s.Address, api.SearchRequest{Params: kw("old")}, pick(0, 4), t0.Add(-time.Duration(rng.IntN(10))*day))
		default:
			runSearch(s.Address, s.Request, pick(0, 4, 30), t0.Add(-time.Duration(rng.IntN(10))*day))
		}
	}
	if rng.IntN(2) == 0 {
		runSearch("search.gone", api.SearchRequest{Params: kw("gone")}, 0, t0.Add(-day))
	}
	for _, p := range f.cfg.Profiles {
		if rng.IntN(2) == 0 {
			f.read(p.Address, t0.Add(-time.Duration(rng.IntN(10))*day))
		}
	}
	// Some people without a page name.
	for _, id := range sortedPeople(f.st) {
		p := f.st.People[id]
		if rng.IntN(15) == 0 && id[0] != 'p' {
			p.Lead.PageName = ""
		}
	}

	// Enrich blocks.
	ne := 1 + rng.IntN(3)
	var blocks []string
	for i := range ne {
		var from []string
		for _, r := range refs {
			if rng.IntN(3) == 0 {
				from = append(from, r)
			}
		}
		if len(from) == 0 {
			from = []string{refs[rng.IntN(len(refs))]}
		}
		e := f.enrich(fmt.Sprintf("e%d", i), from, pick(0, 0, 2, 5, 12), durs[rng.IntN(3)])
		if rng.IntN(2) == 0 {
			whereCompany(e)
		}
		blocks = append(blocks, e.Address)
	}
	blocks = append(blocks, "enrich.gone")
	// Enrichments already made, of various ages and by various blocks.
	for _, id := range sortedPeople(f.st) {
		if rng.IntN(3) == 0 {
			age := []time.Duration{day, 7 * day, 40 * day, 400 * day}[rng.IntN(4)]
			if f.st.People[id].Lead.PageName != "" {
				f.enriched(id, blocks[rng.IntN(len(blocks))], t0.Add(-age))
			}
		}
	}
	worldTracks(rng, f, refs, blocks[:len(blocks)-1])
	o := Options{Now: t0, Offline: true, FileExists: func(string) bool { return true }}
	if rng.IntN(4) == 0 {
		o.Replace = []string{f.cfg.Searches[rng.IntN(len(f.cfg.Searches))].Address}
	}
	if len(f.cfg.Tracks) > 0 && rng.IntN(4) == 0 {
		o.Replace = append(o.Replace, f.cfg.Tracks[rng.IntN(len(f.cfg.Tracks))].Address)
	}
	if rng.IntN(4) == 0 {
		o.Targets = []string{f.cfg.Enriches[rng.IntN(len(f.cfg.Enriches))].Address}
		if len(f.cfg.Tracks) > 0 && rng.IntN(2) == 0 {
			o.Targets = append(o.Targets, f.cfg.Tracks[rng.IntN(len(f.cfg.Tracks))].Address)
		}
	}
	if CheckAddresses(f.cfg, f.st, o.Targets, o.Replace).HasErrors() {
		// A replacement the target leaves out is refused: target it too.
		o.Targets = append(o.Targets, o.Replace...)
	}
	return f, o
}

// worldImport declares import.legacy, a file naming a few people of the
// pool (some with an e-mail), imported before or not, and returns its
// address.
func worldImport(rng *rand.Rand, f *fixture, pool int) string {
	var ids []string
	var email []bool
	seen := map[string]bool{}
	for range 2 + rng.IntN(6) {
		id := fmt.Sprintf("%d.p", rng.IntN(pool))
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
			email = append(email, rng.IntN(2) == 0)
		}
	}
	im := f.importBlock("legacy", "d1", t0.Add(-30*day), ids, email)
	if rng.IntN(2) == 0 {
		f.imported(im, t0.Add(-5*day))
		if rng.IntN(2) == 0 {
			im.ListFile.Digest = "d2" // the file changed since: imported again
		}
	}
	return im.Address
}

// worldTracks gives the enrich blocks random refresh_on, declares up to
// two track blocks of random sources (searches, profiles, the import,
// enrich blocks) and every 5 or 30 days, and reads some of their people
// in the past, with every outcome.
func worldTracks(rng *rand.Rand, f *fixture, refs, blocks []string) {
	for _, e := range f.cfg.Enriches {
		e.RefreshOn = [][]string{nil, nil, {"company"}, {"title"}, {"company", "title"}}[rng.IntN(5)]
	}
	srcs := append(append([]string{}, refs...), blocks...)
	for i := range rng.IntN(3) {
		var from []string
		for _, r := range srcs {
			if rng.IntN(3) == 0 {
				from = append(from, r)
			}
		}
		if len(from) == 0 {
			from = []string{srcs[rng.IntN(len(srcs))]}
		}
		f.track(fmt.Sprintf("t%d", i), []time.Duration{5 * day, 30 * day}[rng.IntN(2)], from...)
	}
	for _, tr := range f.cfg.Tracks {
		for _, id := range sortedPeople(f.st) {
			if f.st.People[id].Lead.PageName == "" || rng.IntN(3) > 0 {
				continue
			}
			age := []time.Duration{day, 10 * day, 40 * day}[rng.IntN(3)]
			f.apply(randomTrackRead(rng, f.st, tr.Address, id, t0.Add(-age)))
		}
	}
}

// randomTrackRead is a read of person id by the track at addr: the same
// job, a new company, a new title, a private profile or none (gone).
func randomTrackRead(rng *rand.Rand, st *state.State, addr, id string, at time.Time) state.Event {
	p := st.Person(id)
	te := &state.TrackEvent{PersonID: id, Generation: api.Gen1, Request: []byte(`{"pageName":"x"}`)}
	title, company := p.Lead.Title, p.Lead.Company
	switch rng.IntN(8) {
	case 0:
		te.Gone = true
	case 1:
		te.Profile = &person.Profile{Private: true}
	case 2, 3:
		company = fmt.Sprintf("Moved Co %d", rng.IntN(1000))
	case 4:
		title = "VP " + title
	}
	if !te.Gone && te.Profile == nil {
		te.Profile = &person.Profile{FullName: p.Lead.FullName, CurrentPosition: []person.Position{{JobTitle: title, Company: company}}}
	}
	return state.Event{At: at, Kind: state.EventTrack, Address: addr, Track: te}
}

// truth is the network as one apply sees it: each person's job, chosen
// once per apply from what state holds of them (most the same, some a new
// company or title, a few private or gone), so that every call of the
// apply (search, profile read, track read, enrichment) agrees on it, as
// the service's answers in one run do.
type truth struct {
	rng  *rand.Rand
	st   *state.State
	jobs map[string]*truthJob
}

type truthJob struct {
	title, company string
	gone, private  bool
}

func newTruth(rng *rand.Rand, st *state.State) *truth {
	return &truth{rng: rng, st: st, jobs: map[string]*truthJob{}}
}

// of returns the job of person id in this apply. A person is known by
// their page name, which stays when a person known by it alone gets their
// network ID.
func (w *truth) of(id string) *truthJob {
	key, ok := strings.CutPrefix(id, state.PagePrefix)
	if !ok {
		key = lead(id).PageName
	}
	if j := w.jobs[key]; j != nil {
		return j
	}
	l := lead(id)
	if p := w.st.Person(id); p != nil {
		l = p.Lead
	}
	j := &truthJob{title: l.Title, company: l.Company}
	switch w.rng.IntN(10) {
	case 0:
		j.gone = true
	case 1:
		j.private = true
	case 2, 3:
		j.company = fmt.Sprintf("Moved Co %d", w.rng.IntN(1000))
	case 4:
		j.title = "VP " + j.title
	}
	if j.company == "" {
		j.company = "Co " + id
	}
	w.jobs[key] = j
	return j
}

// lead returns the lead of id a search of this apply finds.
func (w *truth) lead(id string) person.Lead {
	l, j := lead(id), w.of(id)
	l.Title, l.Company = j.title, j.company
	return l
}

// read returns a track read of person id by addr at at.
func (w *truth) read(addr, id string, at time.Time) state.Event {
	j := w.of(id)
	te := &state.TrackEvent{PersonID: id, Generation: api.Gen1, Request: []byte(`{"pageName":"x"}`)}
	switch {
	case j.gone:
		te.Gone = true
	case j.private:
		te.Profile = &person.Profile{Private: true}
	default:
		te.Profile = &person.Profile{FullName: "P " + id, CurrentPosition: []person.Position{{JobTitle: j.title, Company: j.company}}}
	}
	return state.Event{At: at, Kind: state.EventTrack, Address: addr, Track: te}
}

// simulateApply plays p against f's state the way apply does and returns
// how many people each enrich block enriched (and how many calls each
// search and track made), whether no source ran, and the people whose
// track read failed.
func simulateApply(rng *rand.Rand, f *fixture, p *Plan) (map[string]int, bool, map[string]bool) {
	counts := map[string]int{}
	calls := map[string]int{}
	failedReads := map[string]bool{}
	world := newTruth(rng, f.st)
	f.truth = world.lead
	defer func() { f.truth = nil }()
	defer func() {
		for addr, n := range calls {
			counts[addr] = n
		}
	}()
	var sources []*Change
	pending := map[string]bool{}
	for _, c := range p.Changes {
		if (c.Kind == kind.Search || c.Kind == kind.Profile || c.Kind == kind.Track) && c.CallsMax > 0 {
			sources = append(sources, c)
			pending[c.Address] = true
		}
	}
	rng.Shuffle(len(sources), func(i, j int) { sources[i], sources[j] = sources[j], sources[i] })
	nothingRan := len(sources) == 0

	type block struct {
		e        *config.Enrich
		released bool
	}
	var blocks []*block
	for _, e := range f.cfg.Enriches {
		if c := p.Change(e.Address); c != nil && c.CallsMax > 0 {
			blocks = append(blocks, &block{e: e})
		}
	}
	at := t0.Add(time.Minute)
	// As apply: a pass claims people (EnrichCandidatesClaimed); their
	// enrichments are made later, in any order, while other passes go on.
	claims := Claims{}
	var queued []string // claimed, not yet enriched
	release := func(b *block) int {
		b.released = true
		todo, err := EnrichCandidatesClaimed(f.cfg, f.st, b.e, t0, claims)
		if err != nil {
			panic(err)
		}
		for _, id := range todo {
			claims[id] = b.e.Address
			queued = append(queued, id)
			counts[b.e.Address]++
		}
		return len(todo)
	}
	land := func(n int) {
		for _, id := range queued[:n] {
			pp := f.st.Person(id)
			at = at.Add(time.Second)
			j := world.of(pp.ID)
			f.apply(state.Event{At: at, Kind: state.EventEnrich, Address: claims[id], Enrich: &state.EnrichEvent{
				PersonID: id, Credits: f.cfg.API.CreditsPerEnrich,
				Result: person.EnrichedProfile{NetworkID: pp.Lead.NetworkID, PageName: pp.Lead.PageName, FullName: pp.Lead.FullName,
					Title: j.title, Company: j.company, Email: pp.ID + "@example.com"},
			}})
		}
		queued = queued[n:]
	}
	landSome := func() { land(rng.IntN(len(queued) + 1)) }
	ready := func(b *block) bool {
		for _, a := range f.cfg.Resolve(b.e.From) {
			if pending[a] {
				return false
			}
		}
		// A block with refresh_on does not wait for the track reads:
		// as the engine's, its first pass claims in declaration order
		// what is known then, and the rounds after the reads take the
		// people they show changed.
		return true
	}
	releaseSome := func(all bool) {
		if nothingRan {
			return // released in declaration order below
		}
		for _, b := range blocks {
			if !b.released && ready(b) && (all || rng.IntN(3) > 0) {
				release(b)
			}
		}
		landSome()
	}
	// As apply: the updates first, with no call (a cut of kept leads, a
	// profile read shared with a read state holds); a read shared with a
	// read of this run follows that read, and waits for it.
	share := func(c *Change) {
		for _, pr := range f.cfg.Profiles {
			if pr.Address == c.Address {
				gen := f.cfg.API.Generation
				body, _ := json.Marshal(pr.Request)
				f.apply(state.Event{At: at, Kind: state.EventProfileShare, Address: c.Address, Share: &state.ProfileShareEvent{
					From: c.SameAs, Generation: gen, Request: body, RequestHash: state.RequestHash(gen, body)}})
			}
		}
	}
	// As apply: the imports first, with no call.
	for _, c := range p.Changes {
		if c.Action == Import {
			nothingRan = false
			for _, im := range f.cfg.Imports {
				if im.Address == c.Address {
					f.imported(im, at)
				}
			}
		}
	}
	waiting := map[string][]*Change{}
	for _, c := range p.Changes {
		if c.Action != Update {
			continue
		}
		switch c.Kind {
		case kind.Search:
			for _, s := range f.cfg.Searches {
				if s.Address == c.Address && s.MaxResults > 0 {
					f.apply(state.Event{At: at, Kind: state.EventTrim, Address: c.Address, Trim: &state.TrimEvent{MaxResults: s.MaxResults}})
				}
			}
		case kind.Profile:
			if pending[c.SameAs] {
				waiting[c.SameAs] = append(waiting[c.SameAs], c)
				pending[c.Address] = true
			} else {
				share(c)
			}
		}
	}
	// As the engine: before any call, every block whose sources are in
	// takes a pass, in declaration order.
	releaseSome(true)
	for _, c := range sources {
		at = at.Add(time.Second)
		delete(pending, c.Address)
		if c.Kind == kind.Track {
			// One read per person; a read that fails leaves them due.
			for _, id := range c.People() {
				calls[c.Address]++
				if rng.IntN(10) == 0 {
					failedReads[id] = true
					continue
				}
				at = at.Add(time.Second)
				f.apply(world.read(c.Address, id, at))
			}
			releaseSome(false)
			continue
		}
		if rng.IntN(8) == 0 {
			for _, w := range waiting[c.Address] {
				delete(pending, w.Address) // not shared: the next plan reads it
			}
			releaseSome(false)
			continue // the call failed
		}
		switch c.Kind {
		case kind.Search:
			var s *config.Search
			for _, x := range f.cfg.Searches {
				if x.Address == c.Address {
					s = x
				}
			}
			if s.SplitBy != nil {
				var failed bool
				calls[c.Address], failed = simulateSplit(rng, f, s, &at)
				if !failed && calls[c.Address] < c.Calls {
					panic(fmt.Sprintf("%s: %d sub-searches, plan said %d certain", c.Address, calls[c.Address], c.Calls))
				}
				break
			}
			calls[c.Address] = 1
			n := rng.IntN(api.MaxResults + 1)
			if rng.IntN(2) == 0 {
				n = rng.IntN(40)
			}
			leads := make([]person.Lead, n)
			for i := range leads {
				var id string
				if rng.IntN(2) == 0 {
					id = fmt.Sprintf("%d.p", rng.IntN(100))
				} else {
					id = fmt.Sprintf("%d.new", rng.IntN(1000))
				}
				leads[i] = world.lead(id)
				if rng.IntN(4) == 0 {
					leads[i].Company = ""
				}
			}
			body, _ := json.Marshal(s.Request)
			f.apply(state.Event{At: at, Kind: state.EventSearch, Address: s.Address, Search: &state.SearchEvent{
				Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads, MaxResults: s.MaxResults}})
		case kind.Profile:
			readProfile(f, world, c.Address, at)
			for _, w := range waiting[c.Address] {
				share(w)
				delete(pending, w.Address)
			}
		}
		releaseSome(false)
	}
	if nothingRan {
		for _, b := range blocks {
			release(b)
		}
	}
	releaseSome(true)
	// Every call has its outcome: rounds until one claims nobody.
	for {
		land(len(queued))
		n := 0
		for _, b := range blocks {
			n += release(b)
		}
		if n == 0 {
			return counts, nothingRan, failedReads
		}
	}
}

// readProfile records a read of the profile block at addr, showing its
// person as world has them.
func readProfile(f *fixture, world *truth, addr string, at time.Time) {
	for _, pr := range f.cfg.Profiles {
		if pr.Address != addr {
			continue
		}
		id := strings.TrimPrefix(pr.PageName, "page-")
		j := world.of(id)
		body, _ := json.Marshal(pr.Request)
		prof := person.Profile{FullName: "P " + id, Private: j.private, CurrentPosition: []person.Position{{JobTitle: j.title, Company: j.company}}}
		if j.private {
			prof.CurrentPosition = nil
		}
		f.apply(state.Event{At: at, Kind: state.EventProfile, Address: addr, Profile: &state.ProfileEvent{
			Generation: f.cfg.API.Generation, Request: body, RequestHash: state.RequestHash(f.cfg.API.Generation, body),
			PageName: pr.PageName, Profile: prof}})
	}
}

// sortedPeople lists the person IDs of st in order, so that a seed always
// makes the same world.
func sortedPeople(st *state.State) []string {
	out := make([]string, 0, len(st.People))
	for id := range st.People {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// randomSplit gives a search one or two dimensions of two or three values.
func randomSplit(rng *rand.Rand) func(*config.Search) {
	return func(s *config.Search) {
		names := []string{"industry", "level"}
		for i := range 1 + rng.IntN(2) {
			var vals []string
			for v := range 2 + rng.IntN(2) {
				vals = append(vals, fmt.Sprintf("%s%d", names[i], v))
			}
			s.SplitBy = append(s.SplitBy, config.SplitDimension{Attribute: names[i] + "_filter", Param: names[i] + "Filter", Values: vals})
		}
	}
}

// worldSplit gives a split search a random past: never run, a finished
// run, a finished run of other dimensions, and maybe a run stopped in the
// middle.
func worldSplit(rng *rand.Rand, f *fixture, s *config.Search) {
	at := t0.Add(-time.Duration(1+rng.IntN(10)) * day)
	switch rng.IntN(3) {
	case 1:
		simulateSplit(rng, f, s, &at)
	case 2:
		other := *s
		other.SplitBy = s.SplitBy[:1]
		simulateSplit(rng, f, &other, &at)
	}
	if rng.IntN(3) == 0 {
		at = t0.Add(-time.Hour)
		stop := 1 + rng.IntN(4)
		simulateSplitN(rng, f, s, &at, stop)
	}
}

// simulateSplit runs a split search as apply does: the nodes state says
// are pending, each with a random result (saturated or not), until none is
// left or a call fails. It returns the calls made and whether one failed.
func simulateSplit(rng *rand.Rand, f *fixture, s *config.Search, at *time.Time) (int, bool) {
	return simulateSplitN(rng, f, s, at, -1)
}

// simulateSplitN is simulateSplit stopping after limit calls (-1: none).
func simulateSplitN(rng *rand.Rand, f *fixture, s *config.Search, at *time.Time, limit int) (int, bool) {
	dims := SplitDimensions(s)
	hash := SplitHash(api.Gen1, s)
	body, _ := json.Marshal(s.Request)
	calls := 0
	for {
		pending := f.st.SplitPending(s.Address, hash, dims).Pending
		if len(pending) == 0 {
			return calls, false
		}
		rng.Shuffle(len(pending), func(i, j int) { pending[i], pending[j] = pending[j], pending[i] })
		for _, path := range pending[:1+rng.IntN(len(pending))] {
			if calls == limit {
				return calls, true
			}
			calls++
			if rng.IntN(12) == 0 {
				return calls, true // the call failed: the run stops here
			}
			n := rng.IntN(40)
			if rng.IntN(2) == 0 {
				n = api.MaxResults
			}
			leads := make([]person.Lead, n)
			for i := range leads {
				leads[i] = lead(fmt.Sprintf("%d.s", rng.IntN(2000)))
				if f.truth != nil {
					leads[i] = f.truth(leads[i].NetworkID)
				}
			}
			*at = at.Add(time.Second)
			f.apply(state.Event{At: *at, Kind: state.EventSplit, Address: s.Address, Split: &state.SplitEvent{
				Hash: hash, Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body),
				Dimensions: dims, MaxResults: s.MaxResults, Path: path, Leads: leads}})
			if f.st.Splits[s.Address] == nil {
				return calls, false // the run is complete: it became the record
			}
		}
	}
}
