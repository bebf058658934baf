package backendtest

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// partialTrackSteps are the configurations applied one after the other
// (after the api block: trackBlocks), each that long after the first:
// the searches alone, then a track of two of them (it reads their
// people), the track targeted once its people are due again, an import
// it watches too (of people of another search and a new one: the file's
// people are adopted, and read by the track), the import targeted with
// another file (people dropped, one added) from a saved plan, the whole
// configuration once the track is due again, a saved plan of the track a
// month later, and a file of page names the track watches (pagesOf).
var partialTrackSteps = []struct {
	track   bool
	csv     int // the import of csvOf(n), when n > 0
	pages   bool
	targets []string
	after   time.Duration
	saved   bool
	// reads says the track reads someone.
	reads bool
	// loads is how often the apply loads the state whole: once for a
	// state never written (no store yet).
	loads int
}{
	{loads: 1},
	{track: true, after: day, reads: true},
	{track: true, targets: []string{"track.t"}, after: 32 * day, reads: true},
	{track: true, csv: 1, after: 33 * day, reads: true},
	{track: true, csv: 2, targets: []string{"import.crm"}, after: 34 * day, saved: true},
	{track: true, csv: 2, after: 70 * day, reads: true},
	{track: true, csv: 2, targets: []string{"track.t"}, after: 101 * day, saved: true, reads: true},
	{track: true, csv: 3, pages: true, after: 132 * day, reads: true},
}

// trackBlocks are the blocks of a step: three searches, the track of
// two (and of import.crm with an import, of network IDs or of page
// names).
func trackBlocks(track, imports, pages bool) string {
	text := searchS(3) + searchT
	from := `search.s["Berlin"], search.t`
	if imports {
		from += ", import.crm"
		id := `network_id = "ID"`
		if pages {
			id = `page_name = "Page"`
		}
		text += "import \"crm\" {\n  file    = \"crm.csv\"\n  columns = { " + id + ", email = \"Email\" }\n}\n"
	}
	if track {
		text += fmt.Sprintf("track \"t\" {\n  from  = [%s]\n  every = \"30d\"\n}\n", from)
	}
	return text
}

// csvOf is the file import.crm reads at version n of st: people of
// search.s["Hamburg"] (the first two, then the second and third) and a
// person new to the state, with e-mails.
func csvOf(st *state.State, n int) string {
	ids := st.Searches[`search.s["Hamburg"]`].LeadIDs
	csv := fmt.Sprintf("ID,Email\n9999%d.abc,new%d@crm.example\n", n, n)
	for _, id := range ids[n-1 : n+1] {
		csv += fmt.Sprintf("%s,a%s.%d@crm.example\n", id, id, n)
	}
	return csv
}

// pagesOf is a file import.crm reads by page name: the people of
// search.s["Hamburg"], their page names in upper case (found in any
// letter case: the store's index of page names), and a page name new to
// the state, with e-mails.
func pagesOf(st *state.State) string {
	csv := "Page,Email\nnew-page-9999,page9999@crm.example\n"
	for _, id := range st.Searches[`search.s["Hamburg"]`].LeadIDs {
		csv += fmt.Sprintf("%s,p%s@crm.example\n", strings.ToUpper(st.People[id].Lead.PageName), id)
	}
	return csv
}

// testPartialTrackApply: an apply of a track and of an import runs on a
// partial state on a backend that reads people on request (it loads
// nothing whole, a file of page names included), reads the same people, records the same changes and
// shows the same summary as the apply that loads the state whole,
// against the same sandbox.
func testPartialTrackApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	var last *state.State
	for i, step := range partialTrackSteps {
		// One call at a time: the sandbox's answers follow the order of
		// the calls.
		text := sandboxOneCallAtATime + trackBlocks(step.track, step.csv > 0, step.pages)
		fsys := fstest.MapFS{"main.leads.hcl": {Data: []byte(text)}}
		switch {
		case step.pages:
			fsys["crm.csv"] = &fstest.MapFile{Data: []byte(pagesOf(last))}
		case step.csv > 0:
			fsys["crm.csv"] = &fstest.MapFile{Data: []byte(csvOf(last, step.csv))}
		}
		at := At(60).Add(step.after)
		wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, fsys, step.targets, step.saved, true, at)
		gotSum, got, loads := partialApplyFiles(t, part, partDir, fsys, step.targets, step.saved, false, at)
		sameApply(t, i, step.loads, loads, wantSum, gotSum, want, got)
		if n := trackedAt(got, "track.t", at); step.reads && n == 0 {
			t.Errorf("step %d: the track read no one", i)
		}
		last = got
	}
}

// trackedAt counts the people of st the track at addr read at at.
func trackedAt(st *state.State, addr string, at time.Time) int {
	n := 0
	for _, p := range st.People {
		if r, ok := p.Tracked[addr]; ok && r.Equal(at) {
			n++
		}
	}
	return n
}
