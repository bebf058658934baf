package textfmt

import (
	"testing"
	"time"
)

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 9114: "9,114",
		1234567: "1,234,567", -1234: "-1,234", -999: "-999",
	} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		n    int
		noun string
		want string
	}{
		{1, "call", "1 call"}, {0, "call", "0 calls"}, {2, "call", "2 calls"},
		{3, "person", "3 people"}, {2, "address", "2 addresses"}, {2, "search block", "2 search blocks"},
		{2, "match", "2 matches"}, {2, "box", "2 boxes"}, {1, "person", "1 person"},
		{1381, "lead", "1,381 leads"}, {12000, "person", "12,000 people"},
	} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}

func TestQuoteList(t *testing.T) {
	if got := QuoteList([]string{"a", `b"c`}, ", "); got != `"a", "b\"c"` {
		t.Errorf("got %s", got)
	}
	if got := QuoteList(nil, ", "); got != "" {
		t.Errorf("empty: got %q", got)
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 people"}, {1, "1 person"}, {2, "2 people"}, {9114, "9,114 people"}} {
		if got := Count(c.n, "person", "people"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestAge(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{45 * time.Second, "45s"},
		{3 * time.Minute, "3m"},
		{2*time.Hour + 5*time.Minute, "2h5m"},
		{73 * time.Hour, "3d"},
	} {
		if got := Age(tc.d); got != tc.want {
			t.Errorf("Age(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestArticle(t *testing.T) {
	for in, want := range map[string]string{
		"export block": "an export block", "enrich block": "an enrich block", "object": "an object",
		"import block": "an import block", "unknown value": "an unknown value", "search block": "a search block",
		"list of strings": "a list of strings", "user": "a user", "": "a ",
	} {
		if got := WithArticle(in); got != want {
			t.Errorf("WithArticle(%q) = %q, want %q", in, got, want)
		}
	}
}
