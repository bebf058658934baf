package pg

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A Base's pages of people streamed (StreamPeople) are the people Get
// reads, enrichments and histories with them, in the Base's snapshot (a
// change committed after it is not seen), in the order of the pages; an
// ID of nobody is left out, and a stream stopped after a page reads no
// more.
func TestStreamedPagesAreTheBasesPeople(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	s := backendtest.ManyPeople(t, 40)
	mustNoErr(t, b.Push(s, false), "push")
	base, err := b.OpenBase()
	mustNoErr(t, err, "open the base")
	defer base.Close()
	if !base.StreamsPages() {
		t.Fatal("PostgreSQL's Base does not stream pages")
	}
	ids := append(slices.Sorted(maps.Keys(s.People)), "nobody")
	want, err := base.People(ids)
	mustNoErr(t, err, "read the people")
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, b.sql(`UPDATE {s}.people SET full_name = 'changed after the base' WHERE workspace = $1`), b.workspace)
	mustNoErr(t, err, "change the people after the base")

	var pages [][]string
	for from := 0; from < len(ids); from += 7 {
		pages = append(pages, ids[from:min(from+7, len(ids))])
	}
	got := map[string]*state.Person{}
	n := 0
	err = base.StreamPeople(func() ([]string, bool) {
		if n == len(pages) {
			return nil, false
		}
		n++
		return pages[n-1], true
	}, func(people map[string]*state.Person) bool {
		for id, p := range people {
			got[id] = p
		}
		return true
	})
	mustNoErr(t, err, "stream the pages")
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("people streamed (-Get +streamed):\n%s", d)
	}
	if !slices.ContainsFunc(slices.Collect(maps.Values(got)), func(p *state.Person) bool { return p.Enrichment != nil }) ||
		!slices.ContainsFunc(slices.Collect(maps.Values(got)), func(p *state.Person) bool { return len(p.History) > 0 }) {
		t.Fatal("the fixture should hold enrichments and histories")
	}

	given := 0
	err = base.StreamPeople(func() ([]string, bool) { return pages[0], true }, func(map[string]*state.Person) bool {
		given++
		return false
	})
	if err != nil || given != 1 {
		t.Fatalf("a stream stopped after its first page: %d pages given, %v", given, err)
	}
}
