package views

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
)

func TestServiceText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Zoë Ćosić", "Zoë Ćosić"},
		{"Evil\x1b[2J\nName", "Evil [2J Name"},
		{strings.Repeat("a", 81), strings.Repeat("a", 80) + "…"},
		{"bad \xff byte", "bad   byte"},
	} {
		if got := serviceText(tt.in); got != tt.want {
			t.Errorf("serviceText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestHugeNameIsCutInProgressLines: a 10 MB name from the service makes a
// progress line of a normal length, without control characters.
func TestHugeNameIsCutInProgressLines(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	p := &textProgress{w: &b, now: c.now}
	huge := strings.Repeat("Ä\n", 5<<20)
	call := engine.Call{Seq: 1, Kind: kind.Enrich, Address: "enrich.c", Person: "1.a", Page: "x", Label: huge}
	p.Start(nil, 1, 1)
	p.CallStart(call)
	p.CallDone(call, engine.CallResult{Duration: time.Second, Credits: 1, Status: person.StatusValid})
	p.Summary(&engine.Summary{Calls: 1, Failures: []engine.Failure{{Address: "enrich.c", Kind: kind.Enrich, Name: huge, Err: &api.Error{Op: "enrich", Kind: api.KindServer, Status: 500}}}})
	for _, line := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > 300 {
			t.Fatalf("a line of %d characters: %.120q…", n, line)
		}
	}
}

// TestTrackLineOfAPrivateMover: a track read whose private answer showed a
// new job says both, not "profile private" alone.
func TestTrackLineOfAPrivateMover(t *testing.T) {
	var b bytes.Buffer
	c := &fakeClock{t: time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC), step: time.Second}
	p := &textProgress{w: &b, now: c.now}
	call := engine.Call{Seq: 1, Kind: kind.Track, Address: "track.t", Person: "1.a", Page: "anna", Label: "Anna"}
	job := engine.JobChange{PersonID: "1.a", Name: "Anna", Before: engine.Job{Title: "CTO", Company: "Acme"}, After: engine.Job{Title: "CTO", Company: "Beta"}}
	p.Start(nil, 2, 0)
	p.CallStart(call)
	p.CallDone(call, engine.CallResult{Duration: time.Second, Private: true, Jobs: []engine.JobChange{job}})
	p.CallDone(call, engine.CallResult{Duration: time.Second, Private: true})
	if got := b.String(); !strings.Contains(got, ": profile private, new job: CTO at Acme -> CTO at Beta in ") ||
		!strings.Contains(got, ": profile private in ") {
		t.Errorf("progress:\n%s", got)
	}
}
