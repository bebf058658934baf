package statefile

import (
	"bytes"
	"sort"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

// EncodeStream writes, from a header and people in batches, the bytes
// Encode writes of the whole state; people out of order are refused.
func TestEncodeStreamIsEncode(t *testing.T) {
	for name, s := range map[string]*state.State{"odd": oddState(t), "big": statetest.BigState(t, 2500, 40), "empty": state.New()} {
		t.Run(name, func(t *testing.T) {
			var whole, streamed bytes.Buffer
			must(t, Encode(&whole, s))
			ids := make([]string, 0, len(s.People))
			for id := range s.People {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			h := *s
			h.People = nil
			people := func(fn func([]*state.Person) error) error {
				for len(ids) > 0 {
					n := min(len(ids), 333)
					batch := make([]*state.Person, n)
					for i, id := range ids[:n] {
						batch[i] = s.People[id]
					}
					if err := fn(batch); err != nil {
						return err
					}
					ids = ids[n:]
				}
				return nil
			}
			must(t, EncodeStream(&streamed, &h, people))
			if !bytes.Equal(whole.Bytes(), streamed.Bytes()) {
				t.Fatalf("EncodeStream wrote %d bytes, Encode %d; they differ", streamed.Len(), whole.Len())
			}
		})
	}
	s := statetest.BigState(t, 10, 2)
	var ps []*state.Person
	for _, p := range s.People {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].ID > ps[j].ID })
	err := EncodeStream(&bytes.Buffer{}, state.New(), func(fn func([]*state.Person) error) error { return fn(ps) })
	if err == nil {
		t.Fatal("people out of order were written")
	}
}
