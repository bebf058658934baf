package backendtest

import (
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// colleagueTrack is a track of search.s["Berlin"].
const colleagueTrack = `track "t" {
  from  = [search.s["Berlin"]]
  every = "30d"
}
`

// colleagueImportOf is an import block of NAME.csv whose rows give a
// company and its domain.
func colleagueImportOf(name string) string {
	return strings.ReplaceAll(colleagueImport, "crm", name)
}

// colleagueSteps are the steps of PartialTrackApplyColleagues after the
// searches: the rows of old.csv and of crm.csv (none: no import.crm),
// each a network ID and a company domain ("": none) at the company of a
// Berlin lead; how long after the first step; how often the apply on a
// partial state loads the state whole; how many people each import that
// ran adopted the summary counts excluded; whether the apply is of a
// saved plan.
var colleagueSteps = []struct {
	old, crm []string
	after    int // days
	loads    int
	excluded map[string]int
	saved    bool
}{
	// A person of a Berlin lead's company with a listed domain and a
	// colleague without one (excluded by the first's, which the store
	// does not hold yet): the track reads the Berlin people.
	{[]string{"99999.abc rival.example", "99996.abc "}, nil, 1, 0, map[string]int{"import.old": 2}, false},
	// The track due again, and a colleague without a domain imported by
	// another block, from a saved plan: the Berlin lead and the colleague
	// are excluded by the domain of the store's enrichments (99999.abc is
	// not read).
	{[]string{"99999.abc rival.example", "99996.abc "}, []string{"99998.abc "}, 33, 0, map[string]int{"import.crm": 1}, true},
	// 99999.abc's e-mail replaced by one of another domain, and a new
	// colleague without one: the pair of the company and the listed
	// domain leaves the state, which only every person tells (a colleague
	// might keep it), so 99997.abc is not excluded. The state is loaded
	// whole (run.importsKeepColleagues): the store's pairs, read before
	// the run, would exclude them (1, not 0).
	{[]string{"99999.abc other.example", "99997.abc "}, []string{"99998.abc "}, 34, 0, map[string]int{"import.old": 0}, false},
	// Two people given the listed domain by import.crm.
	{[]string{"99999.abc other.example", "99997.abc "}, []string{"99998.abc rival.example", "99994.abc rival.example"}, 35, 0, map[string]int{"import.crm": 2}, false},
	// One of them given another domain by import.old, with a new
	// colleague without one: the other, whom no import names, keeps the
	// pair, and only reading every holder of a listed domain tells it
	// (run.readDomainHolders): the new colleague 99995.abc is excluded.
	{[]string{"99998.abc other.example", "99995.abc "}, []string{"99998.abc rival.example", "99994.abc rival.example"}, 36, 0, map[string]int{"import.old": 1}, false},
}

// colleagueFile is an import's file of rows ("ID domain") at company.
func colleagueFile(company string, rows []string) string {
	company = `"` + strings.ReplaceAll(company, `"`, `""`) + `"`
	csv := "ID,Email,Company,Domain\n"
	for _, r := range rows {
		id, domain, _ := strings.Cut(r, " ")
		email := ""
		if domain != "" {
			email = id + "@" + domain
		}
		csv += fmt.Sprintf("%s,%s,%s,%s\n", id, email, company, domain)
	}
	return csv
}

// testPartialTrackApplyColleagues: an apply of a track and of imports
// whose people an exclude block by domain matches by a colleague's
// company domain runs on a partial state on a backend that reads people
// on request: the plan and the run learn the company domains from the
// store (plan.Reads.ReadColleagues) and from the people the partial
// state holds. It records the same changes and shows the same summary
// (the people it excluded counted alike) as the apply that loads the
// state whole. An import that changes the domain of someone holding a
// listed one reads every holder of a listed domain first.
func testPartialTrackApplyColleagues(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	fsys := fstest.MapFS{"main.leads.hcl": {Data: []byte(sandboxOneCallAtATime + searchS(3) + searchT)}}
	wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, fsys, nil, false, true, At(60))
	gotSum, got, loads := partialApplyFiles(t, part, partDir, fsys, nil, false, false, At(60))
	sameApply(t, 0, 1, loads, wantSum, gotSum, want, got)
	company := berlinCompany(t, got)
	for i, step := range colleagueSteps {
		text := sandboxOneCallAtATime + searchS(3) + searchT + colleagueImportOf("old") + colleagueExclude + colleagueTrack
		fsys := fstest.MapFS{
			"domains.csv": {Data: []byte("Domain\nrival.example\n")},
			"old.csv":     {Data: []byte(colleagueFile(company, step.old))},
		}
		if step.crm != nil {
			text += colleagueImportOf("crm")
			fsys["crm.csv"] = &fstest.MapFile{Data: []byte(colleagueFile(company, step.crm))}
		}
		fsys["main.leads.hcl"] = &fstest.MapFile{Data: []byte(text)}
		at := At(60).Add(day * time.Duration(step.after))
		wantSum, want, _ := partialApplyFiles(t, whole, wholeDir, fsys, nil, step.saved, true, at)
		gotSum, got, loads := partialApplyFiles(t, part, partDir, fsys, nil, step.saved, false, at)
		sameApply(t, i+1, step.loads, loads, wantSum, gotSum, want, got)
		if i < 2 && trackedAt(got, "track.t", at) == 0 {
			t.Errorf("step %d: the track read no one", i+1)
		}
		excluded := map[string]int{}
		for _, im := range gotSum.Imported {
			excluded[im.Address] = im.Excluded
		}
		if d := cmp.Diff(step.excluded, excluded); d != "" {
			t.Errorf("step %d: the people the imports excluded (-want +got):\n%s", i+1, d)
		}
	}
}

// berlinCompany is the company of the first lead of search.s["Berlin"].
func berlinCompany(t *testing.T, st *state.State) string {
	t.Helper()
	c := st.People[st.Searches[`search.s["Berlin"]`].LeadIDs[0]].Lead.Company
	if c == "" {
		t.Fatal("the first Berlin lead has no company")
	}
	return c
}
