package views

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// TestStatusLineRate: no rate before two calls have started; never above
// the configured rate limit; "1 credit".
func TestStatusLineRate(t *testing.T) {
	var b bytes.Buffer
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	p := &textProgress{w: &b, now: clock, live: true}
	p.Start(&plan.Plan{Totals: plan.Totals{RateLimit: 1}}, 10, 5)
	now = now.Add(10 * time.Millisecond)
	p.CallStart(engine.Call{Seq: 1, Kind: kind.Search, Address: "search.a"})
	if got := lastStatus(b.String()); strings.Contains(got, "calls/s") || strings.Contains(got, "left") {
		t.Errorf("status line with one call shows a rate: %q", got)
	}
	// A burst: two calls 10 ms apart would be 100 calls/s.
	p.CallStart(engine.Call{Seq: 2, Kind: kind.Search, Address: "search.b"})
	got := lastStatus(b.String())
	if !strings.Contains(got, "1.00 calls/s") {
		t.Errorf("status line after a burst: %q, want the rate capped at the limit (1.00 calls/s)", got)
	}
	p.CallDone(engine.Call{Seq: 1, Kind: kind.Enrich, Address: "enrich.e"}, engine.CallResult{Credits: 1})
	if got := lastStatus(b.String()); !strings.Contains(got, "1 credit ") || strings.Contains(got, "1 credits") {
		t.Errorf("status line: %q, want \"1 credit\"", got)
	}
	c := NewCounter(clock)
	c.Start(5)
	c.CallStart(engine.Call{Seq: 1})
	if rate, _, ok := c.Rate(); rate != 0 || ok {
		t.Errorf("one call: rate %v, ok %v; want unknown", rate, ok)
	}
}

// lastStatus is the last status line drawn in s.
func lastStatus(s string) string {
	i := strings.LastIndex(s, "\r\x1b[K[")
	if i < 0 {
		return ""
	}
	s = s[i:]
	if j := strings.IndexAny(s[1:], "\r\n"); j >= 0 {
		s = s[:j+1]
	}
	return s
}

func TestApplyStoppedEnding(t *testing.T) {
	for _, tc := range []struct {
		stopped, want string
	}{
		{"", "Apply complete: 3 calls made"},
		{"interrupted: no new calls were started", "Apply stopped: 3 calls made"},
	} {
		var b bytes.Buffer
		writeSummary(&b, &engine.Summary{Calls: 3, CallsPlannedMax: 9, Credits: 1, CreditsPlannedMax: 5, Succeeded: 3, Stopped: tc.stopped}, endingOf(&engine.Summary{Stopped: tc.stopped}, nil, nil))
		if !strings.Contains(b.String(), tc.want) || !strings.Contains(b.String(), "1 credit charged") {
			t.Errorf("summary:\n%s\nwant %q and \"1 credit spent\"", b.String(), tc.want)
		}
		if tc.stopped != "" && strings.Contains(b.String(), "Apply complete") {
			t.Errorf("a stopped apply says it is complete:\n%s", b.String())
		}
	}
}

// TestPlanColumnsAlignWithNonASCII: the action column starts at the same
// display column on every line, whatever the addresses hold.
func TestPlanColumnsAlignWithNonASCII(t *testing.T) {
	p := &plan.Plan{Totals: plan.Totals{RateLimit: 1, Calls: 3, CallsMax: 3, Searches: 3}, Changes: []*plan.Change{
		{Address: `search.cto["München"]`, Kind: kind.Search, Action: plan.Run, Calls: 1, CallsMax: 1, Detail: "a"},
		{Address: `search.cto["東京"]`, Kind: kind.Search, Action: plan.Run, Calls: 1, CallsMax: 1, Detail: "b"},
		{Address: `search.cto["Berlin"]`, Kind: kind.Search, Action: plan.Refresh, Calls: 1, CallsMax: 1, Detail: "c"},
	}}
	var b bytes.Buffer
	if err := PlanText(&b, p, false); err != nil {
		t.Fatal(err)
	}
	col := -1
	for _, line := range strings.Split(b.String(), "\n")[:3] {
		i := strings.Index(line, " run ")
		if i < 0 {
			i = strings.Index(line, " refresh ")
		}
		c := textfmt.Width(line[:i])
		if col >= 0 && c != col {
			t.Errorf("action column at %d, want %d:\n%s", c, col, b.String())
		}
		col = c
	}
}

func TestTruncCells(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"enrich.c Jürgen Müller, enrich.c Zoë", 20, "enrich.c Jürgen M..."},
		{"東京東京東京", 8, "東京..."},
	} {
		if got := truncCells(tc.s, tc.n); got != tc.want || textfmt.Width(got) > tc.n {
			t.Errorf("truncCells(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
