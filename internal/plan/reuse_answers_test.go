package plan

import (
	"testing"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// TestAPersonsKeysShareOneAnswer: the answers a plan keeps (answers.keep)
// hold one enrichment once for the keys that name it, the network ID and
// the page name of one person, and apart for another enrichment. A later
// answer for one key replaces that key's alone.
func TestAPersonsKeysShareOneAnswer(t *testing.T) {
	one := state.Reusable{Workspace: "dach", Enrichment: state.Enrichment{EnrichedAt: t0, By: "enrich.dach",
		Result: person.EnrichedProfile{Email: "one@dach.example", Company: "Dach GmbH"}}}
	other := one
	other.Enrichment.Result.Email = "other@dach.example"
	a := answers{}
	a.keep(map[string]state.Reusable{"n:1": one, "p:one": one, "n:2": other})
	switch {
	case a["n:1"] != a["p:one"]:
		t.Error("the two keys of one enrichment hold two answers")
	case a["n:1"] == a["n:2"]:
		t.Error("two enrichments share one answer")
	case *a["n:1"] != one || *a["n:2"] != other:
		t.Errorf("answers %+v and %+v, want %+v and %+v", *a["n:1"], *a["n:2"], one, other)
	}
	newer := one
	newer.Enrichment.EnrichedAt = t0.Add(1)
	a.keep(map[string]state.Reusable{"n:1": newer})
	if *a["n:1"] != newer || *a["p:one"] != one {
		t.Errorf("after a newer answer for n:1: %+v and %+v, want it for n:1 alone", *a["n:1"], *a["p:one"])
	}
}
