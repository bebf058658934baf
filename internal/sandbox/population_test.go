package sandbox

import (
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

func TestPopulationIsDeterministic(t *testing.T) {
	a := generate(7, 800)
	b := generate(7, 800)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed gave different populations")
	}
	c := generate(8, 800)
	same := 0
	for i := range a {
		if a[i].PageName == c[i].PageName && a[i].Title == c[i].Title {
			same++
		}
	}
	if same > len(a)/10 {
		t.Errorf("seeds 7 and 8 agree on %d of %d members; want different populations", same, len(a))
	}
}

var (
	networkIDRe = regexp.MustCompile(`^[0-9]+\.[0-9a-f]+$`)
	pageNameRe  = regexp.MustCompile(`^[A-Za-z0-9-]+_[A-Za-z0-9-]+$`)
	emailRe     = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)?@[a-z0-9-]+(\.[a-z]+)+$`)
)

func TestPopulationShape(t *testing.T) {
	s := New(Options{})
	ms := s.Population()
	if len(ms) != DefaultPeople {
		t.Fatalf("population of %d, want %d", len(ms), DefaultPeople)
	}
	pages, ids := map[string]bool{}, map[string]bool{}
	seen := map[string]map[string]bool{}
	see := func(kind, v string) {
		if seen[kind] == nil {
			seen[kind] = map[string]bool{}
		}
		seen[kind][v] = true
	}
	var private, injected, apostrophes int
	scripts := map[string]bool{}
	for _, m := range ms {
		// Unique in any case: the network ignores the case of page names.
		if pages[strings.ToLower(m.PageName)] || ids[m.NetworkID] {
			t.Fatalf("duplicate page name %q or network id %q", m.PageName, m.NetworkID)
		}
		pages[strings.ToLower(m.PageName)], ids[m.NetworkID] = true, true
		if !networkIDRe.MatchString(m.NetworkID) {
			t.Errorf("networkId %q is not <digits>.<hex>", m.NetworkID)
		}
		if !pageNameRe.MatchString(m.PageName) {
			t.Errorf("pageName %q is not First_Last in ASCII", m.PageName)
		}
		for _, p := range []string{m.PageName, strings.ToLower(m.PageName), strings.ToUpper(m.PageName)} {
			if got, ok := s.Member(p); !ok || got != m {
				t.Errorf("Member(%q) does not find the member %s", p, m.PageName)
			}
		}
		if !slices.Contains(countryInfos[m.Country].citiesList(), m.City) {
			t.Errorf("%s: city %q is not a city of %s", m.PageName, m.City, m.Country)
		}
		see("country", m.Country)
		see("industry", m.Industry)
		see("discipline", m.Discipline)
		see("level", m.Level)
		see("status", m.EmploymentType)
		for _, l := range m.Languages {
			see("language", l)
		}
		see("email", m.EmailStatus)
		if (m.Email == "") != (m.EmailStatus == person.StatusEmpty) {
			t.Errorf("%s: email %q with status %q", m.PageName, m.Email, m.EmailStatus)
		}
		if m.Email != "" && !emailRe.MatchString(m.Email) {
			t.Errorf("%s: e-mail %q is not a plain address", m.PageName, m.Email)
		}
		if m.Email != "" && !strings.HasSuffix(m.Email, "@"+m.CompanyDomain) {
			t.Errorf("%s: e-mail %q not at the company domain %q", m.PageName, m.Email, m.CompanyDomain)
		}
		if m.Title != m.Positions[0].Title || m.Company != m.Positions[0].Company || !m.Positions[0].End.IsZero() {
			t.Errorf("%s: title/company do not match the current position", m.PageName)
		}
		if (m.PreviousTitle == "") != (len(m.Positions) == 1) {
			t.Errorf("%s: previous title %q with %d positions", m.PageName, m.PreviousTitle, len(m.Positions))
		}
		if m.Private {
			private++
		}
		if strings.ContainsAny(m.FullName()[:1]+m.Company[:1]+m.Title[:1], "=+-@") {
			injected++
		}
		if strings.Contains(m.FullName(), "'") {
			apostrophes++
		}
		for _, r := range m.FullName() {
			switch {
			case unicode.Is(unicode.Han, r):
				scripts["Han"] = true
			case unicode.Is(unicode.Cyrillic, r):
				scripts["Cyrillic"] = true
			case unicode.Is(unicode.Arabic, r):
				scripts["Arabic"] = true
			case unicode.Is(unicode.Devanagari, r):
				scripts["Devanagari"] = true
			case r > unicode.MaxASCII && unicode.Is(unicode.Latin, r):
				scripts["Latin with accents"] = true
			}
		}
	}
	for kind, want := range map[string][]string{
		"country": countries, "industry": industries, "discipline": disciplines, "level": levels,
		"status": employmentTypes, "language": languages,
		"email": {person.StatusValid, person.StatusCatchAll, person.StatusEmpty},
	} {
		for _, v := range want {
			if !seen[kind][v] {
				t.Errorf("no member has %s %q", kind, v)
			}
		}
		if len(seen[kind]) != len(want) {
			t.Errorf("%s values %v outside the spec's list", kind, seen[kind])
		}
	}
	for _, sc := range []string{"Han", "Cyrillic", "Arabic", "Devanagari", "Latin with accents"} {
		if !scripts[sc] {
			t.Errorf("no name in %s", sc)
		}
	}
	if private == 0 || private > len(ms)/10 {
		t.Errorf("%d private profiles; want a few", private)
	}
	if injected < 5 {
		t.Errorf("%d members with formula-like values; want a few", injected)
	}
	if apostrophes == 0 {
		t.Error("no name with an apostrophe")
	}
}

func (c countryInfo) citiesList() []string {
	var out []string
	for _, e := range c.cities {
		out = append(out, e.key)
	}
	return out
}

func TestFold(t *testing.T) {
	for in, want := range map[string]string{
		"München":   "munchen",
		"İstanbul":  "istanbul",
		"ÇELİK":     "celik",
		"Straße":    "strasse",
		"Núñez":     "nunez",
		"O'Brien":   "o'brien",
		"李磊":        "李磊",
		"Zoë Smith": "zoe smith",
	} {
		if got := fold(in); got != want {
			t.Errorf("fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestASCIIFold(t *testing.T) {
	for in, want := range map[string]string{
		"Jürgen":       "Juergen",
		"von Bülow":    "vonBuelow",
		"O'Brien":      "OBrien",
		"Çağla":        "Cagla",
		"İlker":        "Ilker",
		"Hans-Peter":   "Hans-Peter",
		"García López": "GarciaLopez",
		"=1+2":         "12",
		"李":            "",
	} {
		if got := asciiFold(in); got != want {
			t.Errorf("asciiFold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct {
		in    string
		terms []string
		want  string
		ok    bool
	}{
		{"Software Engineer", []string{"engineer"}, "Software **Engineer**", true},
		{"München", []string{"munchen"}, "**München**", true},
		{"Senior Software Engineer", []string{"software", "engineer"}, "Senior **Software** **Engineer**", true},
		{"Data Engineer", []string{"manager"}, "Data Engineer", false},
		{"Go, Go", []string{"go"}, "**Go**, **Go**", true},
		{"Straße", []string{"strasse"}, "**Straße**", true},
		{"Straße", []string{"ss"}, "Straße", false}, // whole words only
		{"Director", []string{"cto"}, "Director", false},
		{"CTO, Director", []string{"cto"}, "**CTO**, Director", true},
	} {
		got, ok := highlight(c.in, c.terms)
		if got != c.want || ok != c.ok {
			t.Errorf("highlight(%q, %q) = %q, %v; want %q, %v", c.in, c.terms, got, ok, c.want, c.ok)
		}
	}
}

// TestBillingAnswersWhileThePopulationIsGenerated: the population is
// generated in the background, so that a billing call (which reads
// none) answers at once; a call that reads members waits for it and
// finds them. The generation here waits for the billing call's answer:
// without the background generation, New would wait for ever (go test's
// -timeout says where).
func TestBillingAnswersWhileThePopulationIsGenerated(t *testing.T) {
	release := make(chan struct{})
	defer func(f func(int64, int, float64, int, bool) *population) { generatePopulation = f }(generatePopulation)
	generatePopulation = func(seed int64, people int, drift float64, epoch int, private bool) *population {
		<-release
		return populationAt(seed, people, drift, epoch, private)
	}
	h := newHarness(t, nil)
	var u api.Usage
	h.ok(http.MethodGet, "/v1/billing", nil, &u)
	close(release)
	if m := h.s.Population(); len(m) == 0 {
		t.Fatal("no members once generated")
	}
	if _, ok := h.s.Member(h.s.Population()[0].PageName); !ok {
		t.Error("the first member is not found by page name")
	}
}

// A sandbox answering no call that reads members generates no
// population: an apply that removes people alone (a billing call) holds
// no member.
func TestBillingAloneGeneratesNoPopulation(t *testing.T) {
	generated := 0
	defer func(f func(int64, int, float64, int, bool) *population) { generatePopulation = f }(generatePopulation)
	generatePopulation = func(seed int64, people int, drift float64, epoch int, private bool) *population {
		generated++
		return populationAt(seed, people, drift, epoch, private)
	}
	billed := newHarness(t, nil)
	var u api.Usage
	billed.ok(http.MethodGet, "/v1/billing", nil, &u)
	started := true
	billed.s.popStart.Do(func() { started = false })
	if generated != 0 || started {
		t.Fatalf("a billing call generated the population %d times (started: %v), want none", generated, started)
	}
	if len(newHarness(t, nil).s.Population()) == 0 || generated != 1 {
		t.Errorf("reading the members generated the population %d times, want once", generated)
	}
}
