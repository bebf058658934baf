package backendtest

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// partialEnrichTrackSteps are the configurations applied one after the
// other (after the api block: enrichTrackBlocks), each that long after the
// first: the enrich block at its limit alone, then with a track of the
// people it enriched and of an import of e-mails (people of another
// search, some of whom the block enriched, and one new to the state),
// planned together; the block's refreshes with the track targeted beside;
// a file of page names in upper case, places left; a saved plan of the
// whole once everything is stale. None but the first loads the state
// whole (plan.EnrichReadsOf reads the track's and the file's people).
var partialEnrichTrackSteps = []struct {
	limit   int
	csv     int // the import of csvOf(n), when n > 0
	pages   bool
	targets []string
	after   time.Duration
	saved   bool
	loads   int
}{
	{limit: 2, loads: 1},
	{limit: 3, csv: 1, after: 20 * day},
	{limit: 3, csv: 1, targets: []string{"enrich.contacts", "track.t"}, after: 31 * day},
	{limit: 6, pages: true, after: 63 * day},
	{limit: 6, csv: 2, after: 100 * day, saved: true},
}

// enrichTrackBlocks are enrichBlocks with, when imports, import.crm (of
// network IDs or of page names) and a track of the enrich block and of
// the import.
func enrichTrackBlocks(limit int, imports, pages bool) string {
	text := enrichBlocks(limit, false)
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

// testPartialEnrichTrackApply: an apply of an enrich block planned with a
// track and an import runs on a partial state on a backend that reads
// people on request (it loads nothing whole), and leaves the same stored
// state and shows the same summary as the apply that loads the state
// whole, against the same sandbox.
func testPartialEnrichTrackApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	var last *state.State
	imported, read := 0, 0
	for i, step := range partialEnrichTrackSteps {
		text := sandboxOneCallAtATime + enrichTrackBlocks(step.limit, step.csv > 0 || step.pages, step.pages)
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
		for _, p := range got.People {
			if p.Enrichment != nil && strings.HasPrefix(p.Enrichment.By, "import.") && p.Enrichment.EnrichedAt.Before(at) {
				imported++
			}
		}
		last = got
	}
	t.Logf("%d track reads, %d imported e-mails", read, imported)
	if read == 0 || imported == 0 {
		t.Errorf("%d track reads, %d imported e-mails: the steps no longer plan a track and an import beside the block", read, imported)
	}
}
