package sandbox

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// query is a validated search. Text values are folded terms; a member
// matches a text parameter when every term occurs in the field as a whole
// word (keywords: anywhere in name, title, company or skills), so that "CTO"
// finds CTOs and not directors. Array parameters match when the member's
// value is one of those given.
type query struct {
	text   map[string][]string        // search parameter -> folded terms; keywords included
	arrays map[string]map[string]bool // search parameter -> accepted values
	raw    bool
}

// fieldTypes maps every search parameter to its field.
var fieldTypes = func() map[string]api.Field {
	m := map[string]api.Field{}
	for _, f := range Fields() {
		m[f.SearchParameter] = f
	}
	return m
}()

// parseSearch validates a search body. gen1 allows raw. Parameters from a
// searchUrl's query come first; the body's own parameters override them.
func parseSearch(params map[string]json.RawMessage, gen1 bool) (*query, error) {
	q := &query{text: map[string][]string{}, arrays: map[string]map[string]bool{}}
	f := filters{text: map[string]string{}, arrays: map[string][]string{}}
	var searchURL string
	hasURL := false

	for _, k := range slices.Sorted(maps.Keys(params)) {
		raw := params[k]
		switch k {
		case paramSearchURL:
			if err := json.Unmarshal(raw, &searchURL); err != nil {
				return nil, fmt.Errorf("searchUrl must be a string")
			}
			hasURL = true
		case paramRaw:
			if !gen1 {
				return nil, fmt.Errorf("unknown parameter %q: raw results exist only in the first generation", k)
			}
			if err := json.Unmarshal(raw, &q.raw); err != nil || string(raw) == "null" {
				return nil, fmt.Errorf("raw must be true or false")
			}
		default:
			if err := f.param(k, raw, gen1); err != nil {
				return nil, err
			}
		}
	}
	if hasURL {
		if err := f.fromURL(searchURL); err != nil {
			return nil, err
		}
	}
	if strings.TrimSpace(f.text[paramKeywords]) == "" {
		return nil, fmt.Errorf("one of keywords or searchUrl is required")
	}
	for k, v := range f.text {
		if terms := strings.Fields(fold(v)); len(terms) > 0 {
			q.text[k] = terms
		}
	}
	for k, vs := range f.arrays {
		if len(vs) == 0 { // an empty list filters nothing
			continue
		}
		q.arrays[k] = map[string]bool{}
		for _, v := range vs {
			q.arrays[k][v] = true
		}
	}
	return q, nil
}

// filters are the filters of a search as given, by search parameter.
type filters struct {
	text   map[string]string
	arrays map[string][]string
}

// param reads the filter k of a search body.
func (fs filters) param(k string, raw json.RawMessage, gen1 bool) error {
	f, ok := fieldTypes[k]
	if !ok {
		return fmt.Errorf("unknown parameter %q: expected keywords, searchUrl%s or a search_parameter of the fields list", k, rawHint(gen1))
	}
	if f.Type == api.FieldText {
		var v string
		if err := json.Unmarshal(raw, &v); err != nil || string(raw) == "null" {
			return fmt.Errorf("%s must be a string", k)
		}
		if v != "" { // an empty text filters nothing
			fs.text[k] = v
		}
		return nil
	}
	var vs []string
	if err := json.Unmarshal(raw, &vs); err != nil || string(raw) == "null" {
		return fmt.Errorf("%s must be an array of strings", k)
	}
	if err := checkValues(f, vs); err != nil {
		return err
	}
	fs.arrays[k] = vs
	return nil
}

// fromURL reads the filters of a searchUrl's query that the body does not
// set. Unknown query parameters are ignored: a URL copied from the network
// carries tracking and paging parameters of its own.
func (fs filters) fromURL(searchURL string) error {
	u, err := url.Parse(searchURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("searchUrl must be an absolute http(s) URL, got %q", searchURL)
	}
	uq := u.Query()
	if strings.TrimSpace(uq.Get(paramKeywords)) == "" {
		return fmt.Errorf("searchUrl must contain the keywords query parameter")
	}
	for _, k := range slices.Sorted(maps.Keys(uq)) {
		f, ok := fieldTypes[k]
		if !ok {
			continue
		}
		if f.Type == api.FieldText {
			if _, set := fs.text[k]; !set {
				fs.text[k] = uq.Get(k)
			}
			continue
		}
		if err := checkValues(f, uq[k]); err != nil {
			return fmt.Errorf("searchUrl: %w", err)
		}
		if _, set := fs.arrays[k]; !set {
			fs.arrays[k] = uq[k]
		}
	}
	return nil
}

func rawHint(gen1 bool) string {
	if gen1 {
		return ", raw"
	}
	return ""
}

// checkValues accepts only the field's possible values, exactly.
func checkValues(f api.Field, vs []string) error {
	for _, v := range vs {
		if !slices.Contains(f.PossibleValues, v) {
			return fmt.Errorf("%s: %q is not a possible value; possible values: %s",
				f.SearchParameter, v, textfmt.QuoteList(f.PossibleValues, ", "))
		}
	}
	return nil
}

// containsAll reports whether every term occurs in text as a whole word.
func containsAll(terms []string, text string) bool {
	for _, t := range terms {
		if !containsWord(text, t) {
			return false
		}
	}
	return true
}

// matcher is q as one check of a member, made once for a pass over the
// population: ranging over q's maps for each member took most of the
// sandbox's CPU in the tests. Array parameters are checked first: they
// are cheap and rule out most members.
func (q *query) matcher() func(*Member) bool {
	checks := make([]func(*Member) bool, 0, len(q.arrays)+len(q.text))
	for k, set := range q.arrays {
		checks = append(checks, arrayCheck(k, set))
	}
	for k, terms := range q.text {
		checks = append(checks, textCheck(k, terms))
	}
	return func(m *Member) bool {
		for _, ok := range checks {
			if !ok(m) {
				return false
			}
		}
		return true
	}
}

// arrayCheck is the check of the array parameter k: the member's value is
// one of set (one of its languages, for languages). An unknown parameter
// matches nobody.
func arrayCheck(k string, set map[string]bool) func(*Member) bool {
	switch k {
	case paramDiscipline:
		return func(m *Member) bool { return set[m.Discipline] }
	case paramIndustry:
		return func(m *Member) bool { return set[m.Industry] }
	case paramLevel:
		return func(m *Member) bool { return set[m.Level] }
	case paramStatus:
		return func(m *Member) bool { return set[m.EmploymentType] }
	case paramCountry:
		return func(m *Member) bool { return set[m.Country] }
	case paramLanguage:
		return func(m *Member) bool { return slices.ContainsFunc(m.Languages, func(l string) bool { return set[l] }) }
	}
	return func(*Member) bool { return false }
}

// textCheck is the check of the text parameter k: the member's folded
// field holds every term. An unknown parameter matches nobody.
func textCheck(k string, terms []string) func(*Member) bool {
	field := map[string]func(*Member) string{
		paramKeywords:        func(m *Member) string { return m.fKeywords },
		paramName:            func(m *Member) string { return m.fName },
		paramCompany:         func(m *Member) string { return m.fCompany },
		paramTitle:           func(m *Member) string { return m.fTitle },
		paramPreviousCompany: func(m *Member) string { return m.fPrevCompany },
		paramPreviousTitle:   func(m *Member) string { return m.fPrevTitle },
		paramHaves:           func(m *Member) string { return m.fSkills },
		paramCity:            func(m *Member) string { return m.fCity },
		paramEducation:       func(m *Member) string { return m.fEducation },
	}[k]
	if field == nil {
		return func(*Member) bool { return false }
	}
	return func(m *Member) bool { return containsAll(terms, field(m)) }
}

// search runs q over the population in its fixed order and returns at most
// api.MaxResults results (every match with Faults.Overfull): []person.Lead,
// or []api.RawLead when q.raw. No match is an empty array.
func (s *Server) search(q *query) any {
	limit := api.MaxResults
	s.mu.Lock()
	if s.faults.Overfull {
		limit = 0
	}
	s.mu.Unlock()
	found := s.matching(q, limit)
	return s.answer(q, found)
}

// matching returns the members q matches, in population order, at most
// limit of them (0: all).
func (s *Server) matching(q *query, limit int) []*Member {
	var found []*Member
	matches := q.matcher()
	for _, m := range s.population().members {
		if matches(m) {
			found = append(found, m)
			if len(found) == limit {
				break
			}
		}
	}
	return found
}

// Matching returns every member a search body (the JSON object sent to the
// search operation of the first generation) matches, ignoring the
// network's cap of api.MaxResults: the ground truth a complete split of
// that search must find. An invalid body is an error, as the service would
// answer 400.
func (s *Server) Matching(body []byte) ([]*Member, error) {
	params, _, ok := decodeObject(body)
	if !ok {
		return nil, fmt.Errorf("the search body is not a JSON object")
	}
	q, err := parseSearch(params, true)
	if err != nil {
		return nil, err
	}
	return s.matching(q, 0), nil
}

// answer renders found as the search result of q.
func (s *Server) answer(q *query, found []*Member) any {
	if q.raw {
		out := make([]api.RawLead, 0, len(found))
		for i, m := range found {
			out = append(out, m.rawLead(q, i))
		}
		return out
	}
	out := make([]person.Lead, 0, len(found))
	for _, m := range found {
		out = append(out, m.Lead())
	}
	return out
}

// highlightKeys are the keys of a raw lead's highlight object (spec 2.3).
var highlightKeys = []string{
	"interests", "wants", "currentTitle", "previousTitle", "haves", "currentCompany",
	"education", "organizations", "qualifications", "awards", "province", "city", "country",
	"zipCode", "currentNotes", "previousCompany", "portfolioTilesTitle",
	"portfolioTilesPlainContent", "currentIndustries", "previousIndustries",
}

// rawLead is the member as raw result number pos (spec 2.3), with the terms
// of q highlighted.
func (m *Member) rawLead(q *query, pos int) api.RawLead {
	kw := q.text[paramKeywords]
	terms := func(param string) []string { return append(slices.Clone(kw), q.text[param]...) }
	hl := map[string][]string{}
	for _, k := range highlightKeys {
		hl[k] = nil
	}
	mark := func(key, text string, ts []string) {
		if h, ok := highlight(text, ts); ok {
			hl[key] = append(hl[key], h)
		}
	}
	mark("currentTitle", m.Title, terms(paramTitle))
	mark("currentCompany", m.Company, terms(paramCompany))
	mark("previousTitle", m.PreviousTitle, q.text[paramPreviousTitle])
	mark("previousCompany", m.PreviousCompany, q.text[paramPreviousCompany])
	mark("education", m.Education, q.text[paramEducation])
	for _, sk := range m.Skills {
		mark("haves", sk, terms(paramHaves))
	}
	location := m.Location()
	if ts := q.text[paramCity]; len(ts) > 0 {
		mark("city", m.City, ts)
		if h, ok := highlight(m.City, ts); ok {
			location = h + ", " + m.Country
		}
	}
	if q.arrays[paramCountry][m.Country] {
		hl["country"] = []string{"**" + m.Country + "**"}
	}
	if q.arrays[paramIndustry][m.Industry] {
		hl["currentIndustries"] = []string{"**" + m.Industry + "**"}
	}

	occ := []api.RawOccupation{{Category: "WORK_EXPERIENCE", Summary: m.Title}}
	if m.PreviousTitle != "" {
		occ = append(occ, api.RawOccupation{Category: "WORK_EXPERIENCE", Summary: m.PreviousTitle})
	}
	occ = append(occ, api.RawOccupation{Category: "EDUCATION", Summary: m.Education})
	var images []api.RawProfileImage
	for _, size := range []int{32, 64, 128, 256} {
		images = append(images, api.RawProfileImage{URL: m.imageURL(size)})
	}
	var skills []json.RawMessage
	for _, sk := range m.Skills[:min(3, len(m.Skills))] {
		b, _ := json.Marshal(sk)
		skills = append(skills, b)
	}
	perms := []string{"CONTACT_REQUEST"}
	if m.Distance == 1 {
		perms = []string{"MESSAGE", "VIEW_CONTACT_DETAILS"}
	}
	return api.RawLead{
		Cursor: base64.StdEncoding.EncodeToString([]byte("cursor:" + strconv.Itoa(pos) + ":" + m.NetworkID)),
		Node: api.RawNode{
			NetworkID: api.RawMember{
				ID: m.NetworkID, DisplayName: m.FullName(), DisplayFlag: "BASIC",
				Location:          api.RawLocation{DisplayLocation: location},
				ProfileOccupation: api.RawOccupationOrg{OccupationOrg: m.Company},
				Occupations:       occ, PageName: m.PageName, ProfileImage: images,
			},
			Highlight:           hl,
			TrackingToken:       fmt.Sprintf("%s-%d", m.imageID[:12], pos),
			Position:            pos,
			ProfileSkills:       api.RawProfileSkills{TopSkills: skills},
			SharedContacts:      api.RawTotal{Total: m.SharedContacts},
			ContactsCount:       api.RawCount{Count: m.Contacts},
			NetworkRelationship: api.RawRelationship{Permissions: perms},
			ContactDistance:     api.RawDistance{Distance: m.Distance},
		},
	}
}
