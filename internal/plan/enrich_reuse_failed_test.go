package plan

import (
	"maps"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// TestReusesOfAFailedRunPayNoCredit: the block's first source runs, and
// the other workspaces hold more people than the plan reads (firstHeld
// reads a1 and a2, made elsewhere at a former employer). Its run failing,
// the apply walks the lead list held before, as the whole state's does:
// it copies c, whom the plan did not read, into the one place left, and
// pays for nobody. Left unread, c is not copied and a1 takes the place:
// a credit paid where the whole state's apply copies for free.
func TestReusesOfAFailedRunPayNoCredit(t *testing.T) {
	defer keepReadKnobs()()
	maxReuseRead, maxReusePrefix = 1, 8
	f := newFixture()
	f.search("search.run", kw("run"), refresh(day))
	f.ran("search.run", t0.Add(-5*day), "a1.p", "a2.p", "c.p")
	f.search("search.quiet", kw("quiet"))
	f.ran("search.quiet", t0.Add(-day), "x.p", "b.p")
	e := f.enrich("e", []string{"search.run", "search.quiet"}, 2, 30*day)
	f.enriched("x.p", e.Address, t0.Add(-day))
	ew := &elsewhere{held: map[string]state.Reusable{
		"n:a1.p": heldAt("dach", t0.Add(-day), "a1@x.example", "Co former", "former.example"),
		"n:a2.p": heldAt("dach", t0.Add(-day), "a2@x.example", "Co former", "former.example"),
		"n:c.p":  heldIn("uk", t0.Add(-day), "c@x.example", "c.p"),
	}}
	o := Options{Now: t0, Offline: true, Targets: []string{e.Address}, Reuse: ew.lookup,
		ReuseHeld: func() ([]string, error) { return slices.Collect(maps.Keys(ew.held)), nil }}
	st, _, facts := applyPartial(t, 0, f, o)
	if st == nil || !facts.reuse.partial || st.People["c.p"] != nil {
		t.Fatalf("the plan read in part (%v), reading only the first people held: the test no longer tests firstHeld", st != nil)
	}
	copied, claimed := failedRunSpends(t, st, e, NewCandidates(f.cfg, o.Reuse).WithFacts(facts))
	wantCopied, wantClaimed := failedRunSpends(t, f.st, e, NewCandidates(f.cfg, o.Reuse))
	if !slices.Equal(wantCopied, []string{"c.p"}) || len(wantClaimed) != 0 {
		t.Fatalf("the whole state's apply copies %v and pays for %v, want c.p and nobody", wantCopied, wantClaimed)
	}
	if !slices.Equal(copied, wantCopied) || !slices.Equal(claimed, wantClaimed) {
		t.Errorf("over the partial state the apply copies %v and pays for %v; over the whole state %v and %v", copied, claimed, wantCopied, wantClaimed)
	}
}

// failedRunSpends is what an apply over st does with block e once its
// sources are done, the runs failing (the lead lists stay as they were):
// the copies, folded in as the engine records them, then the people it
// claims to pay for.
func failedRunSpends(t *testing.T, st *state.State, e *config.Enrich, c *Candidates) (copied, claimed []string) {
	t.Helper()
	reuses, err := c.Reuses(st, e, t0)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range reuses {
		copied = append(copied, r.PersonID)
		ev := state.Event{At: t0, Kind: state.EventReuse, Address: e.Address,
			Reuse: &state.ReuseEvent{PersonID: r.PersonID, Workspace: r.From.Workspace, Enrichment: r.From.Enrichment}}
		if err := st.Fold(ev); err != nil {
			t.Fatal(err)
		}
	}
	if claimed, err = c.Claimed(st, e, t0, nil); err != nil {
		t.Fatal(err)
	}
	return copied, claimed
}
