package backendtest

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// partialManyTrackSteps are the configurations testPartialManyTrackApply
// applies one after the other: the two enrich blocks of manyBlocks, then
// with import.crm (of network IDs, or of page names in upper case) and a
// track of the first block and of the import, planned together; with a
// where in the second block; a saved plan; and, once another workspace
// holds enrichments of people neither block enriched, with places left
// that copies take (reuse). None but the first loads the state whole
// (plan.EnrichReadsOf reads the track's, the file's and the copies'
// people).
var partialManyTrackSteps = []struct {
	contacts, leaders int // the limits
	csv               int // the import of csvOf(n), when n > 0
	pages, where      bool
	targets           []string
	after             time.Duration
	saved, reuse      bool
	loads             int
}{
	{contacts: 2, leaders: 1, loads: 1},
	{contacts: 3, leaders: 1, csv: 1, after: 20 * day},
	{contacts: 3, leaders: 2, csv: 1, where: true, after: 31 * day, targets: []string{"enrich.contacts", "enrich.leaders", "track.t"}},
	{contacts: 5, leaders: 5, pages: true, after: 63 * day, reuse: true},
	{contacts: 5, leaders: 5, csv: 2, where: true, after: 100 * day, saved: true, reuse: true},
	{contacts: 9, leaders: 7, csv: 1, after: 140 * day, reuse: true},
	{contacts: 12, leaders: 8, csv: 2, where: true, after: 175 * day, saved: true, reuse: true},
}

// manyTrackBlocks are manyBlocks with, when imports, import.crm (of
// network IDs or of page names) and a track of the first block and of
// the import; with where, the second block has a where.
func manyTrackBlocks(contacts, leaders int, imports, pages, where bool) string {
	text := manyBlocks(contacts, leaders)
	if where {
		text = strings.Replace(text, "  limit   = ", "  where   = lead.company != \"\"\n  limit   = ", 2)
		text = strings.Replace(text, "  where   = lead.company != \"\"\n", "", 1) // the second block's only
	}
	if !imports {
		return text
	}
	id := `network_id = "ID"`
	if pages {
		id = `page_name = "Page"`
	}
	return text + "import \"crm\" {\n  file    = \"crm.csv\"\n  columns = { " + id + ", email = \"Email\" }\n}\n" +
		"track \"t\" {\n  from  = [enrich.contacts, import.crm]\n  every = \"30d\"\n}\n"
}

// testPartialManyTrackApply: an apply of two enrich blocks (one with a
// where in some steps) planned with a track and an import, and with
// another workspace to copy enrichments from, runs on a partial state on
// a backend that reads people on request (it loads nothing whole), and
// leaves the same stored state and shows the same summary as the apply
// that loads the state whole, against the same sandbox.
func testPartialManyTrackApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	var last *state.State
	read, reused, elsewhere := 0, 0, false
	for i, step := range partialManyTrackSteps {
		if step.reuse && !elsewhere {
			manyTrackElsewhere(t, whole, part, last, At(60).Add(step.after))
			elsewhere = true
		}
		text := sandboxOneCallAtATime + manyTrackBlocks(step.contacts, step.leaders, step.csv > 0 || step.pages, step.pages, step.where)
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
		read += trackedAt(got, "track.t", at)
		reused += wantSum.Reused["dach"]
		last = got
	}
	t.Logf("%d track reads, %d copied from dach", read, reused)
	if read == 0 || reused == 0 {
		t.Errorf("%d track reads, %d copied: the steps no longer plan a track and reuse beside the blocks", read, reused)
	}
}

// manyTrackElsewhere gives both places a workspace dach holding
// enrichments of people of st no block enriched (heldElsewhere), made
// the day before at; the
// test is skipped on a backend without workspaces.
func manyTrackElsewhere(t *testing.T, whole, part func(string, Who) backend.Backend, st *state.State, at time.Time) {
	held := heldElsewhere(st)
	for i := range held {
		held[i].At = at.Add(-day) // fresh for both blocks' refresh
	}
	if len(held) < 2 {
		t.Fatalf("%d people to enrich elsewhere", len(held))
	}
	for _, open := range []func(string, Who) backend.Backend{whole, part} {
		must(t, workspaces(t, open, Alice).CreateWorkspace("dach"), "create dach")
		Apply(t, open("dach", Alice), held)
	}
}
