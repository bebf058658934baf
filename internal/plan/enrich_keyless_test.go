package plan

import (
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

// keylessBase is a Base that cannot find people by their lookup keys: its
// Keyed is hidden (no keyFinder), as a store of its own would lack it.
type keylessBase struct{ *state.Base }

// Keyed hides state.Base.Keyed: keylessBase is no keyFinder.
func (keylessBase) Keyed() {}

// networklessStore is enrichMemStore without the index of network IDs
// (no state.NetworkFinder): its Base's Keyed says it cannot find people
// by their lookup keys.
type networklessStore struct{ enrichMemStore }

// Networked hides enrichMemStore.Networked.
func (networklessStore) Networked() {}

// TestAStoreWithoutTheKeyLookupPlansAsTheWholeState: in the random worlds
// of TestEnrichReadsMakeTheSamePlan with other workspaces, a store that
// cannot find people by the keys those hold enrichments for plans as the
// whole state does, byte for byte, or reads everyone. Two such stores: one
// that has no Keyed (keylessBase: the plan reads everyone), one whose
// people store has no index of network IDs (Keyed answers it cannot: a
// block at its limit plans without the keys until it needs the people
// held, then reads everyone).
func TestAStoreWithoutTheKeyLookupPlansAsTheWholeState(t *testing.T) {
	const worlds = 1600
	defer keepReadKnobs()()
	var compared, everyone [2]int // by store: keylessBase, networklessStore
	for seed := range worlds {
		f, o, others := othersWorld(seed)
		if !others {
			continue
		}
		b := enrichBase(f.st)
		nb := enrichBaseIn(f.st, networklessStore{enrichMemStore{memStore{f.st}}})
		for i, r := range []enrichPlanned{planOfEnrichIn(t, seed, f, o, b, keylessBase{b}), planOfEnrichIn(t, seed, f, o, nb, nb)} {
			if r.compared {
				compared[i]++
			} else {
				everyone[i]++
			}
		}
	}
	t.Logf("worlds with other workspaces planned in part without Keyed: %d (%d read everyone); without the index of network IDs: %d (%d read everyone)",
		compared[0], everyone[0], compared[1], everyone[1])
	if compared[0] != 0 || everyone[0] < 600 {
		t.Errorf("without Keyed, %d worlds planned in part, %d read everyone: want none in part (the plan cannot find the people held)", compared[0], everyone[0])
	}
	if compared[1] < 100 || everyone[1] < 300 {
		t.Errorf("without the index of network IDs, %d worlds planned in part, %d read everyone: the worlds no longer test it", compared[1], everyone[1])
	}
}
