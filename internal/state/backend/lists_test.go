package backend_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
)

// streamed is a state passed as a Stream that is not held in memory (a
// database's or a file's), whose header is the push's own.
type streamed struct{ backend.Stream }

// While the people pass, the searches' lists of people are let go of;
// a person one of them names who never passes is still named in the
// error, from the lists put back.
func TestPushReleasesTheLists(t *testing.T) {
	s := backendtest.ManyPeople(t, 2*backend.StreamBatch+10)
	const gone = "m000003"
	for _, tc := range []struct {
		name   string
		remove string
	}{{"whole", ""}, {"a person missing", gone}} {
		t.Run(tc.name, func(t *testing.T) {
			st := backendtest.ManyPeople(t, 2*backend.StreamBatch+10)
			delete(st.People, tc.remove)
			ps, err := backend.PreparePush(streamed{backend.MemoryStream(st, "the state")}, nil)
			if err != nil {
				t.Fatal(err)
			}
			ps.ReleaseLists()
			held := 0
			err = ps.People(func([]*state.Person) error {
				for _, sr := range ps.Header.Searches {
					held += len(sr.LeadIDs)
				}
				return nil
			})
			if held != 0 {
				t.Fatalf("the searches' lists held %d names while the people passed", held)
			}
			var be *backend.BrokenStateError
			switch {
			case tc.remove == "" && err != nil:
				t.Fatalf("push of a whole state: %v", err)
			case tc.remove != "" && (!errors.As(err, &be) || !strings.Contains(err.Error(), `person "`+gone+`" is not in people`)):
				t.Fatalf("push of a state missing a person: %v", err)
			}
			if tc.remove != "" && ps.Header.Searches[`search.many["0"]`] == nil {
				t.Fatal("the header lost a search")
			}
		})
	}
	// A state held in memory keeps its lists: its header shares them.
	ps, err := backend.PreparePush(backend.MemoryStream(s, "the state"), nil)
	if err != nil {
		t.Fatal(err)
	}
	ps.ReleaseLists()
	if len(s.Searches[`search.many["0"]`].LeadIDs) == 0 {
		t.Fatal("ReleaseLists let go of the lists of a state held in memory")
	}
}
