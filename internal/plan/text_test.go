package plan

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
)

func TestTextHelpers(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9114: "9,114", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{7 * day: "7d", 36 * time.Hour: "36h", 90 * time.Minute: "90m", 90 * time.Second: "1m30s"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{10 * time.Second: "just now", 5 * time.Minute: "5 min ago", 3 * time.Hour: "3 h ago", 9 * day: "9 days ago"} {
		if got := ago(t0, t0.Add(-d)); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
	// Parameters are named as the configuration names them (api.AttributeName),
	// a run of capitals as one word.
	req := api.SearchRequest{Params: map[string]any{"currentStatusCodeFilter": []string{"a"}, "searchURL": "u"}}
	if got, want := describeRequest(req), `current_status_code_filter=["a"] search_url="u"`; got != want {
		t.Errorf("describeRequest = %q, want %q", got, want)
	}
	old, _ := json.Marshal(api.SearchRequest{Params: map[string]any{"searchURL": "u", "pastCompanyFilter": "x"}})
	if got, want := diffRequest(old, req), `current_status_code_filter added, past_company_filter removed`; got != want {
		t.Errorf("diffRequest = %q, want %q", got, want)
	}
	long := describeRequest(api.SearchRequest{Params: map[string]any{"keywords": "Ünïcödé ääääääääääääääääääääääääääääääääääääääääääääääääää"}})
	if len(long) > maxDetail+4 || long[len(long)-4:] != " ..." {
		t.Errorf("describeRequest not truncated on a rune boundary: %q", long)
	}
}

// TestJoinParts: whole attributes are kept while they fit, the rest are
// named, and only a first attribute that alone is too long is cut.
func TestJoinParts(t *testing.T) {
	tests := []struct {
		parts []string
		n     int
		want  string
	}{
		{nil, 20, ""},
		{[]string{`a="x"`, `b=["y"]`}, 20, `a="x" b=["y"]`},
		{[]string{`keywords="CTO"`, `city="Berlin"`, `level_filter=["Senior","Manager"]`}, 30, `keywords="CTO" city="Berlin" (+ level_filter)`},
		{[]string{`keywords="CTO"`, `city="Berlin"`, `x=1`}, 14, `keywords="CTO" (+ city, x)`},
		{[]string{`search_url="https://example.com/very/long"`, `city="B"`}, 20, `search_url="https:// ... (+ city)`},
		{[]string{`city "A" -> "B"`, `level_filter changed`}, 16, `city "A" -> "B" (+ level_filter)`},
	}
	for _, tt := range tests {
		if got := joinParts(tt.parts, " ", tt.n); got != tt.want {
			t.Errorf("joinParts(%q, %d) = %q, want %q", tt.parts, tt.n, got, tt.want)
		}
	}
}

// TestChangeJSONPersonIDs: an enrich change always has person_ids, [] when
// empty, never null; other kinds have none.
func TestChangeJSONPersonIDs(t *testing.T) {
	tests := []struct {
		c    Change
		want string
	}{
		{Change{Kind: kind.Enrich}, `"person_ids":[]`},
		{Change{Kind: kind.Enrich, PersonIDs: []string{"1.a"}}, `"person_ids":["1.a"]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(&tt.c)
		if err != nil || !strings.Contains(string(b), tt.want) || strings.Count(string(b), "person_ids") != 1 {
			t.Errorf("%+v: %s, %v; want %s once", tt.c, b, err, tt.want)
		}
	}
	b, _ := json.Marshal(&Change{Kind: kind.Search})
	if strings.Contains(string(b), "person_ids") || strings.Contains(string(b), "null") {
		t.Errorf("search change: %s", b)
	}
}
