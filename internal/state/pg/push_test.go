package pg

import (
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/local"
)

// A local state database is pushed into PostgreSQL a batch of people at a
// time and arrives identical.
func TestPushFromTheLocalDatabase(t *testing.T) {
	cs := testConnStr(t)
	s := backendtest.ManyPeople(t, 2*backend.StreamBatch+321)
	src := filepath.Join(t.TempDir(), ".leadsync", "state.db")
	mustNoErr(t, local.NewStore(src).Save(s), "save the local state")
	st, err := backend.OpenStream(local.Open(src))
	mustNoErr(t, err, "open the local state")
	defer st.Close()
	b := newPG(t, cs, testSchema(t, cs), "", alice)
	pushed, err := b.PushStream(st, false)
	mustNoErr(t, err, "push")
	if pushed.People != len(s.People) {
		t.Fatalf("pushed %d people; the state has %d", pushed.People, len(s.People))
	}
	got, err := newPG(t, cs, b.schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if backendtest.Canon(t, got) != backendtest.Canon(t, s) {
		t.Fatal("the state pushed from the local database differs")
	}
}
