package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
)

// benchScale compresses time in the apply benchmark, rate and latency
// together: at 20, the service's 1 call/s becomes 20 calls/s and a 30 s
// search 1.5 s.
var benchScale = flag.Int("scale", 20, "time compression of BenchmarkApplyPacing")

// BenchmarkApplyPacing runs apply's executor over real HTTP against the
// sandbox with search latencies spread over 1 to 30 s (scaled), 60 searches
// and up to 40 enrichments, and reports:
//
//   - rate_share: achieved call starts per second, as seen by the server,
//     as a share of the rate limit (goal: at least 0.97);
//   - 429s: rate-limited answers (goal: 0);
//   - wall_vs_bound: wall time over calls/rate + the longest latency.
//
// "default" leaves api.parallelism unset (the ceiling of
// api.DefaultParallelism, calls in flight adapting to latency); the fixed
// values are for comparison (4 was the former default).
//
// Run: go test ./internal/engine -run '^$' -bench ApplyPacing -benchtime 1x [-scale 20]
func BenchmarkApplyPacing(b *testing.B) {
	for _, par := range []int{0, 4, 16, 40} {
		name := fmt.Sprintf("parallelism=%d", par)
		if par == 0 {
			name = "default"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				benchApply(b, par)
			}
		})
	}
}

func benchApply(b *testing.B, par int) {
	b.Helper()
	timeScale := time.Duration(*benchScale)
	rate := 1.0 * float64(timeScale)
	srv := sandbox.New(sandbox.Options{
		Seed: 3, RateLimit: rate, RateWindow: time.Second / timeScale,
		SearchLatency: [2]time.Duration{1 * time.Second / timeScale, 30 * time.Second / timeScale},
		ReadLatency:   [2]time.Duration{200 * time.Millisecond / timeScale, 2 * time.Second / timeScale},
		Credits:       100000,
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()

	var src strings.Builder
	parLine := ""
	if par > 0 {
		parLine = fmt.Sprintf("  parallelism = %d\n", par)
	}
	fmt.Fprintf(&src, "api {\n  base_url = %q\n  rate_limit = %v\n%s  max_credits = 1000\n}\n", hs.URL, rate, parLine)
	cities := []string{"Berlin", "Hamburg", "München", "Köln", "Frankfurt", "Wien", "Zürich", "London", "Madrid", "Milano"}
	words := []string{"Engineer", "Manager", "Consultant", "Developer", "Sales", "Director"}
	fmt.Fprintf(&src, "search \"s\" {\n  for_each = toset([%s])\n  keywords = split(\"/\", each.value)[0]\n  city = split(\"/\", each.value)[1]\n  max_results = 2\n}\n", pairs(words, cities))
	src.WriteString("enrich \"e\" {\n  from  = [search.s]\n  limit = 40\n}\n")
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.leads.hcl"), []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	st := state.New()
	p, diags := plan.Build(cfg, st, plan.Options{Now: time.Now(), Offline: true})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	// The in-process transport: the figure measures the scheduler and the
	// pacer, not loopback TCP jitter, which at a 100x compressed rate is
	// as large as the pacer's margin (at the real rate it is 1/100 of it).
	client, err := api.New(api.Options{
		HTTPClient: &http.Client{Transport: srv.Transport()},
		BaseURL:    hs.URL, Key: sandbox.DefaultKey, RateLimit: rate, Parallelism: cfg.API.Parallelism,
		Timeout: 10 * time.Second, Pacer: api.NewPacer(rate, cfg.API.Parallelism, nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	sum, err := engine.Run(context.Background(), engine.Options{
		Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: client,
	})
	wall := time.Since(start)
	if err != nil || sum.Failed() {
		b.Fatalf("run failed: %v %+v", err, sum.Failures)
	}
	stats := srv.Stats()
	starts := stats.Starts
	span := starts[len(starts)-1].Sub(starts[0]).Seconds()
	share := float64(len(starts)-1) / span / rate
	bound := float64(sum.Calls)/rate + (30 * time.Second / timeScale).Seconds()
	b.ReportMetric(float64(sum.Calls), "calls")
	b.ReportMetric(share, "rate_share")
	b.ReportMetric(float64(stats.RateLimited), "429s")
	b.ReportMetric(wall.Seconds()/bound, "wall_vs_bound")
	b.ReportMetric(float64(client.Pacer().Stats().MaxInFlight), "max_in_flight")
}

// pairs makes "word/city" items of an HCL list.
func pairs(words, cities []string) string {
	var out []string
	for _, w := range words {
		for _, c := range cities {
			out = append(out, fmt.Sprintf("%q", w+"/"+c))
		}
	}
	return strings.Join(out, ", ")
}

// BenchmarkTrackPacing runs the track reads of 1,000 people over the
// sandbox, whose profile reads take 0.2 to 1 s (scaled), and reports
// rate_share (call starts per second seen by the sandbox, as a share of
// the rate limit; goal: at least 0.97), 429s (goal: 0) and the calls.
//
// Run: go test ./internal/engine -run '^$' -bench TrackPacing -benchtime 1x [-scale 20]
func BenchmarkTrackPacing(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchTrack(b)
	}
}

func benchTrack(b *testing.B) {
	b.Helper()
	timeScale := time.Duration(*benchScale)
	rate := 1.0 * float64(timeScale)
	srv := sandbox.New(sandbox.Options{
		Seed: 3, RateLimit: rate, RateWindow: time.Second / timeScale,
		ReadLatency: [2]time.Duration{200 * time.Millisecond / timeScale, time.Second / timeScale},
	})
	src := fmt.Sprintf("api {\n  base_url = \"http://127.0.0.1:1\"\n  rate_limit = %v\n}\nsearch \"all\" {\n  keywords = \"Manager\"\n}\ntrack \"all\" {\n  from = [search.all]\n}\n", rate)
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bench.leads.hcl"), []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	cfg, diags := config.Load(config.LoadOptions{Dir: dir})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	// 1,000 members of the sandbox, as if a search had found them.
	st := state.New()
	body, _ := json.Marshal(cfg.Searches[0].Request)
	var leads []person.Lead
	for _, m := range srv.Population()[:1000] {
		leads = append(leads, m.Lead())
	}
	if err := st.Fold(state.Event{At: time.Now(), Kind: state.EventSearch, Address: "search.all", Search: &state.SearchEvent{
		Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads}}); err != nil {
		b.Fatal(err)
	}
	p, diags := plan.Build(cfg, st, plan.Options{Now: time.Now(), Offline: true})
	if diags.HasErrors() {
		b.Fatal(diags.Error())
	}
	if p.Totals.Tracks != 1000 || p.Totals.CallsMax != 1000 {
		b.Fatalf("plan: %d track reads, %d calls at most; want 1,000", p.Totals.Tracks, p.Totals.CallsMax)
	}
	client, err := api.New(api.Options{
		HTTPClient: &http.Client{Transport: srv.Transport()},
		BaseURL:    sandbox.BaseURL, Key: sandbox.DefaultKey, RateLimit: rate, Parallelism: cfg.API.Parallelism,
		Timeout: 10 * time.Second, Pacer: api.NewPacer(rate, cfg.API.Parallelism, nil),
	})
	if err != nil {
		b.Fatal(err)
	}
	sum, err := engine.Run(context.Background(), engine.Options{Config: cfg, Plan: p, State: st, Journal: &memJournal{}, Service: client})
	if err != nil || sum.Failed() || sum.Tracked != 1000 {
		b.Fatalf("run: %v, %d tracked, failures %+v", err, sum.Tracked, sum.Failures)
	}
	stats := srv.Stats()
	starts := stats.Starts
	span := starts[len(starts)-1].Sub(starts[0]).Seconds()
	b.ReportMetric(float64(sum.Calls), "calls")
	b.ReportMetric(float64(len(starts)-1)/span/rate, "rate_share")
	b.ReportMetric(float64(stats.RateLimited), "429s")
	b.ReportMetric(float64(client.Pacer().Stats().MaxInFlight), "max_in_flight")
}
