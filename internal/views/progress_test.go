package views

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
)

// fakeClock advances by step on every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time {
	c.t = c.t.Add(c.step)
	return c.t
}

// playRun feeds a small run to p: two searches (one capped), an enrichment
// and a failed enrichment.
func playRun(p engine.Progress) {
	s1 := engine.Call{Seq: 1, Kind: kind.Search, Address: `search.cto["Berlin"]`}
	s2 := engine.Call{Seq: 2, Kind: kind.Search, Address: "search.eng"}
	e1 := engine.Call{Seq: 3, Kind: kind.Enrich, Address: "enrich.c", Person: "1.a", Page: "Max_Mustermann", Label: "Max Mustermann"}
	e2 := engine.Call{Seq: 4, Kind: kind.Enrich, Address: "enrich.c", Person: "2.b", Page: "Jane_Doe", Label: "Jane Doe"}
	p.Start(nil, 4, 2)
	p.CallStart(s1)
	p.CallStart(s2)
	p.CallDone(s1, engine.CallResult{Duration: 2 * time.Second, Results: 12})
	p.CallDone(s2, engine.CallResult{Duration: 3 * time.Second, Results: 300, Capped: true})
	p.CallStart(e1)
	p.CallStart(e2)
	if wp, ok := p.(engine.WaitProgress); ok {
		wp.Waiting(e1, 4*time.Second, "rate limited (429)")
	}
	p.CallDone(e1, engine.CallResult{Duration: time.Second, Credits: 1, Status: person.StatusValid})
	p.CallError(e2, &api.Error{Op: "enrich", Kind: api.KindServer, Status: 500, Message: "boom"})
	p.Summary(&engine.Summary{
		CallsPlannedMax: 4, CreditsPlannedMax: 2, Calls: 4, Credits: 1, CreditsUnknown: 1, Succeeded: 3,
		Failures: []engine.Failure{{Address: "enrich.c", Kind: kind.Enrich, Person: "2.b", Name: "Jane Doe", Err: errors.New("server error 500")}},
		Searches: []engine.SearchOutcome{
			{Address: `search.cto["Berlin"]`, Results: 12, Kept: 12, First: true},
			{Address: "search.eng", Results: 300, Kept: 100, Added: 7, Removed: 2, Capped: true},
		},
		Enriched: 1, ByStatus: map[string]int{person.StatusValid: 1},
		Duration: 9 * time.Second,
	})
}

func TestLineProgress(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	playRun(&textProgress{w: &b, now: c.now})
	got := b.String()
	for _, want := range []string{
		"Applying: 4 calls at most, 2 credits at most.",
		`✓ search.cto["Berlin"]: 12 results in 2s`,
		"✓ search.eng: 300 results (the network's cap of 300: probably cut off; narrow the search) in 3s",
		"✓ enrich.c Max Mustermann: enriched (valid), 1 credit in 1s",
		"✗ enrich.c Jane Doe:",
		`search.cto["Berlin"]: 12 leads, first run`,
		"search.eng: 100 leads (of 300 returned), 7 new, 2 gone since the last run; hit the network's cap of 300",
		"Enriched 1 person: 1 valid.",
		"Failed (1):\n  enrich.c Jane Doe: server error 500",
		"… enrich.c Max Mustermann: waiting 4s: rate limited (429)",
		"Apply complete: 4 calls made (at most 4 planned), 1 credit charged (at most 2 planned), 1 more may have been charged (enrichments whose outcome is unknown), 3 succeeded, 1 failed, in 9s.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\r") || strings.Contains(got, "\x1b[") {
		t.Errorf("line progress (not a terminal) draws a status line or colour:\n%q", got)
	}
}

func TestLiveProgressDrawsAStatusLine(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	playRun(&textProgress{w: &b, now: c.now, live: true})
	got := b.String()
	if !strings.Contains(got, "\r\x1b[K[") {
		t.Fatalf("no status line drawn:\n%q", got)
	}
	// The status line shows calls done of the total, credits, the rate, the
	// time left and the calls in flight.
	for _, want := range []string{"[0/4 calls]", "calls/s", "left", "search.eng"} {
		if !strings.Contains(got, want) {
			t.Errorf("status line lacks %q:\n%q", want, got)
		}
	}
	// It is cleared before the summary, which ends the output.
	if !strings.HasSuffix(strings.TrimSpace(got), "in 9s.") {
		t.Errorf("output does not end with the summary:\n%q", got)
	}
}

func TestJSONProgressStreamsOneEventPerLine(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	playRun(&jsonProgress{w: &b, now: c.now})
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not one JSON object per line: %q: %v", line, err)
		}
		mt, _ := m["message_type"].(string)
		types = append(types, mt)
		if mt == "summary" {
			for _, k := range []string{"searches", "failures", "forgotten"} {
				if m[k] == nil {
					t.Errorf("summary %s is null, want a list", k)
				}
			}
			if m["credits"] != float64(1) || m["credits_unknown"] != float64(1) {
				t.Errorf("summary credits %v, unknown %v; want 1 and 1", m["credits"], m["credits_unknown"])
			}
		}
		if mt == "call_error" && m["error_kind"] != "server error" && m["status"] != float64(500) {
			t.Errorf("call_error lacks the error's kind and status: %v", m)
		}
	}
	want := "apply_start call_start call_start call_done call_done call_start call_start waiting call_done call_error summary"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("message types:\n got %s\nwant %s", got, want)
	}
}

// TestJSONProgressCarriesDrift: a track read's call_done says what the
// profile showed and the job change it saw; the summary lists the job
// changes, the people gone and private, and the changes by field, with
// empty lists (never null) when there are none.
func TestJSONProgressCarriesDrift(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	p := &jsonProgress{w: &b, now: c.now}
	tr := engine.Call{Seq: 1, Kind: kind.Track, Address: "track.champions", Person: "1.a", Page: "Anna_Schmidt", Label: "Anna Schmidt"}
	job := engine.JobChange{PersonID: "1.a", Name: "Anna Schmidt", Before: engine.Job{Title: "CTO", Company: "Nordlicht"},
		After: engine.Job{Title: "VP", Company: "Rheinbank"}, By: "track.champions", Call: kind.Track}
	p.Start(nil, 1, 0)
	p.CallStart(tr)
	p.CallDone(tr, engine.CallResult{Duration: time.Second, Jobs: []engine.JobChange{job}})
	p.Summary(&engine.Summary{CallsPlannedMax: 1, Calls: 1, Succeeded: 1, Tracked: 1,
		Drift: engine.Drift{Jobs: []engine.JobChange{job}, Fields: map[string]int{"title": 1, "company": 1}}})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	var done, sum map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &done); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(lines[3]), &sum); err != nil {
		t.Fatal(err)
	}
	jc, _ := done["job_changes"].([]any)
	if done["profile"] != "public" || len(jc) != 1 || done["call"].(map[string]any)["kind"] != "track" {
		t.Errorf("call_done %v", done)
	}
	first, _ := jc[0].(map[string]any)
	if first["seen_by"] != "track.champions" || first["before"].(map[string]any)["company"] != "Nordlicht" || first["after"].(map[string]any)["title"] != "VP" {
		t.Errorf("job change %v", first)
	}
	if sum["tracked"] != float64(1) || len(sum["job_changes"].([]any)) != 1 {
		t.Errorf("summary %v", sum)
	}
	for _, k := range []string{"left_network", "turned_private"} {
		if l, ok := sum[k].([]any); !ok || len(l) != 0 {
			t.Errorf("summary %s = %v, want []", k, sum[k])
		}
	}
	if f := sum["changes_by_field"].(map[string]any); f["title"] != float64(1) || f["location"] != float64(0) {
		t.Errorf("changes_by_field %v", f)
	}
}

// TestSummaryClaimedElsewhere: the people another workspace's apply,
// running at the same moment, was enriching are named by workspace in the
// summary: copied, or left for the next apply; JSON has them as a list
// ([] when none).
func TestSummaryClaimedElsewhere(t *testing.T) {
	sum := &engine.Summary{Reused: map[string]int{"dach": 3},
		ClaimedElsewhere: map[string]engine.ClaimedCount{"uk": {Left: 1}, "dach": {Copied: 3, Left: 2}}}
	var b bytes.Buffer
	writeSummary(&b, sum, ending{})
	for _, want := range []string{
		"Reused 3 enrichments from workspace dach: no call, no credit.\n" +
			"Enriched by workspace dach's apply running now: 3 people copied (no call, no credit), 2 people left for the next apply, which copies what it records.\n" +
			"Enriched by workspace uk's apply running now: 1 person left for the next apply, which copies what it records.\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("summary lacks\n%s\ngot:\n%s", want, b.String())
		}
	}
	for _, c := range []struct {
		sum  *engine.Summary
		want string
	}{
		{sum, `[{"copied":3,"left":2,"workspace":"dach"},{"copied":0,"left":1,"workspace":"uk"}]`},
		{&engine.Summary{}, `[]`},
	} {
		got, err := json.Marshal(summaryEvent(c.sum)["claimed_elsewhere"])
		if err != nil || string(got) != c.want {
			t.Errorf("claimed_elsewhere = %s (%v), want %s", got, err, c.want)
		}
	}
}
