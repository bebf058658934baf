package state

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// idStore is a PeopleStore of sorted IDs that can stream them
// (IDStreamer): the stream fails after failAfter IDs (never when < 0) and
// counts the pages asked of IDs.
type idStore struct {
	PeopleStore
	ids       []string
	failAfter int
	pages     int
}

func (s *idStore) IDs(after string, n int) ([]string, error) {
	s.pages++
	i, _ := slices.BinarySearch(s.ids, after)
	if i < len(s.ids) && s.ids[i] == after {
		i++
	}
	return s.ids[i:min(i+n, len(s.ids))], nil
}

func (s *idStore) StreamIDs(fn func(string) bool) error {
	for i, id := range s.ids {
		if i == s.failAfter {
			return errors.New("the stream's connection is gone")
		}
		if !fn(id) {
			return nil
		}
	}
	return nil
}

func TestPersonIDsStreamThenPages(t *testing.T) {
	var all []string
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" {
		all = append(all, string(c)+"1", string(c)+"2")
	}
	for _, tc := range []struct {
		name      string
		failAfter int
		stopAt    int // the consumer stops after this many IDs (0: never)
		pages     int // pages of IDs read
	}{
		{"the stream gives every ID", -1, 0, 0},
		{"a stream failing at the start is read in pages", 0, 0, 11},
		{"a stream failing halfway goes on in pages from its last ID", 37, 0, 7},
		{"a consumer stopping stops the stream", -1, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &idStore{ids: all, failAfter: tc.failAfter}
			b := NewStoredBase(&State{}, nil, st)
			b.page = 2 // pages of 10 IDs
			var got []string
			for id, err := range b.PersonIDs() {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, id)
				if len(got) == tc.stopAt {
					break
				}
			}
			want := all
			if tc.stopAt > 0 {
				want = all[:tc.stopAt]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("IDs:\n got %s\nwant %s", strings.Join(got, " "), strings.Join(want, " "))
			}
			if st.pages != tc.pages {
				t.Fatalf("read %d pages of IDs, want %d", st.pages, tc.pages)
			}
		})
	}
}
