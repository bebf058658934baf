package export

import (
	"slices"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// TestWhereColumnsGiveWhatWholeGives: for each field of a sheet's where
// that WhereColumns reads narrowed, WhereValues gives the same of the
// person narrowed (state.PersonColumns.Of) as of the person whole, for
// people with every field set, with an enrichment alone, without one,
// with an e-mail of a former employer, gone from the network, and known
// from a profile read alone; the
// fields read whole are those the docs list.
func TestWhereColumnsGiveWhatWholeGives(t *testing.T) {
	cfg := &config.Config{}
	var whole []string
	for _, f := range config.PersonAttributes {
		cols, ok := WhereColumns([]string{f})
		if !ok {
			whole = append(whole, f)
			continue
		}
		if !slices.Contains(cols.Lead, "fullName") {
			t.Errorf("%s: %+v reads no full name, which a selection shows", f, cols)
		}
		for _, p := range wherePeople() {
			narrow, err := cols.Of(p)
			if err != nil {
				t.Fatal(err)
			}
			got, err := WhereValues(cfg, []string{f}, narrow)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := WhereValues(cfg, []string{f}, p)
			if !got[f].RawEquals(want[f]) {
				t.Errorf("person.%s of %s read with %+v = %#v, read whole %#v", f, p.ID, cols, got[f], want[f])
			}
		}
	}
	wantWhole := append([]string{"fullName", "profileUrl", "foundIn", "description", "premiumProfile", "private", "currentPosition", "workHistory", "photoUrl"}, config.RawColumns...)
	if !slices.Equal(whole, wantWhole) {
		t.Errorf("read whole for %q, want %q (docs/performance.md says which)", whole, wantWhole)
	}
}

// wherePeople are people whose narrowed reads differ in each way that
// may change a where's value.
func wherePeople() []*state.Person {
	day := func(n int) time.Time { return statetest.Day(n) }
	ptr := func(t time.Time) *time.Time { return &t }
	full := &state.Person{ID: "full", Lead: statetest.FullLead("full", "n1", "full"), FirstSeen: day(1), LastSeen: day(4),
		Enrichment: &state.Enrichment{EnrichedAt: day(2), Result: statetest.FullEnrichment("full", "n1", "full", 9)}}
	full.Profile = &person.Profile{FullName: "Profile Name", Description: "about"}
	enrichedOnly := &state.Person{ID: "enriched", Lead: person.Lead{NetworkID: "n2"},
		Enrichment: &state.Enrichment{EnrichedAt: day(2), Result: statetest.FullEnrichment("only", "n2", "only", 9)}}
	bare := &state.Person{ID: "bare", Lead: statetest.FullLead("bare", "n3", "bare")}
	moved := &state.Person{ID: "moved", Lead: person.Lead{FullName: "Mo", Company: "Neu"},
		Enrichment: &state.Enrichment{EnrichedAt: day(2), Result: person.EnrichedProfile{Email: "mo@alt.example", ValidationStatus: "valid", CompanyDomain: "alt.example", Company: "Alt"}},
		History:    []state.Drift{{Field: state.DriftTitle, After: "x", At: day(3)}, {Field: state.DriftCompany, Before: "Alt", After: "Neu", At: day(3)}}}
	left := &state.Person{ID: "left", Lead: person.Lead{FullName: "Lu"}, Status: state.StatusLeft, StatusSince: ptr(day(3)),
		Enrichment: &state.Enrichment{EnrichedAt: day(2), Result: person.EnrichedProfile{Email: "lu@x.example", ValidationStatus: "valid"}}}
	profiled := &state.Person{ID: "profiled", Lead: person.Lead{NetworkID: "n4"}, Profile: &person.Profile{FullName: "Pro File"}}
	return []*state.Person{full, enrichedOnly, bare, moved, left, profiled}
}
