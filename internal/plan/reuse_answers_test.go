package plan

import (
	"testing"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestAPersonsKeysShareOneAnswer: the answers a plan keeps (answers.keep)
// hold one enrichment once for the keys that name it, the network ID and
// the page name of one person, and apart for another person enriched at
// the same time. An answer of the same mark that differs elsewhere is
// kept as it is. A later answer for one key replaces that key's alone.
func TestAPersonsKeysShareOneAnswer(t *testing.T) {
	one := state.Reusable{Workspace: "dach", Enrichment: state.Enrichment{EnrichedAt: t0, By: "enrich.dach",
		Result: person.EnrichedProfile{PageName: "one", NetworkID: "1", Email: "one@dach.example", Company: "Dach GmbH"}}}
	two := one
	two.Enrichment.Result.PageName, two.Enrichment.Result.NetworkID, two.Enrichment.Result.Email = "two", "2", "two@dach.example"
	odd := one
	odd.Enrichment.Result.Company = "Elsewhere Ltd"
	found := map[string]state.Reusable{"n:1": one, "p:one": one, "n:2": two, "p:two": two, "n:odd": odd}
	a := answers{}
	a.keep(found)
	for k, want := range found {
		if got := a[k]; got == nil || *got != want {
			t.Errorf("the answer for %s is %+v, want %+v", k, got, want)
		}
	}
	if a["n:2"] != a["p:two"] {
		t.Error("the two keys of one enrichment hold two answers")
	}
	if a["n:1"] == a["n:2"] {
		t.Error("two people's enrichments share one answer")
	}
	newer := two
	newer.Enrichment.EnrichedAt = t0.Add(1)
	a.keep(map[string]state.Reusable{"n:2": newer})
	if *a["n:2"] != newer || *a["p:two"] != two {
		t.Errorf("after a newer answer for n:2: %+v and %+v, want it for n:2 alone", *a["n:2"], *a["p:two"])
	}
}
