package address

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/kind"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		kind   string
		name   string
		key    string
		module string
		block  string
	}{
		{in: "search.cto", kind: "search", name: "cto", block: "search.cto"},
		{in: `search.cto["Berlin"]`, kind: "search", name: "cto", key: `["Berlin"]`, block: "search.cto"},
		{in: `search.cto[12]`, kind: "search", name: "cto", key: `[12]`, block: "search.cto"},
		{in: `search.cto["a.b[\"c\"]"]`, kind: "search", name: "cto", key: `["a.b[\"c\"]"]`, block: "search.cto"},
		{in: "enrich.cto-contacts", kind: "enrich", name: "cto-contacts", block: "enrich.cto-contacts"},
		{in: "module.dach", module: "module.dach", block: "module.dach"},
		{in: `module.dach["de"]`, module: `module.dach["de"]`, block: "module.dach"},
		{in: `module.dach.search.cto["Berlin"]`, kind: "search", name: "cto", key: `["Berlin"]`, module: "module.dach", block: "module.dach.search.cto"},
		{in: `module.dach[0].module.team["x"].profile.cto`, kind: "profile", name: "cto", module: `module.dach[0].module.team["x"]`, block: `module.dach[0].module.team["x"].profile.cto`},
	}
	for _, tc := range tests {
		a, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if string(a.Kind) != tc.kind || a.Name != tc.name || a.Key != tc.key || a.ModulePath() != tc.module {
			t.Errorf("Parse(%q) = %+v", tc.in, a)
		}
		if got := a.String(); got != tc.in {
			t.Errorf("Parse(%q).String() = %q", tc.in, got)
		}
		if got := Block(tc.in); got != tc.block {
			t.Errorf("Block(%q) = %q, want %q", tc.in, got, tc.block)
		}
		if got := Kind(tc.in); string(got) != tc.kind {
			t.Errorf("Kind(%q) = %q, want %q", tc.in, got, tc.kind)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, in := range []string{
		"", "search", "search.", ".cto", "search.cto.x", `search["x"].cto`, "search.cto[x]",
		`search.cto["x"`, `search.cto["x"]x`, "module", "module.", `module["x"].dach`,
		"module.dach.search", "search.cto[-1]", "search.cto[]", `search.cto["\q"]`, "1search.cto",
	} {
		if a, err := Parse(in); err == nil {
			t.Errorf("Parse(%q) = %+v; want an error", in, a)
		}
	}
}

// less orders two addresses (SortKey.Less).
func less(a, b string) bool { return NewSortKey(a).Less(NewSortKey(b)) }

// matches reports whether pattern names addr (Address.Contains).
func matches(addr, pattern string) bool {
	a, err := Parse(addr)
	if err != nil {
		return false
	}
	p, err := Parse(pattern)
	return err == nil && p.Contains(a)
}

func TestContains(t *testing.T) {
	tests := []struct {
		addr, pattern string
		want          bool
	}{
		{"search.cto", "search.cto", true},
		{`search.cto["Berlin"]`, "search.cto", true},
		{`search.cto["Berlin"]`, `search.cto["Hamburg"]`, false},
		{`search.ctox`, "search.cto", false},
		{`module.dach.search.cto`, "search.cto", false},
		{`module.dach.search.cto["B"]`, "module.dach", true},
		{`module.dach["de"].search.cto`, "module.dach", true},
		{`module.dach["de"].search.cto`, `module.dach["at"]`, false},
		{`module.dach["de"].search.cto`, `module.dach["de"]`, true},
		{`module.dach["de"].search.cto[0]`, `module.dach.search.cto`, true},
		{`module.dachx.search.cto`, "module.dach", false},
		{`module.dach.module.x.search.cto`, "module.dach", true},
		{`module.dach.module.x.search.cto`, "module.dach.search.cto", false},
		{"person.abc", "search.cto", false},
	}
	for _, tc := range tests {
		if got := matches(tc.addr, tc.pattern); got != tc.want {
			t.Errorf("Parse(%q).Contains(%q) = %v, want %v", tc.pattern, tc.addr, got, tc.want)
		}
	}
}

func TestLess(t *testing.T) {
	want := []string{
		`module.dach[2].search.cto`,
		`module.dach[10].search.cto`,
		`module.dach["at"].search.cto`,
		`profile.founder`,
		`search.cto`,
		`search.cto[2]`,
		`search.cto[10]`,
		`search.cto["Berlin"]`,
		`search.ctox`,
		`not an address`,
	}
	got := slices.Clone(want)
	for i := range got {
		j := (i * 7) % len(got)
		got[i], got[j] = got[j], got[i]
	}
	sort.Slice(got, func(i, j int) bool { return less(got[i], got[j]) })
	if !slices.Equal(got, want) {
		t.Errorf("sorted:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestJoinAndKeys(t *testing.T) {
	if got := Join("", "search.cto"); got != "search.cto" {
		t.Errorf("Join root = %q", got)
	}
	if got := Join(`module.dach["de"]`, "search.cto"+StringKey(`B"x`)); got != `module.dach["de"].search.cto["B\"x"]` {
		t.Errorf("Join = %q", got)
	}
	if got := IndexKey(3); got != "[3]" {
		t.Errorf("IndexKey = %q", got)
	}
	a, err := Parse(Join(`module.dach["de"]`, "search.cto"+StringKey(`B"x`)))
	if err != nil || a.Key != `["B\"x"]` {
		t.Errorf("round trip: %+v %v", a, err)
	}
}

// FuzzParse checks that Parse never panics, and that what it accepts it
// writes back as it read it.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"search.cto", `module.dach["de"].search.cto[3]`, "module.x.module", "module.a.b.c.d", `module.a["k"].module.b`, `search.cto["a\"]"]`, "module.x", "x.y[", `a.b["\u00e9"]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if strings.HasPrefix(s, "module.") {
			// Kind reads module addresses without Parse: the same answer.
			var want kind.Kind
			if err == nil {
				want = a.Kind
			}
			if got := Kind(s); got != want {
				t.Fatalf("Kind(%q) = %q, Parse says %q", s, got, want)
			}
		}
		if err != nil {
			return
		}
		b, err := Parse(a.String())
		if err != nil {
			t.Fatalf("Parse(%q) gave %+v, whose String %q does not parse: %v", s, a, a.String(), err)
		}
		if b.String() != a.String() {
			t.Fatalf("round trip of %q: %q then %q", s, a.String(), b.String())
		}
		_ = less(s, a.String())
		_ = a.Block().Contains(a)
	})
}
