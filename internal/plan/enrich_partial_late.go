package plan

import "github.com/leadsync/leadsync/internal/state"

// An apply's plan over a partial state is made with the people of the
// block's stale enrichments in sketch (Fill), as plan makes it. Its
// engine reads them whole only when it first chooses people to enrich
// (FillWhole). Beside a track and refresh_on, that is after the track's
// reads: at 3,000,000 people, 60,000 people read whole (55-64 MB) were
// held before the first call that needed none of them.

// LetSketchesGo takes out of st, the partial state the plan was made on,
// the sketches f gave it (Fill), and keeps their IDs for FillWhole. A
// person read whole since (a walk of the places, a read of refresh_on)
// stays. Nothing without facts.
func (f *EnrichFacts) LetSketchesGo(st *state.State) {
	if f == nil || len(f.sketches) == 0 {
		return
	}
	ids := make([]string, len(f.sketches))
	for i, p := range f.sketches {
		ids[i] = p.ID
	}
	st.LetGoUnread(ids)
	f.late = append(f.late, ids...)
	f.sketches = nil
}
