package address

import (
	"slices"
	"testing"
)

// TestIndexNamesWhatContainsNames asks an index of addresses in and out
// of modules, with and without keys, what each pattern names, and checks
// the answer against Contains asked of every address.
func TestIndexNamesWhatContainsNames(t *testing.T) {
	texts := []string{
		"search.cto", `search.cto["Berlin"]`, `search.cto["Hamburg"]`, "search.cto[0]", "search.ctox",
		`profile.cto["Berlin"]`, "enrich.contacts",
		"module.dach", `module.dach["de"]`, "module.dach.search.cto", `module.dach.search.cto["Berlin"]`,
		`module.dach["de"].search.cto`, `module.dach["de"].search.cto["Berlin"]`, `module.dach["at"].search.cto["Berlin"]`,
		`module.dach["de"].module.team.search.cto`, "module.dachx.search.cto", "module.team.search.cto",
	}
	patterns := append(slices.Clone(texts), "search.nobody", `search.cto["Munich"]`, "module.dach.search.cto[0]",
		`module.dach["de"].search.cto[0]`, `module.dach.module.team`, `module.dach["de"].module.team.search.cto["x"]`)
	var as []Address
	for _, s := range texts {
		a, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	x := NewIndex(as)
	for _, s := range patterns {
		p, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		var want []int
		for i, a := range as {
			if p.Contains(a) {
				want = append(want, i)
			}
		}
		if got := x.Named(p); !slices.Equal(got, want) {
			t.Errorf("Named(%s) = %v, want %v", s, got, want)
		}
	}
}
