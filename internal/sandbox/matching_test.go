package sandbox

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
)

// wordsOf splits folded text into its words, as whole-word matching sees them.
func wordsOf(t string) []string {
	return strings.FieldsFunc(fold(t), func(r rune) bool { return !isWordRune(r) })
}

// TestWholeWords: "CTO" finds members whose title, name, company or skills
// hold the word CTO, never a Director; the searched word is a whole word of
// every result.
func TestWholeWords(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.People = 0 })
	got := search(h, "/v1/scrap", map[string]any{"keywords": "CTO", "countryFilter": []string{"Germany"}})
	if len(got) == 0 {
		t.Fatal("no CTO in Germany")
	}
	for _, l := range got {
		m, _ := h.s.Member(l.PageName)
		all := append(append(wordsOf(m.FullName()), wordsOf(m.Title)...), wordsOf(m.Company)...)
		for _, sk := range m.Skills {
			all = append(all, wordsOf(sk)...)
		}
		if !slices.Contains(all, "cto") {
			t.Errorf("%s (%s) matched CTO without the word", l.PageName, l.Title)
		}
		if strings.Contains(l.Title, "Director") {
			t.Errorf("CTO found a director: %s", l.Title)
		}
	}
	for _, c := range []struct {
		text, term string
		want       bool
	}{
		{"director", "cto", false},
		{"cto, director", "cto", true},
		{"head of engineering", "engineer", false},
		{"software engineer", "engineer", true},
		{"hans-peter müller", "hans-peter", true},
		{"hans-peter", "peter", true},
		{"c++ developer", "c++", true},
		{"", "x", false},
		{"x", "", true},
	} {
		if got := containsWord(fold(c.text), fold(c.term)); got != c.want {
			t.Errorf("containsWord(%q, %q) = %v, want %v", c.text, c.term, got, c.want)
		}
	}
}

// TestCityNames: a city answers to its local and its English name alike.
func TestCityNames(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.People = 0 })
	for _, c := range []struct{ local, english, country string }{
		{"München", "Munich", "Germany"},
		{"Köln", "Cologne", "Germany"},
		{"Wien", "Vienna", "Austria"},
		{"Zürich", "Zurich", "Switzerland"},
	} {
		a := search(h, "/v1/scrap", map[string]any{"keywords": "Manager", "city": c.local})
		b := search(h, "/v1/scrap", map[string]any{"keywords": "Manager", "city": c.english})
		if len(a) == 0 || len(a) != len(b) {
			t.Errorf("%s gave %d results, %s %d", c.local, len(a), c.english, len(b))
			continue
		}
		for i := range a {
			if a[i] != b[i] || !strings.HasPrefix(a[i].Location, c.local+", "+c.country) {
				t.Errorf("%s/%s: result %d differs or is elsewhere: %s vs %s", c.local, c.english, i, a[i].Location, b[i].Location)
				break
			}
		}
	}
}

// TestMatchingIsTheGroundTruth: Matching counts every member a search
// matches, past the cap; the search's answer is its first 300.
func TestMatchingIsTheGroundTruth(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.People = 0 })
	body := map[string]any{"keywords": "Engineer", "countryFilter": []string{"Germany"}}
	b, _ := json.Marshal(body)
	all, err := h.s.Matching(b)
	if err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, m := range h.s.Population() {
		if m.Country == "Germany" && (slices.Contains(wordsOf(m.Title), "engineer") || slices.Contains(wordsOf(m.FullName()), "engineer") ||
			slices.Contains(wordsOf(m.Company), "engineer") || slices.ContainsFunc(m.Skills, func(s string) bool { return slices.Contains(wordsOf(s), "engineer") })) {
			want++
		}
	}
	if len(all) != want || want <= api.MaxResults {
		t.Fatalf("Matching: %d, independent count %d (want above the cap)", len(all), want)
	}
	got := search(h, "/v1/scrap", body)
	if len(got) != api.MaxResults {
		t.Fatalf("search gave %d, want the cap", len(got))
	}
	for i, l := range got {
		if all[i].PageName != l.PageName {
			t.Fatalf("result %d is %s, Matching's %s", i, l.PageName, all[i].PageName)
		}
	}
	if _, err := h.s.Matching([]byte(`{"keywords":"x","levelFilter":["Boss"]}`)); err == nil {
		t.Error("Matching accepted a value the service refuses")
	}
}
