package sandbox

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// specFields is the table of spec 2.1, copied by hand from the spec.
var specFields = []struct{ label, param, typ string }{
	{"Search", "keywords", "text"},
	{"Name", "name", "text"},
	{"Company", "company", "text"},
	{"Position", "title", "text"},
	{"Company (previous)", "previousCompany", "text"},
	{"Position (previous)", "previousTitle", "text"},
	{"Skills", "haves", "text"},
	{"City", "city", "text"},
	{"University", "education", "text"},
	{"Discipline", "disciplineFilter", "array"},
	{"Industry", "industryFilter", "array"},
	{"Career level", "levelFilter", "array"},
	{"Employment type", "currentStatusCodeFilter", "array"},
	{"Language", "languageFilter", "array"},
	{"Country", "countryFilter", "array"},
}

func TestFieldsOperation(t *testing.T) {
	h := newHarness(t, nil)
	r := h.do(http.MethodGet, "/v1/scrap/fields", nil)
	if r.status != http.StatusOK {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var raw []map[string]any
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(specFields) {
		t.Fatalf("%d fields, want %d", len(raw), len(specFields))
	}
	counts := map[string]int{"disciplineFilter": 22, "industryFilter": 23, "levelFilter": 6,
		"currentStatusCodeFilter": 10, "languageFilter": 10, "countryFilter": 10}
	for i, want := range specFields {
		f := raw[i]
		if f["field_name"] != want.label || f["search_parameter"] != want.param || f["type"] != want.typ {
			t.Errorf("field %d = %v, want %+v", i, f, want)
		}
		pv, has := f["possible_values"].([]any)
		if (want.typ == "array") != has {
			t.Errorf("%s: possible_values present = %v", want.param, has)
		}
		if has && len(pv) != counts[want.param] {
			t.Errorf("%s: %d possible values, want %d", want.param, len(pv), counts[want.param])
		}
	}
	var typed []api.Field
	json.Unmarshal(r.body, &typed)
	if !reflect.DeepEqual(typed, Fields()) {
		t.Error("the fields operation differs from Fields()")
	}
	// Two values with punctuation, exactly as the spec writes them.
	if !slices.Contains(typed[9].PossibleValues, "Purchasing, materials management & logistics") ||
		!slices.Contains(typed[14].PossibleValues, "United States of America") {
		t.Error("possible values differ from the spec")
	}
}

func search(h *harness, path string, body map[string]any) []person.Lead {
	h.t.Helper()
	var leads []person.Lead
	h.ok(http.MethodPost, path, body, &leads)
	return leads
}

func TestSearchFiltersReallyFilter(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.People = 0 })
	base := map[string]any{"keywords": "Manager"} // thousands of people
	all := search(h, "/v1/scrap", base)
	if len(all) != api.MaxResults {
		t.Fatalf("keywords \"Manager\" gave %d results, want the cap", len(all))
	}
	member := func(l person.Lead) *Member {
		m, ok := h.s.Member(l.PageName)
		if !ok {
			t.Fatalf("result %q is not a member", l.PageName)
		}
		if !reflect.DeepEqual(m.Lead(), l) {
			t.Fatalf("result %+v differs from the member's lead %+v", l, m.Lead())
		}
		return m
	}
	// Text matches whole words: "Engineer" is not in "Engineering".
	contains := func(s, word string) bool {
		return slices.Contains(strings.FieldsFunc(fold(s), func(r rune) bool { return !isWordRune(r) }), fold(word))
	}
	cases := []struct {
		param string
		value any
		check func(m *Member) bool
		base  string // keywords besides the filter; "Manager" when empty
	}{
		{"keywords", "Engineer", func(m *Member) bool {
			return contains(m.FullName(), "engineer") || contains(m.Title, "engineer") || contains(m.Company, "engineer") ||
				slices.ContainsFunc(m.Skills, func(s string) bool { return contains(s, "engineer") })
		}, ""},
		{"name", "Müller", func(m *Member) bool { return contains(m.FullName(), "müller") }, ""},
		{"company", "Software", func(m *Member) bool { return contains(m.Company, "software") }, ""},
		{"title", "Senior", func(m *Member) bool { return contains(m.Title, "senior") }, "Engineer"},
		{"previousCompany", "Bank", func(m *Member) bool { return contains(m.PreviousCompany, "bank") }, ""},
		{"previousTitle", "Junior", func(m *Member) bool { return contains(m.PreviousTitle, "junior") }, "Engineer"},
		{"haves", "Kubernetes", func(m *Member) bool { return slices.Contains(m.Skills, "Kubernetes") }, ""},
		{"city", "munchen", func(m *Member) bool { return m.City == "München" }, ""},
		{"education", "ETH", func(m *Member) bool { return m.Education == "ETH Zürich" }, ""},
		{"disciplineFilter", []string{"Legal", "HR"}, func(m *Member) bool { return m.Discipline == "Legal" || m.Discipline == "HR" }, ""},
		{"industryFilter", []string{"Internet and IT"}, func(m *Member) bool { return m.Industry == "Internet and IT" }, ""},
		{"levelFilter", []string{"Executive"}, func(m *Member) bool { return m.Level == "Executive" }, "Head"},
		{"currentStatusCodeFilter", []string{"Self employed"}, func(m *Member) bool { return m.EmploymentType == "Self employed" }, ""},
		{"languageFilter", []string{"Turkish"}, func(m *Member) bool { return slices.Contains(m.Languages, "Turkish") }, ""},
		{"countryFilter", []string{"Spain", "Italy"}, func(m *Member) bool { return m.Country == "Spain" || m.Country == "Italy" }, ""},
	}
	for _, c := range cases {
		if c.base == "" {
			c.base = "Manager"
		}
		body := map[string]any{"keywords": c.base, c.param: c.value}
		if c.param == "keywords" {
			body = map[string]any{"keywords": c.value}
		}
		got := search(h, "/v1/scrap", body)
		// Everyone the filter lets through, by an independent check.
		want, hasBase := 0, keywordsMatcher(fold(c.base))
		for _, m := range h.s.Population() {
			if c.check(m) && (c.param == "keywords" || hasBase(m)) {
				want++
			}
		}
		if len(got) != min(want, api.MaxResults) || want == 0 {
			t.Errorf("%s=%v: %d results, want %d", c.param, c.value, len(got), min(want, api.MaxResults))
		}
		for _, l := range got {
			if !c.check(member(l)) {
				t.Errorf("%s=%v: result %s does not match", c.param, c.value, l.PageName)
				break
			}
		}
		// The second generation filters the same way.
		if got2 := search(h, "/search", body); !reflect.DeepEqual(got, got2) {
			t.Errorf("%s=%v: generation 2 answers differently", c.param, c.value)
		}
	}

	// Filters combine: AND across parameters, and every term of a text.
	got := search(h, "/v1/scrap", map[string]any{"keywords": "Senior Engineer", "countryFilter": []string{"Germany"}, "city": "Berlin"})
	if len(got) == 0 {
		t.Fatal("no Senior Engineer in Berlin")
	}
	for _, l := range got {
		if l.Location != "Berlin, Germany" || !strings.Contains(l.Title, "Senior") || !strings.Contains(l.Title, "Engineer") {
			t.Errorf("combined filters let %+v through", l)
		}
	}
	if got := search(h, "/v1/scrap", map[string]any{"keywords": "Zzyzx"}); got == nil || len(got) != 0 {
		t.Errorf("no match: got %v, want an empty array", got)
	}
}

// keywordsMatcher is the check of a member against the keywords term,
// made once for a pass over the population.
func keywordsMatcher(term string) func(*Member) bool {
	q := &query{text: map[string][]string{paramKeywords: {term}}}
	return q.matcher()
}

func TestSearchCapAndDeterminism(t *testing.T) {
	a := newHarness(t, func(o *Options) { o.People = 0; o.Seed = 42 })
	b := newHarness(t, func(o *Options) { o.People = 0; o.Seed = 42 })
	for _, kw := range []string{"Manager", "Engineer"} {
		n, hasKW := 0, keywordsMatcher(fold(kw))
		for _, m := range a.s.Population() {
			if hasKW(m) {
				n++
			}
		}
		if n <= api.MaxResults {
			t.Errorf("only %d members match %q; want more than the cap", n, kw)
		}
		ra := a.do(http.MethodPost, "/v1/scrap", map[string]any{"keywords": kw})
		rb := b.do(http.MethodPost, "/v1/scrap", map[string]any{"keywords": kw})
		var leads []person.Lead
		json.Unmarshal(ra.body, &leads)
		if len(leads) != api.MaxResults {
			t.Errorf("%q: %d results, want %d", kw, len(leads), api.MaxResults)
		}
		if !bytes.Equal(ra.body, rb.body) {
			t.Errorf("%q: same seed, different answers", kw)
		}
	}
}

func TestSearchURL(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.People = 0 })
	q := url.Values{"keywords": {"Engineer"}, "city": {"Berlin"}, "industryFilter": {"Internet and IT", "Consulting"}, "utm_source": {"x"}}
	u := "https://network.example/search/members?" + q.Encode()
	got := search(h, "/v1/scrap", map[string]any{"searchUrl": u})
	want := search(h, "/v1/scrap", map[string]any{"keywords": "Engineer", "city": "Berlin", "industryFilter": []string{"Internet and IT", "Consulting"}})
	if len(got) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("searchUrl gave %d results, the same search in the body %d", len(got), len(want))
	}
	// Body parameters override those of the URL.
	got = search(h, "/search", map[string]any{"searchUrl": u, "city": "Hamburg"})
	for _, l := range got {
		if !strings.HasPrefix(l.Location, "Hamburg") {
			t.Errorf("body city did not override the URL's: %s", l.Location)
		}
	}
	if len(got) == 0 {
		t.Error("no result for the overridden city")
	}
}

func TestSearchHitsWithOnlySearchURLFilters(t *testing.T) {
	h := newHarness(t, nil)
	u := "https://network.example/search?keywords=Manager&countryFilter=Austria"
	for _, l := range search(h, "/v1/scrap", map[string]any{"searchUrl": u}) {
		if !strings.HasSuffix(l.Location, ", Austria") {
			t.Errorf("countryFilter in the URL ignored: %s", l.Location)
		}
	}
}

func TestInvalidInput(t *testing.T) {
	h := newHarness(t, nil)
	cases := []struct {
		name, path string
		body       any
		status     int
		want       string // part of the message
	}{
		{"unknown filter value", "/v1/scrap", map[string]any{"keywords": "x", "industryFilter": []string{"IT"}}, 400, `industryFilter: "IT" is not a possible value`},
		{"value of another field", "/search", map[string]any{"keywords": "x", "countryFilter": []string{"Berlin"}}, 400, "countryFilter"},
		{"case matters in values", "/v1/scrap", map[string]any{"keywords": "x", "levelFilter": []string{"manager"}}, 400, `"manager"`},
		{"unknown parameter", "/v1/scrap", map[string]any{"keywords": "x", "limit": 10}, 400, `unknown parameter "limit"`},
		{"snake case parameter", "/v1/scrap", map[string]any{"keywords": "x", "industry_filter": []string{"Consulting"}}, 400, `unknown parameter "industry_filter"`},
		{"neither keywords nor searchUrl", "/v1/scrap", map[string]any{"city": "Berlin"}, 400, "one of keywords or searchUrl is required"},
		{"empty keywords", "/search", map[string]any{"keywords": "  "}, 400, "one of keywords or searchUrl is required"},
		{"empty object", "/v1/scrap", map[string]any{}, 400, "one of keywords or searchUrl is required"},
		{"keywords not a string", "/v1/scrap", map[string]any{"keywords": 42}, 400, "keywords must be a string"},
		{"text filter as array", "/v1/scrap", map[string]any{"keywords": "x", "city": []string{"Berlin"}}, 400, "city must be a string"},
		{"array filter as string", "/search", map[string]any{"keywords": "x", "countryFilter": "Germany"}, 400, "countryFilter must be an array of strings"},
		{"array of numbers", "/v1/scrap", map[string]any{"keywords": "x", "countryFilter": []int{1}}, 400, "countryFilter must be an array of strings"},
		{"null filter", "/v1/scrap", map[string]any{"keywords": "x", "countryFilter": nil}, 400, "countryFilter must be an array of strings"},
		{"raw not a boolean", "/v1/scrap", map[string]any{"keywords": "x", "raw": "yes"}, 400, "raw must be true or false"},
		{"raw in generation 2", "/search", map[string]any{"keywords": "x", "raw": true}, 400, "raw results exist only in the first generation"},
		{"searchUrl relative", "/v1/scrap", map[string]any{"searchUrl": "/search?keywords=x"}, 400, "searchUrl must be an absolute"},
		{"searchUrl without keywords", "/v1/scrap", map[string]any{"searchUrl": "https://network.example/search?city=Berlin"}, 400, "searchUrl must contain the keywords query parameter"},
		{"searchUrl bad filter value", "/search", map[string]any{"searchUrl": "https://n.example/s?keywords=x&levelFilter=Boss"}, 400, `searchUrl: levelFilter: "Boss"`},
		{"searchUrl not a string", "/v1/scrap", map[string]any{"searchUrl": true}, 400, "searchUrl must be a string"},
		{"bad JSON", "/v1/scrap", `{"keywords": "x"`, 400, "not a JSON object"},
		{"array body", "/v1/scrap", `["keywords"]`, 400, "not a JSON object"},
		{"empty body", "/v1/scrap/page", "", 400, "must be a JSON object"},
		{"null body", "/v1/scrap/page", "null", 400, "not a JSON object"},
		{"trailing data", "/v1/scrap", `{"keywords":"x"} {}`, 400, "data after the JSON object"},
		{"both pageName and profileUrl", "/v1/scrap/page", map[string]any{"pageName": "Max_Mustermann", "profileUrl": ProfileURLPrefix + "Max_Mustermann"}, 400, "exactly one of pageName and profileUrl"},
		{"both on enrich", "/v1/scrap/enrich", map[string]any{"pageName": "a", "profileUrl": "https://x.example/a"}, 400, "exactly one"},
		{"neither pageName nor profileUrl", "/scrap", map[string]any{}, 400, "one of pageName or profileUrl is required"},
		{"pageName not a string", "/v1/scrap/page", map[string]any{"pageName": 5}, 400, "pageName must be a string"},
		{"pageName empty", "/v1/scrap/enrich", map[string]any{"pageName": ""}, 400, "pageName must not be empty"},
		{"profileUrl relative", "/scrap", map[string]any{"profileUrl": "profile/Max"}, 400, "profileUrl must be an absolute"},
		{"profileUrl without page", "/v1/scrap/page", map[string]any{"profileUrl": "https://network.example/"}, 400, "does not end in a page name"},
		{"unknown page parameter", "/v1/scrap/page", map[string]any{"pageName": "x", "raw": true}, 400, `unknown parameter "raw"`},
		// An unknown member is an invalid request: 404 is not among the
		// spec's status codes (400, 403, 429, 500).
		{"unknown profile", "/v1/scrap/page", map[string]any{"pageName": "No_Body"}, 400, `no member with pageName "No_Body"`},
		{"unknown profile gen 2", "/scrap", map[string]any{"profileUrl": ProfileURLPrefix + "No_Body"}, 400, `no member with pageName "No_Body"`},
		{"unknown profile enrich", "/v1/scrap/enrich", map[string]any{"pageName": "No_Body"}, 400, `no member with pageName "No_Body"`},
		{"unknown route", "/v2/search", map[string]any{}, 404, "no operation at /v2/search"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.do(http.MethodPost, c.path, c.body)
			if r.status != c.status {
				t.Fatalf("status %d, want %d (%s)", r.status, c.status, r.body)
			}
			if msg := message(t, r); !strings.Contains(msg, c.want) {
				t.Errorf("message %q does not say %q", msg, c.want)
			}
		})
	}
	r := h.do(http.MethodGet, "/v1/scrap", nil)
	if r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "POST" {
		t.Errorf("GET on a POST route: %d, Allow %q", r.status, r.header.Get("Allow"))
	}
	st := h.s.Stats()
	if st.RequestsSpent != 0 || st.CreditsSpent != 0 {
		t.Errorf("invalid calls spent %d requests and %d credits; want none", st.RequestsSpent, st.CreditsSpent)
	}
}

func TestRawSearch(t *testing.T) {
	h := newHarness(t, nil)
	body := map[string]any{"keywords": "Engineer", "city": "Berlin", "countryFilter": []string{"Germany"}, "raw": true}
	r := h.do(http.MethodPost, "/v1/scrap", body)
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var items []map[string]any
	if err := json.Unmarshal(r.body, &items); err != nil || len(items) == 0 {
		t.Fatalf("raw answer %.200s: %v", r.body, err)
	}
	nodeKeys := []string{"networkId", "highlight", "trackingToken", "position", "contains", "missing",
		"profileSkills", "sharedContacts", "contactsCount", "networkRelationship", "contactDistance"}
	for i, it := range items {
		if len(it) != 2 || it["cursor"] == "" {
			t.Fatalf("item %d keys: %v", i, it)
		}
		node := it["node"].(map[string]any)
		if got := slices.Sorted(maps.Keys(node)); !reflect.DeepEqual(got, sorted(nodeKeys)) {
			t.Fatalf("node keys %v, want %v", got, sorted(nodeKeys))
		}
		if node["contains"] != nil || node["missing"] != nil {
			t.Error("contains and missing must be null")
		}
		if node["position"] != float64(i) {
			t.Errorf("position %v, want %d", node["position"], i)
		}
		hl := node["highlight"].(map[string]any)
		if got := slices.Sorted(maps.Keys(hl)); !reflect.DeepEqual(got, sorted(highlightKeys)) {
			t.Fatalf("highlight keys %v", got)
		}
		if hl["interests"] != nil {
			t.Error("unmatched highlight must be null")
		}
		if s, _ := hl["currentTitle"].([]any); len(s) != 1 || !strings.Contains(s[0].(string), "**Engineer**") {
			t.Errorf("currentTitle highlight %v", hl["currentTitle"])
		}
		nid := node["networkId"].(map[string]any)
		if loc := nid["location"].(map[string]any)["displayLocation"]; loc != "**Berlin**, Germany" {
			t.Errorf("displayLocation %v, want the city highlighted", loc)
		}
		if nid["displayFlag"] != "BASIC" || len(nid["profileImage"].([]any)) == 0 {
			t.Errorf("networkId object %v", nid)
		}
		for _, o := range nid["occupations"].([]any) {
			o := o.(map[string]any)
			if o["links"] != nil || (o["category"] != "WORK_EXPERIENCE" && o["category"] != "EDUCATION") {
				t.Errorf("occupation %v", o)
			}
		}
	}
	// A raw lead reduces to the same lead as a plain search, without the
	// first and last name (a raw result has none).
	var raws []api.RawLead
	json.Unmarshal(r.body, &raws)
	delete(body, "raw")
	plain := search(h, "/v1/scrap", body)
	if len(plain) != len(raws) {
		t.Fatalf("raw %d results, plain %d", len(raws), len(plain))
	}
	for i := range plain {
		l := raws[i].Lead()
		want := plain[i]
		want.FirstName, want.LastName = "", ""
		if l != want {
			t.Errorf("raw lead %+v, plain %+v", l, plain[i])
		}
		if l.NetworkID != plain[i].NetworkID || l.PageName != plain[i].PageName || l.Location != plain[i].Location {
			t.Errorf("raw lead %+v, plain %+v", l, plain[i])
		}
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

var dateRe = regexp.MustCompile(`^(less than a month|[0-9]+ years?|[0-9]+ months?|[0-9]+ years? [0-9]+ months?), since [A-Z][a-z]{2} [0-9]{4}$`)

func TestProfiles(t *testing.T) {
	h := newHarness(t, nil)
	var public, private *Member
	for _, m := range h.s.Population() {
		if m.Private && private == nil {
			private = m
		}
		if !m.Private && len(m.Positions) >= 3 && m.Description != "" && public == nil {
			public = m
		}
	}
	var p, byURL, gen2 person.Profile
	h.ok(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": public.PageName}, &p)
	h.ok(http.MethodPost, "/v1/scrap/page", map[string]any{"profileUrl": public.ProfileURL()}, &byURL)
	h.ok(http.MethodPost, "/scrap", map[string]any{"profileUrl": "https://www.other.example/in/" + public.PageName + "/"}, &gen2)
	if !reflect.DeepEqual(p, byURL) || !reflect.DeepEqual(p, gen2) {
		t.Error("pageName, profileUrl and generation 2 give different profiles")
	}
	if p.FullName != public.FullName() || p.Private || p.Description == "" || p.NetworkURL != ProfileURLPrefix+public.PageName || p.ProfileImg == "" {
		t.Errorf("profile %+v", p)
	}
	if len(p.CurrentPosition) != 1 || p.CurrentPosition[0].JobTitle != public.Title || p.CurrentPosition[0].Company != public.Company {
		t.Errorf("currentPosition %+v", p.CurrentPosition)
	}
	if len(p.WorkPositionTimeline) != len(public.Positions) {
		t.Fatalf("timeline of %d, want %d", len(p.WorkPositionTimeline), len(public.Positions))
	}
	for i, tp := range p.WorkPositionTimeline {
		if !dateRe.MatchString(tp.Date) {
			t.Errorf("date %q not of the form <duration>, since <Mon YYYY>", tp.Date)
		}
		if _, err := time.Parse("Jan 2006", tp.StartDate); err != nil {
			t.Errorf("startDate %q: %v", tp.StartDate, err)
		}
		if (i == 0) != (tp.EndDate == nil) {
			t.Errorf("position %d endDate %v: only the current one has none", i, tp.EndDate)
		}
		if tp.DaysInPosition <= 0 {
			t.Errorf("daysInPosition %d", tp.DaysInPosition)
		}
	}
	// The raw JSON carries endDate null for the current position.
	r := h.do(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": public.PageName})
	if !bytes.Contains(r.body, []byte(`"endDate":null`)) {
		t.Error("current position has no endDate null")
	}

	var pp person.Profile
	h.ok(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": private.PageName}, &pp)
	if !pp.Private || pp.FullName != private.FullName() || len(pp.CurrentPosition) != 0 || pp.Description != "" {
		t.Errorf("private profile %+v", pp)
	}
	r = h.do(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": private.PageName})
	if !bytes.Contains(r.body, []byte(`"currentPosition":[]`)) {
		t.Errorf("private profile lists must be [] not null: %s", r.body)
	}
}

func TestDurationText(t *testing.T) {
	d := func(y int, m time.Month) time.Time { return time.Date(y, m, 1, 0, 0, 0, 0, time.UTC) }
	for _, c := range []struct {
		from, to time.Time
		want     string
	}{
		{d(2020, 3), d(2020, 3), "less than a month"},
		{d(2020, 3), d(2020, 4), "1 month"},
		{d(2020, 3), d(2020, 8), "5 months"},
		{d(2020, 3), d(2021, 3), "1 year"},
		{d(2020, 3), d(2023, 6), "3 years 3 months"},
		{d(2020, 3), d(2022, 4), "2 years 1 month"},
		{d(2020, 3), time.Date(2020, 4, 0, 0, 0, 0, 0, time.UTC), "less than a month"},
	} {
		if got := durationText(c.from, c.to); got != c.want {
			t.Errorf("durationText(%s, %s) = %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

var uuidRe = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestEnrich(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Credits = 30 })
	statuses := map[string]int{}
	balance := 30
	ids := map[string]bool{}
	for _, m := range h.s.Population()[:30] {
		var e person.EnrichedProfile
		h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": m.PageName}, &e)
		balance--
		if e.CreditBalance != balance {
			t.Errorf("creditBalance %d, want %d", e.CreditBalance, balance)
		}
		want := person.EnrichedProfile{ID: e.ID, PageName: m.PageName, FirstName: m.FirstName, LastName: m.LastName,
			FullName: m.FullName(), Title: m.Title, Location: m.Location(), PreviousTitle: m.PreviousTitle,
			Company: m.Company, NetworkID: m.NetworkID, ProfileImgURL: e.ProfileImgURL, Email: m.Email,
			ValidationStatus: m.EmailStatus, CompanyDomain: m.CompanyDomain, CreditBalance: balance}
		if e != want {
			t.Errorf("enriched\n %+v\nwant\n %+v", e, want)
		}
		if !uuidRe.MatchString(e.ID) || ids[e.ID] {
			t.Errorf("id %q is not a fresh UUID", e.ID)
		}
		ids[e.ID] = true
		statuses[e.ValidationStatus]++
	}
	if len(statuses) != 3 {
		t.Errorf("statuses %v; want valid, catch all and empty", statuses)
	}
	// Credits are used up: 403 with a message, nothing spent.
	m := h.s.Population()[40]
	r := h.do(http.MethodPost, "/v1/scrap/enrich", map[string]any{"profileUrl": m.ProfileURL()})
	if r.status != http.StatusForbidden {
		t.Fatalf("enrich without credits: %d", r.status)
	}
	if msg := message(t, r); !strings.Contains(msg, "enrich credits") {
		t.Errorf("message %q", msg)
	}
	st := h.s.Stats()
	if st.CreditsSpent != 30 || h.s.Credits() != 0 || st.Enriched[m.PageName] != 0 || len(st.Enriched) != 30 {
		t.Errorf("spent %d, balance %d, enriched %v", st.CreditsSpent, h.s.Credits(), st.Enriched[m.PageName])
	}
	// Enriching one person twice shows in the stats.
	h.s.SetCredits(5)
	h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": m.PageName}, nil)
	h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": m.PageName}, nil)
	if got := h.s.Stats().Enriched[m.PageName]; got != 2 {
		t.Errorf("Enriched[%s] = %d, want 2", m.PageName, got)
	}
}

func TestEnrichCost(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Credits = 5; o.CreditsPerEnrich = 2 })
	ms := h.s.Population()
	var e person.EnrichedProfile
	h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": ms[0].PageName}, &e)
	h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": ms[1].PageName}, &e)
	if e.CreditBalance != 1 {
		t.Errorf("balance %d, want 1", e.CreditBalance)
	}
	if r := h.do(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": ms[2].PageName}); r.status != 403 {
		t.Errorf("1 credit left for a cost of 2: status %d", r.status)
	}
}

func TestBillingAndQuota(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Quota = 5 })
	var u api.Usage
	h.ok(http.MethodGet, "/v1/billing", nil, &u)
	if u.RemainingRequests != 4 || u.InvoicingStartDate != InvoicingStartDate {
		t.Errorf("usage %+v, want 4 left (the billing call counts) and %s", u, InvoicingStartDate)
	}
	r := h.do(http.MethodGet, "/v1/billing", nil)
	if !bytes.Contains(r.body, []byte(`"Remaining requests this month":3`)) || !bytes.Contains(r.body, []byte(`"Invoicing start date":"2024-03-15"`)) {
		t.Errorf("billing body %s", r.body)
	}
	// Generation 2 and invalid calls do not count; fields, search, page do.
	page := h.s.Population()[0].PageName
	h.ok(http.MethodPost, "/search", map[string]any{"keywords": "x"}, nil)
	h.ok(http.MethodPost, "/scrap", map[string]any{"pageName": page}, nil)
	h.do(http.MethodPost, "/v1/scrap", map[string]any{})
	h.ok(http.MethodGet, "/v1/scrap/fields", nil, nil)
	h.ok(http.MethodPost, "/v1/scrap", map[string]any{"keywords": "x"}, nil)
	h.ok(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": page}, nil)
	if q := h.s.Quota(); q != 0 {
		t.Fatalf("quota %d, want 0", q)
	}
	r = h.do(http.MethodGet, "/v1/billing", nil)
	if r.status != http.StatusForbidden || !strings.Contains(message(t, r), "quota exhausted") {
		t.Errorf("billing with no quota: %d %s", r.status, r.body)
	}
	h.ok(http.MethodPost, "/search", map[string]any{"keywords": "x"}, nil) // generation 2 has no quota
	if st := h.s.Stats(); st.RequestsSpent != 5 {
		t.Errorf("RequestsSpent %d, want 5", st.RequestsSpent)
	}
}

// TestPageNameCase: the network ignores the case of a page name, as the
// client assumes (it compares the page of an answer with the one asked
// for without case): the profile read and the enrichment find the member
// by pageName or profileUrl in any case, and answer with the member's own
// spelling.
func TestPageNameCase(t *testing.T) {
	h := newHarness(t, nil)
	m := h.s.Population()[0]
	for _, page := range []string{strings.ToLower(m.PageName), strings.ToUpper(m.PageName)} {
		var p person.Profile
		h.ok(http.MethodPost, "/v1/scrap/page", map[string]any{"pageName": page}, &p)
		if p.NetworkURL != m.ProfileURL() || p.FullName != m.FullName() {
			t.Errorf("profile of %q: %s, %q; want %s", page, p.NetworkURL, p.FullName, m.ProfileURL())
		}
		h.ok(http.MethodPost, "/scrap", map[string]any{"profileUrl": ProfileURLPrefix + page}, &p)
		if p.NetworkURL != m.ProfileURL() {
			t.Errorf("generation 2 profile of %q: %s", page, p.NetworkURL)
		}
		var e person.EnrichedProfile
		h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]any{"pageName": page}, &e)
		if e.PageName != m.PageName || e.NetworkID != m.NetworkID {
			t.Errorf("enrichment of %q: %s %s; want %s %s", page, e.PageName, e.NetworkID, m.PageName, m.NetworkID)
		}
	}
}
