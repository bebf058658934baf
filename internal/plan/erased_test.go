package plan

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// TestLimitCountsForgottenEnrichments: an enrichment whose person was
// forgotten since (leadsync forget, retention) was paid for and keeps its
// place under its block's limit; forgetting frees no credits to spend on
// someone new. The plan and EnrichCandidatesClaimed (what apply enriches) agree.
func TestLimitCountsForgottenEnrichments(t *testing.T) {
	const addr = "enrich.contacts"
	tests := []struct {
		name     string
		limit    int
		enriched map[string]string // person: the block that enriched them
		unknown  map[string]string // person: the block whose enrichment is of unknown outcome
		forget   []string
		want     []string
		detail   string
	}{
		{
			name: "a forgotten enrichment holds its place", limit: 3,
			enriched: map[string]string{"a": addr, "b": addr}, forget: []string{"a"},
			want: []string{"c"}, detail: "1 person; limit 3, 2 used",
		},
		{
			name: "the limit stays reached", limit: 2,
			enriched: map[string]string{"a": addr, "b": addr}, forget: []string{"a"},
			want: []string{}, detail: "limit 2 reached (3 people not enriched)",
		},
		{
			name: "every enriched person forgotten", limit: 2,
			enriched: map[string]string{"a": addr, "b": addr}, forget: []string{"a", "b"},
			want: []string{}, detail: "limit 2 reached (3 people not enriched)",
		},
		{
			name: "another block's enrichment counts against that block only", limit: 2,
			enriched: map[string]string{"a": "enrich.old"}, forget: []string{"a"},
			want: []string{"b", "c"}, detail: "2 people; limit 2, 0 used",
		},
		{
			name: "forgetting someone never enriched changes nothing", limit: 2,
			enriched: map[string]string{"b": addr}, forget: []string{"a"},
			want: []string{"c"}, detail: "1 person; limit 2, 1 used",
		},
		{
			name: "an enrichment of unknown outcome keeps its place too", limit: 2,
			unknown: map[string]string{"a": addr}, forget: []string{"a"},
			want: []string{"b"}, detail: "1 person; limit 2, 1 used",
		},
		{
			name: "no limit", limit: 0,
			enriched: map[string]string{"a": addr}, forget: []string{"a"},
			want: []string{"b", "c", "d", "e"}, detail: "4 people",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture()
			f.search("search.a", kw("CTO"))
			f.ran("search.a", t0.Add(-day), "a", "b", "c", "d", "e")
			e := f.enrich("contacts", []string{"search.a"}, tc.limit, 0)
			for _, id := range []string{"a", "b"} { // in a stable order
				if by := tc.enriched[id]; by != "" {
					f.enriched(id, by, t0.Add(-day))
				}
				if by := tc.unknown[id]; by != "" {
					f.apply(state.Event{At: t0.Add(-day), Kind: state.EventEnrichUnknown, Address: by,
						Enrich: &state.EnrichEvent{PersonID: id, Credits: 1}, Failure: &state.Failure{Message: "timeout"}})
				}
			}
			f.apply(state.Event{At: t0.Add(-day / 2), Kind: state.EventForgetPeople, Address: state.PeopleAddress,
				People: &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: tc.forget}})

			c := f.build(t, f.opts()).Change(e.Address)
			if c == nil {
				t.Fatal("no change for the enrich block")
			}
			if diff := cmp.Diff(tc.want, c.PersonIDs); diff != "" {
				t.Errorf("people to enrich (-want +got):\n%s", diff)
			}
			if c.Detail != tc.detail {
				t.Errorf("detail = %q, want %q", c.Detail, tc.detail)
			}
			if c.Credits != len(tc.want) || c.CreditsMax != len(tc.want) {
				t.Errorf("credits %d (max %d), want %d", c.Credits, c.CreditsMax, len(tc.want))
			}
			got, err := EnrichCandidatesClaimed(f.cfg, f.st, e, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, append([]string{}, got...)); diff != "" {
				t.Errorf("EnrichCandidatesClaimed, what apply enriches (-want +got):\n%s", diff)
			}
		})
	}
}
