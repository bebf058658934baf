package backend

import (
	"slices"
	"testing"
)

// A list of IDs packed into one string unpacks to the same list, whatever
// the IDs hold.
func TestPackIDs(t *testing.T) {
	for _, ids := range [][]string{
		{"a"},
		{"", "x", ""},
		{"line\nbreak", "nul\x00byte", "é漢字", string(make([]byte, 300))},
	} {
		if got := unpackIDs(packIDs(ids)); !slices.Equal(got, ids) {
			t.Errorf("unpackIDs(packIDs(%q)) = %q", ids, got)
		}
	}
}
