package views

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/run"
)

// TestApplySummaryEndings renders the end of an apply, as the human view
// prints it once Apply returned, for each way an apply ends: every
// message says only what happened (testdata/summary_*.txt).
func TestApplySummaryEndings(t *testing.T) {
	cfg := &config.Config{Dir: "/work"}
	search := engine.Call{Seq: 1, Kind: kind.Search, Address: `search.eng["Köln"]`}
	enrich := engine.Call{Seq: 2, Kind: kind.Enrich, Address: "enrich.all", Person: "2.b", Label: "Jane Doe"}
	base := func() *engine.Summary {
		return &engine.Summary{CallsPlannedMax: 22, CreditsPlannedMax: 19, Calls: 3, Credits: 1, Succeeded: 3,
			Searches: []engine.SearchOutcome{{Address: `search.eng["Hamburg"]`, Results: 200, Kept: 6, Added: 6, First: true}},
			Enriched: 1, ByStatus: map[string]int{person.StatusValid: 1}, Duration: 2 * time.Second}
	}
	diskFull := errors.New("cannot write /work/.leadsync/state.json.journal: no space left on device")
	recordErr := fmt.Errorf("%w: %v", engine.ErrJournal, diskFull)
	xlsx := export.Written{Path: "/work/out/leads.xlsx", Export: "export.out", Sheets: 1, Rows: 12}
	for _, tc := range []struct {
		name    string
		sum     func(*engine.Summary)
		written []export.Written
		err     error
	}{
		{name: "complete", written: []export.Written{xlsx}},
		{
			// A search completed but its result could not be written: the
			// next apply makes it again, and the summary says so.
			name: "unrecorded",
			sum: func(s *engine.Summary) {
				s.Calls, s.Succeeded = 4, 3
				s.Failures = []engine.Failure{{Address: search.Address, Kind: kind.Search, Err: recordErr, Unrecorded: true}}
				s.Stopped = recordErr.Error()
				s.StoppedInFlight = 1
			},
			err: &run.UnwrittenError{Err: recordErr, Files: []run.UnwrittenFile{{Export: "export.out", Path: "/work/out/leads.xlsx"}}},
		},
		{
			// The state could not be written: the enrichment that came back
			// then, and the search after it, are kept in the rescue file;
			// they count as done, and the final save failed too.
			name: "kept",
			sum: func(s *engine.Summary) {
				s.Calls, s.Succeeded, s.Credits, s.Enriched = 5, 5, 2, 2
				s.ByStatus = map[string]int{person.StatusValid: 2}
				s.Kept = []engine.Call{enrich, search}
				s.KeptIn = "/home/ann/.cache/leadsync/rescue/0a1b2c3d.run-1.rescue"
				s.Stopped = "the state could not be written (" + diskFull.Error() + "): the results since are kept in " + s.KeptIn +
					" until they are written into it (the next command folds them in)"
				s.StoppedInFlight = 1
			},
			err: &run.UnwrittenError{Err: errors.New("saving state (every call recorded so far is kept with the state file .leadsync/state.json, and the results it could not write are kept in " +
				"/home/ann/.cache/leadsync/rescue/0a1b2c3d.run-1.rescue; the next command folds them in): no space left on device"),
				Files: []run.UnwrittenFile{{Export: "export.out", Path: "/work/out/leads.xlsx"}}},
		},
		{
			// The pending note of an enrichment could not be written: it
			// was not sent, so it is no failed call.
			name: "not_sent",
			sum: func(s *engine.Summary) {
				s.Stopped = "the enrichment of Jane Doe could not be noted before it was sent, so it was not sent: " + diskFull.Error()
			},
			err: &run.UnwrittenError{Err: recordErr, Files: []run.UnwrittenFile{{Export: "export.out", Path: "/work/out/leads.xlsx"}}},
		},
		{
			// The run went well, the spreadsheet could not be written:
			// never "Apply complete" before that error.
			name: "export_failed",
			err: &run.UnwrittenError{Err: errors.New("writing the spreadsheets (state is saved; run leadsync export to try again): no space left on device"),
				Files: []run.UnwrittenFile{{Export: "export.out", Path: "/work/out/leads.xlsx"}, {Export: "export.crm", Path: "/work/out/crm.csv"}}},
		},
		{
			name: "interrupted",
			sum: func(s *engine.Summary) {
				s.Stopped, s.StoppedInFlight = "interrupted: no new calls were started", 2
			},
			written: []export.Written{xlsx},
			err:     run.ErrFailed,
		},
		{
			// The second interrupt: the calls in flight are abandoned and
			// named, as they may have been charged.
			name: "aborted",
			sum: func(s *engine.Summary) {
				s.Calls = 5
				s.Stopped, s.StoppedInFlight = "interrupted: no new calls were started", 2
				s.Abandoned = []engine.Call{search, enrich}
				s.Failures = []engine.Failure{
					{Address: search.Address, Kind: kind.Search, Err: &api.Error{Op: "search", Kind: api.KindCanceled, Message: "abandoned at the second interrupt"}},
					{Address: enrich.Address, Kind: kind.Enrich, Person: enrich.Person, Name: enrich.Label, Err: &api.Error{Op: "enrich", Kind: api.KindCanceled, Message: "abandoned at the second interrupt"}},
				}
				s.CreditsUnknown = 1
			},
			err: &run.UnwrittenError{Err: run.ErrAborted, Files: []run.UnwrittenFile{{Export: "export.out", Path: "/work/out/leads.xlsx"}}},
		},
		{
			// A run the plan's bound cut short says so.
			name: "cut_short",
			sum: func(s *engine.Summary) {
				s.CreditsPlannedMax = 1
				s.Stopped = "the plan's bound of 1 credit is reached with 1 more person to enrich; run plan again to see the rest"
			},
			written: []export.Written{xlsx},
			err:     run.ErrFailed,
		},
		{
			// Track reads found job changes, someone gone, someone private;
			// a search saw a change too.
			name: "drift",
			sum: func(s *engine.Summary) {
				s.Calls, s.Succeeded, s.Tracked = 6, 6, 3
				s.Searches[0].Changed = 1
				s.Drift = engine.Drift{
					Jobs: []engine.JobChange{
						{PersonID: "1.a", Name: "Anna Schmidt", Before: engine.Job{Title: "CTO", Company: "Nordlicht Software GmbH"},
							After: engine.Job{Title: "VP Engineering", Company: "Rheinbank"}, By: "track.champions", Call: kind.Track},
						{PersonID: "3.c", Name: "Jürgen Müller", Before: engine.Job{Title: "Engineer", Company: "=SUM(1+1) GmbH"},
							After: engine.Job{Title: "Senior Engineer", Company: "=SUM(1+1) GmbH"}, By: `search.eng["Hamburg"]`, Call: kind.Search},
					},
					Left:    []engine.PersonSeen{{PersonID: "4.d", Name: "Bob Brandt", By: "track.champions"}},
					Private: []engine.PersonSeen{{PersonID: "5.e", Name: "李磊", By: "track.champions"}},
					Fields:  map[string]int{"title": 2, "company": 1, "status": 2},
				}
			},
			written: []export.Written{xlsx},
		},
		{
			// A where that cannot be evaluated is a failure, not a call.
			name: "no_call_failure",
			sum: func(s *engine.Summary) {
				s.Failures = []engine.Failure{{Address: "enrich.all", Kind: kind.Enrich, Err: errors.New("main.leads.hcl:20: where of enrich.all gave a string; it must give true or false"), NoCall: true}}
			},
			written: []export.Written{xlsx},
			err:     run.ErrFailed,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			v := NewApply(Streams{Out: &out, ErrOut: &errOut, Now: func() time.Time { return time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC) }}, false)
			s := base()
			if tc.sum != nil {
				tc.sum(s)
			}
			if s.Calls != s.Succeeded+s.CallsFailed() {
				t.Fatalf("the case's own figures do not add up: %d made, %d succeeded, %d failed", s.Calls, s.Succeeded, s.CallsFailed())
			}
			v.Progress(nil).Summary(s)
			if errOut.Len()+out.Len() != 0 {
				t.Fatalf("the summary was printed before the apply ended:\n%s%s", errOut.String(), out.String())
			}
			v.Exports(cfg, tc.written)
			v.Done(tc.err)
			got := "--- stderr\n" + errOut.String() + "--- stdout\n" + out.String()
			golden.Check(t, filepath.Join("testdata", "summary_"+tc.name+".txt"), []byte(got))
			if tc.err != nil && !errors.Is(tc.err, run.ErrFailed) && strings.Contains(got, "Apply complete") {
				t.Errorf("an apply that ended with an error says it is complete:\n%s", got)
			}
			if len(s.Unrecorded()) > 0 && strings.Contains(got, "nothing completed is repeated") {
				t.Errorf("calls will be repeated, but the summary says none is:\n%s", got)
			}
			if strings.Contains(got, "not sent: not sent") {
				t.Errorf("says it twice:\n%s", got)
			}
		})
	}
}

// TestSummaryDriftCountsWhatTurned: the text's counts of the track line are
// the JSON summary's left_network and turned_private, and say so: a run
// whose read found a profile private that was private already turned
// nobody private, and the line must not read as if no profile was private.
func TestSummaryDriftCountsWhatTurned(t *testing.T) {
	for _, private := range []int{0, 1, 2} {
		s := &engine.Summary{Tracked: 3}
		for i := range private {
			s.Drift.Private = append(s.Drift.Private, engine.PersonSeen{PersonID: fmt.Sprint(i), Name: fmt.Sprint("P", i), By: "track.t"})
		}
		var b bytes.Buffer
		writeDrift(&b, s)
		want := fmt.Sprintf("Tracked 3 people: 0 job changes, 0 left the network, %d turned private.\n", private)
		if line, _, _ := strings.Cut(b.String(), "\n"); line+"\n" != want {
			t.Errorf("%d turned private: %q, want %q", private, line, want)
		}
		if l, _ := summaryEvent(s)["turned_private"].([]map[string]any); len(l) != private {
			t.Errorf("JSON turned_private %v, want %d people", summaryEvent(s)["turned_private"], private)
		}
	}
}

// TestSummaryDriftCountsTheJobChangesOfTracks: the track line counts the
// job changes the reads of tracks saw, a track inside a module too, and
// not those a search saw.
func TestSummaryDriftCountsTheJobChangesOfTracks(t *testing.T) {
	s := &engine.Summary{Tracked: 3}
	for i, by := range []struct {
		addr string
		call kind.Kind
	}{{"track.t", kind.Track}, {`module.m["de"].track.u`, kind.Track}, {"search.s", kind.Search}} {
		s.Drift.Jobs = append(s.Drift.Jobs, engine.JobChange{PersonID: fmt.Sprint(i), Name: fmt.Sprint("P", i), By: by.addr, Call: by.call,
			Before: engine.Job{Title: "CTO", Company: "A"}, After: engine.Job{Title: "CTO", Company: "B"}})
	}
	var b bytes.Buffer
	writeDrift(&b, s)
	want := "Tracked 3 people: 2 job changes, 0 left the network, 0 turned private."
	if line, _, _ := strings.Cut(b.String(), "\n"); line != want {
		t.Errorf("%q, want %q", line, want)
	}
}
