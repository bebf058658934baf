package bench

import (
	"context"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/sandbox"
)

// run60 makes 60 searches against a fresh sandbox whose searches take
// latency (min, max; scaled) and which answers 429 to any call less than
// 1 s (scaled) after the previous one, through one client with the given
// parallelism (0: the default ceiling), all 60 asked for at once. It
// returns the achieved call-start rate as seen by the sandbox (arrivals),
// as a share of the limit, and the number of 429s.
func run60(tb testing.TB, scale float64, parallelism int, latency [2]time.Duration) (share float64, n429 int) {
	rate := 1.0 * scale
	sb := sandbox.New(sandbox.Options{
		RateLimit:     rate,
		RateWindow:    scaled(time.Second, scale), // strict: one call per scaled second, no bursts
		SearchLatency: [2]time.Duration{scaled(latency[0], scale), scaled(latency[1], scale)},
		Seed:          1,
	})
	c, err := api.New(api.Options{
		BaseURL:     sandbox.BaseURL,
		Key:         sandbox.DefaultKey,
		HTTPClient:  &http.Client{Transport: sb.Transport()},
		RateLimit:   rate,
		Parallelism: parallelism,
		Pacer:       api.NewPacer(rate, parallelism, nil),
		BackoffBase: scaled(time.Second, scale),
	})
	if err != nil {
		tb.Fatal(err)
	}
	keywords := []string{"Engineer", "Manager", "CTO", "Consultant", "Developer", "Sales"}
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Search(context.Background(), api.Gen1, api.SearchRequest{Params: map[string]any{"keywords": keywords[i%len(keywords)]}})
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		tb.Fatal(err)
	}
	st := sb.Stats()
	if len(st.Starts) != 60 {
		tb.Fatalf("sandbox saw %d accepted calls, want 60", len(st.Starts))
	}
	span := st.Starts[len(st.Starts)-1].Sub(st.Starts[0])
	achieved := float64(len(st.Starts)-1) / span.Seconds()
	if testing.Verbose() {
		ps := c.Pacer().Stats()
		tb.Logf("scale %g, parallelism %d, searches %s-%s: arrivals %.4f of the limit, pacer starts %.4f, max in flight %d (pacer) %d (sandbox), 429s %d",
			scale, parallelism, latency[0], latency[1], achieved/rate, ps.StartRate()/rate, ps.MaxInFlight, st.MaxInFlight, st.RateLimited)
	}
	return achieved / rate, st.RateLimited
}

func scaled(d time.Duration, scale float64) time.Duration {
	return time.Duration(float64(d) / scale)
}

// BenchmarkPacer60Searches reports, per run of 60 searches, the achieved
// call-start rate as a share of the rate limit (goal: >= 0.97) and the 429s
// the sandbox answered (goal: 0).
//
// The first cases are the default settings (parallelism unset: a ceiling
// of api.DefaultParallelism, the number in flight adapting to latency) with
// searches of 2-30 s, as the spec allows, and of 2-10 s. The fixed
// parallelism of 4 (the former default) is shown for comparison: with 2-30 s
// searches it keeps about 4/16 of the rate.
//
// Scaling time down is harsher than real time: timer and scheduling delays
// do not shrink with it. At scale 5 the 2% margin is 4 ms; at scale 10 it is
// 2 ms, which a loaded machine's scheduling delays sometimes exceed. Set
// LEADSYNC_BENCH_REALTIME=1 to add an unscaled case (a minute per run).
func BenchmarkPacer60Searches(b *testing.B) {
	s := time.Second
	type benchCase struct {
		name    string
		scale   float64
		par     int
		latency [2]time.Duration
	}
	cases := []benchCase{
		{"default/searches=2-30s", 5, 0, [2]time.Duration{2 * s, 30 * s}},
		{"default/searches=2-10s", 5, 0, [2]time.Duration{2 * s, 10 * s}},
		{"parallelism=4/searches=2-30s", 5, 4, [2]time.Duration{2 * s, 30 * s}},
		{"parallelism=12/searches=2-10s", 5, 12, [2]time.Duration{2 * s, 10 * s}},
		{"default/searches=2-30s/scale=10", 10, 0, [2]time.Duration{2 * s, 30 * s}},
	}
	if os.Getenv("LEADSYNC_BENCH_REALTIME") != "" {
		// Unscaled: about a minute per run of 60 calls.
		cases = append(cases, benchCase{"default/searches=2-30s/scale=1", 1, 0, [2]time.Duration{2 * s, 30 * s}})
	}
	for _, bc := range cases {
		b.Run(bc.name, func(b *testing.B) {
			var shares float64
			var total429, minShare = 0, 1.0
			n := 0
			for b.Loop() {
				share, n429 := run60(b, bc.scale, bc.par, bc.latency)
				shares += share
				total429 += n429
				minShare = min(minShare, share)
				n++
			}
			b.ReportMetric(shares/float64(n), "share_of_limit")
			b.ReportMetric(minShare, "min_share")
			b.ReportMetric(float64(total429), "429s")
		})
	}
}
