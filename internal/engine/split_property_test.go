package engine_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// splitDims are the array filters the property test splits by, with the
// values it may fix them to.
var splitDims = []struct {
	attr   string
	values []string
}{
	{"country_filter", []string{"Germany", "Austria", "Spain", "India"}},
	{"level_filter", []string{"Manager", "Senior", "Entry", "Professional/Experienced"}},
	{"industry_filter", []string{"Consulting", "Banking and financial services", "Architecture and planning"}},
	{"language_filter", []string{"German", "English", "French"}},
	{"current_status_code_filter", []string{"Full time employee", "Self employed", "Owner"}},
}

// splitCase is one random split search: its keywords, the filters it
// fixes, its split_by and max_results.
type splitCase struct {
	keywords   string
	fixed      map[string][]string
	splitBy    []string
	maxResults int
}

func randomSplitCase(rng *rand.Rand) *splitCase {
	kws := []string{"Senior", "Software", "Manager", "Engineer", "Sales", "Specialist", "Consultant"}
	sc := &splitCase{keywords: kws[rng.IntN(len(kws))], fixed: map[string][]string{}}
	for _, i := range rng.Perm(len(splitDims))[:1+rng.IntN(3)] {
		sc.splitBy = append(sc.splitBy, splitDims[i].attr)
	}
	for _, d := range splitDims[:2] {
		switch rng.IntN(5) {
		case 0: // one value: a dimension split by it is skipped
			sc.fixed[d.attr] = []string{d.values[rng.IntN(len(d.values))]}
		case 1: // several: split across those
			vs := append([]string(nil), d.values...)
			rng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
			sc.fixed[d.attr] = vs[:2+rng.IntN(len(vs)-1)]
		}
	}
	sc.maxResults = []int{50, 300, 1000, 100000}[rng.IntN(4)]
	return sc
}

// hcl writes sc as a configuration.
func (sc *splitCase) hcl() string {
	var b strings.Builder
	b.WriteString("api {\n  sandbox     = true\n  parallelism = 4\n}\nsearch \"s\" {\n")
	fmt.Fprintf(&b, "  keywords    = %q\n", sc.keywords)
	for _, d := range splitDims {
		if vs := sc.fixed[d.attr]; vs != nil {
			q, _ := json.Marshal(vs)
			fmt.Fprintf(&b, "  %s = %s\n", d.attr, q)
		}
	}
	fmt.Fprintf(&b, "  max_results = %d\n", sc.maxResults)
	q, _ := json.Marshal(sc.splitBy)
	fmt.Fprintf(&b, "  split_by    = %s\n}\n", q)
	return b.String()
}

// TestSplitCallsWithinPlanProperty drives the real executor against the
// sandbox on random split searches (dimensions, fixed values, max_results)
// through a random history of applies: runs stopped after a few searches,
// sub-searches that fail, refreshes of a completed tree, and split_by
// changed between runs. At every apply, the searches the sandbox received
// never exceed the plan's calls_max, and a run that neither stopped nor
// failed makes at least the plan's certain calls. A run that resumes a
// stopped one sends no search the stopped one sent, and a complete run
// holds exactly the sandbox's matching people (up to max_results).
func TestSplitCallsWithinPlanProperty(t *testing.T) {
	cases := 40
	if n, err := strconv.Atoi(os.Getenv("SPLIT_PROPERTY_RUNS")); err == nil {
		cases = n
	}
	if testing.Short() {
		cases = 10
	}
	// A small population keeps the trees small: broad keywords still
	// saturate the root and some sub-searches, narrow ones do not.
	sb := sandbox.New(sandbox.Options{People: 8000, RateLimit: -1, NoLatency: true, Quota: 1 << 30})
	wire := &searchWire{next: sb.Transport()}
	c, err := api.New(api.Options{Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
		HTTPClient: &http.Client{Transport: wire}, RateLimit: 1e6, Parallelism: 4})
	if err != nil {
		t.Fatal(err)
	}
	var stats struct{ applies, searches, stopped, failed, resumed, refreshed, changed, split, complete, incomplete int }
	for seed := range cases {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5b1))
		sc := randomSplitCase(rng)
		cfg := load(t, sc.hcl())
		st := state.New()
		var prev []string // searches answered in the previous apply when it stopped or failed
		for phase := range 2 + rng.IntN(3) {
			var opts plan.Options
			changed := false
			if phase > 0 {
				switch rng.IntN(4) {
				case 0: // split_by changed: the known tree no longer applies
					if len(sc.splitBy) > 1 {
						sc.splitBy = sc.splitBy[:len(sc.splitBy)-1]
					} else {
						sc.splitBy = append(sc.splitBy, "industry_filter")
						if sc.splitBy[0] == "industry_filter" {
							sc.splitBy[1] = "level_filter"
						}
					}
					cfg, changed = load(t, sc.hcl()), true
					stats.changed++
				case 1:
					opts.Replace = []string{"search.s"}
					stats.refreshed++
				}
			}
			desc := fmt.Sprintf("seed %d apply %d (%s)", seed, phase+1, strings.ReplaceAll(sc.hcl(), "\n", " "))
			opts.Now, opts.Offline = t0, true
			p, diags := plan.Build(cfg, st, opts)
			if diags.HasErrors() {
				t.Fatalf("%s: plan: %s", desc, diags.Error())
			}
			ch := p.Change("search.s")
			calls, callsMax := 0, 0
			if ch != nil {
				calls, callsMax = ch.Calls, ch.CallsMax
			}
			resuming := st.Splits["search.s"] != nil && !changed && opts.Replace == nil

			// The stop comes while the stopAfter-th search is on the wire:
			// it must be finished and kept.
			stop := make(chan struct{})
			svc := &splitService{Service: c, sb: sb}
			wire.reset(stop, 0)
			if rng.IntN(3) == 0 {
				wire.reset(stop, 1+rng.IntN(5))
			}
			if rng.IntN(6) == 0 {
				svc.failing = `"` + splitDims[rng.IntN(2)].values[rng.IntN(3)] + `"`
			}
			sum := run(t, cfg, st, p, svc, &memJournal{}, stop)
			sent, answered := wire.sent, wire.answered
			stats.applies++
			stats.searches += sent
			if sent > 1 {
				stats.split++
			}

			if sent > callsMax || sum.Calls > callsMax {
				t.Errorf("%s: %d searches sent (%d calls started), plan said at most %d", desc, sent, sum.Calls, callsMax)
			}
			if sent > p.Totals.SearchesMax {
				t.Errorf("%s: %d searches sent, plan totals said at most %d", desc, sent, p.Totals.SearchesMax)
			}
			stopped, failed := sum.Stopped != "", len(sum.Failures) > 0
			// The executor also stops at the plan's bound ("the plan's call
			// bound is reached"): only the test's own stop may stop it, only
			// the test's own failures fail it.
			if stopped && (wire.stopAfter == 0 || sent < wire.stopAfter) {
				t.Errorf("%s: the run stopped by itself after %d searches (plan %d..%d): %s", desc, sent, calls, callsMax, sum.Stopped)
			}
			for _, f := range sum.Failures {
				if svc.failing == "" || f.Err == nil || !strings.Contains(f.Err.Error(), "service unavailable") {
					t.Errorf("%s: failure %+v", desc, f)
				}
			}
			if stopped {
				stats.stopped++
			}
			if failed {
				stats.failed++
			}
			if !stopped && !failed && sent < calls {
				t.Errorf("%s: %d searches sent, plan said %d certain", desc, sent, calls)
			}
			if resuming && prev != nil {
				stats.resumed++
				before := map[string]bool{}
				for _, b := range prev {
					before[b] = true
				}
				for _, b := range wire.bodies {
					if before[b] {
						t.Errorf("%s: resuming, sent again a search the stopped run sent: %s", desc, b)
					}
				}
			}
			prev = nil
			if stopped || failed {
				prev = answered
			}

			rec := st.Searches["search.s"]
			if stopped || failed || rec == nil || rec.Split == nil {
				continue
			}
			ss := rec.SplitSummary()
			if !ss.Complete {
				stats.incomplete++
				continue
			}
			stats.complete++
			want := splitTruth(t, sb, cfg.Searches[0])
			if n := min(len(want), sc.maxResults); len(rec.LeadIDs) != n {
				t.Errorf("%s: complete with %d people kept; the sandbox matches %d, max_results %d", desc, len(rec.LeadIDs), len(want), sc.maxResults)
			}
			for _, id := range rec.LeadIDs {
				if p := st.People[id]; p == nil || !want[p.Lead.NetworkID] {
					t.Errorf("%s: person %s kept, not matching the search in the sandbox", desc, id)
					break
				}
			}
		}
	}
	t.Logf("%+v", stats)
	if got := sb.Stats().ByOp[sandbox.OpSearch]; got != stats.searches {
		t.Errorf("the sandbox received %d searches, the wire saw %d", got, stats.searches)
	}
	// The cases must exercise what they claim to.
	if cases >= 40 && (stats.split < 10 || stats.stopped < 5 || stats.resumed < 2 || stats.refreshed < 3 || stats.changed < 3 || stats.complete < 5) {
		t.Errorf("the random cases exercise too little: %+v", stats)
	}
}

// searchWire sits between the client and the sandbox and records the
// searches that reach the sandbox: what the run really spends.
type searchWire struct {
	next http.RoundTripper
	mu   sync.Mutex
	// bodies are the searches sent, answered those the sandbox answered
	// with 200; sent counts the first.
	bodies, answered []string
	sent             int
	// stop is closed when the stopAfter-th search is sent (0: never).
	stop      chan struct{}
	stopAfter int
}

func (w *searchWire) reset(stop chan struct{}, after int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.bodies, w.answered, w.sent, w.stop, w.stopAfter = nil, nil, 0, stop, after
}

func (w *searchWire) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != "/v1/scrap" && req.URL.Path != "/search" {
		return w.next.RoundTrip(req)
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(b))
	w.mu.Lock()
	w.bodies = append(w.bodies, string(b))
	w.sent++
	if w.sent == w.stopAfter {
		close(w.stop)
	}
	w.mu.Unlock()
	res, err := w.next.RoundTrip(req)
	if err == nil && res.StatusCode == http.StatusOK {
		w.mu.Lock()
		w.answered = append(w.answered, string(b))
		w.mu.Unlock()
	}
	return res, err
}

// splitTruth is the set of network IDs of the sandbox members the search
// matches, past the cap.
func splitTruth(t *testing.T, sb *sandbox.Server, s *config.Search) map[string]bool {
	t.Helper()
	b, _ := json.Marshal(s.Request)
	ms, err := sb.Matching(b)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]bool, len(ms))
	for _, m := range ms {
		out[m.NetworkID] = true
	}
	return out
}
