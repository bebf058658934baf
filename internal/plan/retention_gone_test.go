package plan

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// keptGone finds each person noted by ID among many (its open-addressed
// slots collide), tells the others apart, counts their enrichments by
// kind, and gives one as a person of its own.
func TestKeptGoneIndex(t *testing.T) {
	ids := make([]string, 3000)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%05d", i)
	}
	g := newKeptGone(state.PackIDs(ids))
	if g.has("p00001") || g.len() != 0 || (*keptGone)(nil).has("p00001") || (*keptGone)(nil).person("p00001") != nil {
		t.Fatal("an empty keptGone holds someone")
	}
	at := t0.Add(-200 * day)
	for i := 0; i < len(ids); i += 2 {
		k := state.KeptPerson{ID: ids[i]}
		if i%4 == 0 {
			k.Enriched, k.By, k.EnrichedAt = true, fmt.Sprintf("enrich.b%d", i%3), at
		}
		g.add(i, k)
		g.add(i, k) // noted twice: once
	}
	if g.len() != 1500 {
		t.Fatalf("len = %d, want 1500", g.len())
	}
	for i, id := range ids {
		if g.has(id) != (i%2 == 0) || g.keptAt(i) != (i%2 == 0) {
			t.Fatalf("%s: has %v, want %v", id, g.has(id), i%2 == 0)
		}
	}
	if g.has("p99999") || g.has("") {
		t.Fatal("someone not listed is noted")
	}
	by := map[string]int{}
	g.each(func(e keptEnrichment, n int) { by[e.by] += n })
	if want := map[string]int{"enrich.b0": 250, "enrich.b1": 250, "enrich.b2": 250}; !cmp.Equal(by, want) {
		t.Errorf("enrichments by block = %v, want %v", by, want)
	}
	p := g.person("p00004")
	if p == nil || p.ID != "p00004" || p.Enrichment == nil || p.Enrichment.By != "enrich.b1" || !p.Enrichment.EnrichedAt.Equal(at) {
		t.Errorf("person(p00004) = %+v", p)
	}
	if p := g.person("p00002"); p == nil || p.Enrichment != nil {
		t.Errorf("person(p00002) = %+v, want no enrichment", p)
	}
	if g.person("p00003") != nil {
		t.Error("person(p00003): someone who stays")
	}
}

// The people retention removes read in the kept form are not people of
// the state read (a state.Person each held most of the memory of a plan
// removing 1,000,000), and the plan's change names them by the IDs the
// store listed, not a copy.
func TestReadKeptHoldsNobody(t *testing.T) {
	f := newFixture()
	f.cfg.Settings.Retention = 180 * day
	f.search("search.old", kw("CTO"))
	f.search("search.new", kw("CEO"))
	f.ran("search.old", t0.Add(-200*day), "a", "b", "c", "d")
	f.ran("search.new", t0.Add(-10*day), "e")
	f.enriched("a", "enrich.gone", t0.Add(-200*day))
	f.st.People["d"].LastSeen = t0.Add(-180 * day).Add(time.Nanosecond) // stays
	defer SetMaxExpiredRead(1)()
	o := f.opts()
	want, _ := Build(f.cfg, f.st, o)
	b := enrichBase(f.st)
	exp, err := ExpiredOf(f.cfg, o, b)
	if err != nil || exp == nil || !exp.Kept {
		t.Fatalf("ExpiredOf = %+v, %v: want the kept form", exp, err)
	}
	o.Expired = exp
	r := ReadsOf(f.cfg, b.Records, o)
	st, err := r.Read(b)
	if err != nil || r.People {
		t.Fatalf("reads %+v: %v", r, err)
	}
	if err := exp.ReadKept(b, st); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b", "c"} {
		if st.People[id] != nil || !exp.gone.has(id) {
			t.Errorf("%s, who goes, is a person of the state read, or not noted", id)
		}
	}
	if st.People["d"] == nil || exp.gone.has("d") {
		t.Error("d, who stays, is not read whole")
	}
	got, _ := Build(f.cfg, st, o)
	if d := cmp.Diff(planJSON(t, want), planJSON(t, got)); d != "" {
		t.Fatalf("the plan differs (-whole +kept):\n%s", d)
	}
	ids := got.Change(state.PeopleAddress).PersonIDs
	if !cmp.Equal(ids, []string{"a", "b", "c"}) {
		t.Fatalf("removed %q, want a, b and c", ids)
	}
	exp.IDs = exp.IDs.Head(3) // d, listed, stays: without them, all go
	exp.gone = nil
	st, _ = r.Read(b)
	if err := exp.ReadKept(b, st); err != nil {
		t.Fatal(err)
	}
	got, _ = Build(f.cfg, st, o)
	if ids := got.Change(state.PeopleAddress).PersonIDs; len(ids) != 3 || unsafe.StringData(ids[0]) != unsafe.StringData(exp.IDs.At(0)) {
		t.Errorf("removed %q: want the IDs listed themselves, not copies", ids)
	}
}

// goneMet counts each ID once, whether noted by its place among the
// people read in the kept form or by ID for someone read whole.
func TestGoneMetCountsEachOnce(t *testing.T) {
	var m goneMet
	for _, i := range []int{0, 63, 64, 129, 63, 0} {
		m.kept(i, 130)
	}
	for _, id := range []string{"a", "b", "a"} {
		m.whole(id)
	}
	if m.len() != 6 {
		t.Fatalf("len = %d, want 6 (4 kept, 2 whole)", m.len())
	}
}
