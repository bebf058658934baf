package run

import (
	"fmt"
	"hash/maphash"
	"slices"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

const outputSrc = consoleSrc + `
output "cities" {
  value = [search.s]
}
output "berlin" {
  value = [search.s["Berlin"], enrich.e]
}
output "reached" {
  value = [enrich.e]
}
`

// TestOutputs: each output's blocks with their people, and its people
// counted once each (Ada and Bob are in Berlin and enriched: berlin holds
// two people, not four); only the output asked for; a block not run yet.
func TestOutputs(t *testing.T) {
	full, _ := consoleState(t)
	cfg := loadConfigText(t, t.TempDir(), outputSrc)
	// Ada found in Berlin; Hamburg not run, nobody enriched.
	empty := state.New()
	if err := empty.Fold(statetest.SearchEv(statetest.Day(1), `search.s["Berlin"]`, 5, statetest.Lead("1", "ada", "Ada Lovelace"))); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		s    *state.State
		only string
		want string
	}{
		{"all", full, "", `cities 3 [{search.s["Berlin"] search 2 true} {search.s["Hamburg"] search 1 true}]` +
			`|berlin 2 [{search.s["Berlin"] search 2 true} {enrich.e enrich 2 true}]|reached 2 [{enrich.e enrich 2 true}]`},
		{"one", full, "berlin", `berlin 2 [{search.s["Berlin"] search 2 true} {enrich.e enrich 2 true}]`},
		{"not run", empty, "", `cities 1 [{search.s["Berlin"] search 1 true} {search.s["Hamburg"] search 0 false}]` +
			`|berlin 1 [{search.s["Berlin"] search 1 true} {enrich.e enrich 0 false}]|reached 0 [{enrich.e enrich 0 false}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			values, err := Outputs(cfg, state.NewBase(c.s), c.only)
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for i, v := range values {
				if i > 0 {
					got += "|"
				}
				got += fmt.Sprintf("%s %d %v", v.Name, v.People, v.Blocks)
			}
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
		})
	}
}

// TestSortHashes: the buckets' sort gives what one sort gives, for hashes
// spread evenly, all in one bucket, and none.
func TestSortHashes(t *testing.T) {
	seed := maphash.MakeSeed()
	spread := make([]uint64, 10000)
	for i := range spread {
		spread[i] = maphash.String(seed, fmt.Sprint(i%7000)) // some twice
	}
	oneBucket := []uint64{5, 3, 3, 1 << 40, 0}
	for _, hashes := range [][]uint64{spread, oneBucket, nil} {
		want := slices.Sorted(slices.Values(hashes))
		if got := sortHashes(slices.Clone(hashes)); !slices.Equal(got, want) {
			t.Errorf("sortHashes of %d hashes is not sorted as slices.Sort sorts them", len(hashes))
		}
	}
}
