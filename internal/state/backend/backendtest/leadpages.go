package backendtest

import (
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// testLeadPages checks a Base's people read with some columns alone
// (state.LeadPager: what the console's where on lead.<field> or
// person.<field> reads) against the people read whole: every person
// once, in ID order, across pages of two, and by ID (Base.PeopleOf),
// holding what
// state.PersonColumns.Of keeps of them read whole and no other, with the
// same e-mail status when they hold enrichments. The people hold texts with quotes and non-ASCII
// letters, some no enrichment (NULL columns), and Anna an e-mail of her
// former employer (her company changed after her enrichment).
func testLeadPages(t *testing.T, k Kind) {
	whole, got := storedOfEvents(t, k)
	got.SetPage(2)
	var keys, texts []string // every field a where reads, as testSketchLeads
	for _, f := range person.LeadFields {
		if f.Where {
			keys = append(keys, f.Key)
		}
	}
	for _, f := range person.EnrichedFields {
		if f.Enriched != nil {
			texts = append(texts, f.Key)
		}
	}
	for _, cols := range []state.PersonColumns{{Lead: keys}, {Lead: []string{"fullName"}, Enriched: []string{"email"}}, {Lead: keys, Enriched: texts, Seen: true}} {
		ids, former, bare := leadPagesOf(t, whole, got, cols)
		want := slices.Sorted(func(yield func(string) bool) {
			for id := range whole.People {
				if !yield(id) {
					return
				}
			}
		})
		if !slices.Equal(ids, want) || len(ids) < 3 {
			t.Fatalf("read %q with %+v, want every person once in ID order: %q", ids, cols, want)
		}
		if cols.Enriched != nil && (former == 0 || bare == 0) {
			t.Fatalf("with %+v: %d people with an e-mail not current, %d without enrichment; the case needs both", cols, former, bare)
		}
	}
}

// leadPagesOf reads got's people with cols, in pages and by ID, and
// checks each against the one of whole: the IDs read, and how many hold an e-mail that is not
// current and how many no enrichment.
func leadPagesOf(t *testing.T, whole *state.State, got *state.Base, cols state.PersonColumns) (ids []string, former, bare int) {
	t.Helper()
	err := got.EachLead(cols, func(p *state.Person) error {
		ids = append(ids, p.ID)
		w := whole.People[p.ID]
		if w == nil {
			t.Fatalf("%s read with %+v is no person", p.ID, cols)
		}
		want, err := cols.Of(w)
		must(t, err, "columns of")
		email := cols.Enriched == nil || (p.EmailNotCurrent() == w.EmailNotCurrent() && p.CurrentEmail() == w.CurrentEmail())
		if !samePerson(p, want) || !email {
			t.Fatalf("%s read with %+v:\n%+v (enrichment %+v)\nwant %+v (enrichment %+v)", p.ID, cols, p, p.Enrichment, want, want.Enrichment)
		}
		if w.EmailNotCurrent() != "" {
			former++
		}
		if w.Enrichment == nil {
			bare++
		}
		return nil
	})
	must(t, err, "each lead")
	byID, err := got.PeopleOf(append([]string{"nobody"}, ids...), cols)
	must(t, err, "people of")
	for _, id := range ids {
		want, err := cols.Of(whole.People[id])
		must(t, err, "columns of")
		if p := byID[id]; p == nil || !samePerson(p, want) {
			t.Fatalf("%s read by ID with %+v: %+v, want %+v", id, cols, p, want)
		}
	}
	if len(byID) != len(ids) {
		t.Fatalf("read %d people by ID with %+v, want %d", len(byID), cols, len(ids))
	}
	return ids, former, bare
}

// samePerson reports whether p and q hold the same of what a narrowed
// read gives (state.PersonColumns.Of), times by their instant.
func samePerson(p, q *state.Person) bool {
	if p.ID != q.ID || p.Lead != q.Lead || p.Status != q.Status || !p.FirstSeen.Equal(q.FirstSeen) || !p.LastSeen.Equal(q.LastSeen) ||
		!sameTime(p.StatusSince, q.StatusSince) || (p.Enrichment == nil) != (q.Enrichment == nil) ||
		!slices.EqualFunc(p.History, q.History, func(a, b state.Drift) bool { return a.Field == b.Field && a.After == b.After && a.At.Equal(b.At) }) {
		return false
	}
	return p.Enrichment == nil || (p.Enrichment.EnrichedAt.Equal(q.Enrichment.EnrichedAt) && p.Enrichment.Result == q.Enrichment.Result)
}

// sameTime reports whether a and b are both nil or the same instant.
func sameTime(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}
