package sqlstate

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// TestTrackSketchesOfASmallBlockThroughItsIndex: on SQLite, the track
// sketches of a block that made less than one in sketchShare of the
// workspace's enrichments are read through enrichments_by
// (SelectTrackSketchedFew). Those of a larger block are read by every
// enrichment in the order of IDs. Both give the block's people, each
// once.
func TestTrackSketchesOfASmallBlockThroughItsIndex(t *testing.T) {
	for _, c := range []struct {
		small, large int
		ordered      bool // the small block read in the order of IDs
	}{
		{1, 30, false}, {2, 14, false}, {2, 13, true}, {5, 5, true},
	} {
		t.Run(fmt.Sprintf("%d beside %d", c.small, c.large), func(t *testing.T) {
			p := sketchStore(t, map[string]int{"enrich.a": c.large / 2, "enrich.m": c.small, "enrich.z": c.large - c.large/2})
			q, err := p.trackSketchQuery("enrich.m")
			if err != nil {
				t.Fatal(err)
			}
			if got := q == SelectTrackSketched; got != c.ordered {
				t.Errorf("read in the order of IDs: %v, want %v", got, c.ordered)
			}
			for _, q := range []string{SelectTrackSketched, SelectTrackSketchedFew} {
				if got, want := sketchedIDs(t, p, q, "enrich.m"), blockIDs("enrich.m", c.small); !slices.Equal(got, want) {
					t.Errorf("sketched %v, want %v", got, want)
				}
			}
		})
	}
}

// sketchStore is a store of people enriched by the blocks of by, as
// many each as by says.
func sketchStore(t *testing.T, by map[string]int) *peopleStore {
	t.Helper()
	db := removalDB(t)
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := &state.State{Lineage: "l", People: map[string]*state.Person{}}
	ch := &state.Changes{People: map[string]struct{}{}}
	for addr, n := range by {
		for _, id := range blockIDs(addr, n) {
			s.People[id] = &state.Person{ID: id, LastSeen: at, Enrichment: &state.Enrichment{By: addr, EnrichedAt: at}}
			ch.People[id] = struct{}{}
		}
	}
	removalWrite(t, db, s, ch)
	return &peopleStore{r: &Reader{D: SQLite, Q: db, WS: "default"}, ctx: context.Background()}
}

// blockIDs are the IDs of the n people enriched by addr, sorted.
func blockIDs(addr string, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("%s-%03d", addr, i)
	}
	return ids
}

// sketchedIDs are the IDs q gives for block by, sorted.
func sketchedIDs(t *testing.T, p *peopleStore, q, by string) []string {
	t.Helper()
	rows, err := p.r.query(p.ctx, q, p.r.WS, by)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		var rest [4]any
		if err := rows.Scan(&id, &rest[0], &rest[1], &rest[2], &rest[3]); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	return ids
}
