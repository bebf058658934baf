package pg

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// A Base's person IDs come from one query of their own, in the Base's
// snapshot, while the people are read through the Base.
func TestPersonIDsInOneQueryOfTheBasesSnapshot(t *testing.T) {
	t.Parallel()
	cs := testConnStr(t)
	b := newPG(t, cs, pooledSchema(t, cs), "", alice)
	s := backendtest.ManyPeople(t, 40)
	mustNoErr(t, b.Push(s, false), "push")
	base, err := b.OpenBase()
	mustNoErr(t, err, "open the base")
	defer base.Close()
	ctx := context.Background()
	c, err := connect(ctx, cs)
	mustNoErr(t, err, "connect")
	defer c.Close(ctx)
	_, err = c.Exec(ctx, b.sql(`INSERT INTO {s}.people (workspace, id) VALUES ($1, '0 written after the base')`), b.workspace)
	mustNoErr(t, err, "write a person after the base")

	var got []string
	for id, err := range base.PersonIDs() {
		mustNoErr(t, err, "person IDs")
		if len(got) == 0 {
			var streams int
			err := c.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE query = $1`,
				b.sql(idStreamQuery)).Scan(&streams)
			mustNoErr(t, err, "look for the query")
			if streams != 1 {
				t.Fatalf("%d connections ran the query of every ID, want 1", streams)
			}
		}
		p, err := base.Person(id)
		mustNoErr(t, err, "read %s while the IDs stream", id)
		if p == nil || p.ID != id {
			t.Fatalf("person %s read while the IDs stream: %+v", id, p)
		}
		got = append(got, id)
	}
	if want := slices.Sorted(maps.Keys(s.People)); !slices.Equal(got, want) {
		t.Fatalf("person IDs:\n got %q\nwant %q", got, want)
	}
	for range base.PersonIDs() {
		break // stops the query
	}
	if p, err := base.Person(got[1]); err != nil || p == nil {
		t.Fatalf("reading a person after the IDs stopped: %v, %v", p, err)
	}

	// Unpinned (a writable state of the Base), the store reads the state
	// as committed: the IDs too.
	_, err = base.Writable()
	mustNoErr(t, err, "unpin the base")
	got = got[:0]
	for id, err := range base.PersonIDs() {
		mustNoErr(t, err, "person IDs as committed")
		got = append(got, id)
	}
	want := append([]string{"0 written after the base"}, slices.Sorted(maps.Keys(s.People))...)
	if !slices.Equal(got, want) {
		t.Fatalf("person IDs as committed:\n got %q\nwant %q", got, want)
	}
}
