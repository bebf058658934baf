package sandbox

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/person"
)

// ProfileURLPrefix starts the networkUrl of every sandbox profile; a profile
// URL is this prefix followed by the page name. The page and enrich
// operations accept any absolute URL and take its last path segment as the
// page name.
const ProfileURLPrefix = "https://network.example/profile/"

// imageURLPrefix starts every avatar URL.
const imageURLPrefix = "https://img.network.example/avatars/"

// Member is one synthetic member of the sandbox network. All fields are
// fixed by Options.Seed and the member's position in the population.
type Member struct {
	NetworkID       string // <digits>.<hex>, unique
	PageName        string // First_Last in ASCII, unique (a number is appended on a clash)
	FirstName       string
	LastName        string
	Title           string
	PreviousTitle   string // "" when the member has no previous position
	Company         string
	PreviousCompany string
	CompanyDomain   string
	City            string
	Country         string // a countryFilter value
	Industry        string // an industryFilter value
	Discipline      string // a disciplineFilter value
	Level           string // a levelFilter value
	EmploymentType  string // a currentStatusCodeFilter value
	Languages       []string
	Skills          []string
	Education       string
	Description     string // "" when the member wrote none
	Private         bool
	Premium         bool
	Email           string // what enrich finds; "" when EmailStatus is empty
	EmailStatus     string // person.StatusValid, person.StatusCatchAll or person.StatusEmpty
	Positions       []Position
	Contacts        int
	SharedContacts  int
	Distance        int

	fullName string
	imageID  string
	// Folded forms, for matching.
	fName, fTitle, fPrevTitle, fCompany, fPrevCompany, fCity, fEducation string
	// fSkills are the folded skills and fKeywords name, title, company and
	// skills, each joined by NUL, which no search term contains.
	fSkills, fKeywords string
}

// Position is one position of a member's work timeline.
type Position struct {
	Title   string
	Company string
	Start   time.Time // first day of the month it began, UTC
	End     time.Time // first day of the month it ended; zero while current
}

// FullName is "First Last", or family name first without a space for
// names in Han script ("李磊").
func (m *Member) FullName() string { return m.fullName }

// Location is "<city>, <country>" as in spec 2.2.
func (m *Member) Location() string { return m.City + ", " + m.Country }

// ProfileURL is the member's networkUrl.
func (m *Member) ProfileURL() string { return ProfileURLPrefix + m.PageName }

// Lead is the member as a search result (spec 2.2).
func (m *Member) Lead() person.Lead {
	return person.Lead{
		FirstName: m.FirstName, LastName: m.LastName, FullName: m.FullName(),
		Title: m.Title, Location: m.Location(), PreviousTitle: m.PreviousTitle,
		Company: m.Company, NetworkID: m.NetworkID, PageName: m.PageName,
	}
}

func (m *Member) imageURL(size int) string {
	return fmt.Sprintf("%s%s_%dx%d.jpg", imageURLPrefix, m.imageID, size, size)
}

// company is one employer of the population.
type company struct{ name, domain string }

// newPopulationRand is the source every population of seed is drawn from.
func newPopulationRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x1ead5c))
}

// companies are the employers of a population: per country and industry,
// three companies.
type companies map[string]map[string][]company

// companyTable draws the employers: the first draws of a population's
// source, so that drift (drift.go) can draw the same table again.
func companyTable(r *rand.Rand) companies {
	table := companies{}
	for _, c := range countries {
		ci := countryInfos[c]
		table[c] = map[string][]company{}
		for _, ind := range industries {
			perm := r.Perm(len(ci.prefixes))
			for k := range 3 {
				prefix := ci.prefixes[perm[k]]
				noun := industryNouns[ind]
				legal := ci.legal[r.IntN(len(ci.legal))]
				table[c][ind] = append(table[c][ind], company{
					name:   prefix + " " + noun + " " + legal,
					domain: strings.ToLower(asciiFold(strings.ReplaceAll(prefix+"-"+noun, " ", "-"))) + "." + ci.tld,
				})
			}
		}
	}
	return table
}

// generate builds the population of n members from seed. Only slices are
// iterated while drawing (never maps), so that the same seed always gives
// the same members.
func generate(seed int64, n int) []*Member {
	r := newPopulationRand(seed)
	g := &drawer{
		r:           r,
		companies:   companyTable(r),
		countryW:    weightsOf(countries, func(k string) int { return countryInfos[k].weight }),
		industryW:   weightsOf(industries, func(k string) int { return max(2, industryWeight[k]) }),
		disciplineW: weightsOf(disciplines, func(k string) int { return disciplineInfos[k].weight }),
		levelW:      weightsOf(levels, func(k string) int { return levelWeight[k] }),
		statusW:     weightsOf(employmentTypes, func(k string) int { return statusWeight[k] }),
		folded:      map[string]string{},
		used:        make(map[string]bool, n),
		next:        map[string]int{},
	}
	members := make([]*Member, 0, n)
	for i := range n {
		members = append(members, g.member(i))
	}
	nameWellKnown(members)
	return members
}

// drawer draws the members of one population in order. Each member takes
// its draws from r in the order of the steps of member, and the steps must
// keep that order: the same seed gives the same members.
type drawer struct {
	r         *rand.Rand
	companies companies

	countryW, industryW, disciplineW, levelW, statusW weighted

	// Most texts repeat (titles, companies, cities), so folds are memoised.
	folded map[string]string
	used   map[string]bool // page names (pageKey) taken
	next   map[string]int  // page name base (pageKey) -> the next number to try
}

// fold is fold, memoised.
func (g *drawer) fold(s string) string {
	f, ok := g.folded[s]
	if !ok {
		f = fold(s)
		g.folded[s] = f
	}
	return f
}

// member draws the i-th member.
func (g *drawer) member(i int) *Member {
	r := g.r
	m := &Member{}
	m.Country = pick(r, g.countryW)
	ci := countryInfos[m.Country]
	m.City = pick(r, ci.cities)
	orig := pick(r, ci.origins)
	o := origins[orig]
	first, firstASCII := splitName(o.first[r.IntN(len(o.first))])
	last, lastASCII := splitName(o.last[r.IntN(len(o.last))])
	m.FirstName, m.LastName = first, last

	m.Industry = pick(r, g.industryW)
	m.Discipline = pick(r, g.disciplineW)
	m.Level = pick(r, g.levelW)
	m.EmploymentType = pick(r, g.statusW)
	if m.Level == "Student/Intern" {
		m.EmploymentType = "Intern"
		if r.IntN(3) == 0 {
			m.EmploymentType = "Part time employee"
		}
	}
	d := disciplineInfos[m.Discipline]
	g.career(m, d)
	g.profile(m, d, ci, o.language)

	// Formula-like values for a few members, so that exports are tested
	// against injection.
	if i%250 == 3 {
		switch inject(m, injections[(i/250)%len(injections)]) {
		case "first":
			firstASCII = ""
		case "last":
			lastASCII = ""
		}
	}
	m.fullName = m.FirstName + " " + m.LastName
	if orig == "zh" && firstASCII != "" && lastASCII != "" {
		m.fullName = m.LastName + m.FirstName
	}
	if firstASCII == "" {
		firstASCII = asciiFold(m.FirstName)
	}
	if lastASCII == "" {
		lastASCII = asciiFold(m.LastName)
	}
	g.pageName(m, firstASCII, lastASCII)
	m.NetworkID = fmt.Sprintf("%d.%08x", 10000000+i*7+r.IntN(7), r.Uint32())
	g.email(m, firstASCII, lastASCII)
	m.refold(g.fold)
	return m
}

// career draws the member's employer and work timeline, newest first.
// Dates are absolute so that profiles stay the same whatever the clock
// says; only durations follow Now.
func (g *drawer) career(m *Member, d disciplineInfo) {
	r := g.r
	pool := g.companies[m.Country][m.Industry]
	cur := pool[r.IntN(len(pool))]
	m.Company, m.CompanyDomain = cur.name, cur.domain

	nPrev := r.IntN(4)
	switch m.Level {
	case "Student/Intern":
		nPrev = 0
	case "Entry":
		nPrev = min(nPrev, 1)
	}
	start := monthsAfter(2008, r.IntN(214))
	m.Positions = append(m.Positions, Position{Title: titleFor(r, d, m.Level), Company: m.Company, Start: start})
	lvl := slices.Index(levelOrder, m.Level)
	for range nPrev {
		lvl = max(0, lvl-r.IntN(2))
		end := start
		start = end.AddDate(0, -(6 + r.IntN(60)), 0)
		ind := industries[r.IntN(len(industries))]
		prev := g.companies[m.Country][ind][r.IntN(3)]
		m.Positions = append(m.Positions, Position{Title: titleFor(r, d, levelOrder[lvl]), Company: prev.name, Start: start, End: end})
	}
	m.Title = m.Positions[0].Title
	if len(m.Positions) > 1 {
		m.PreviousTitle, m.PreviousCompany = m.Positions[1].Title, m.Positions[1].Company
	}
}

// profile draws the rest of the member's profile: languages, skills,
// education, description and the network's counters.
func (g *drawer) profile(m *Member, d disciplineInfo, ci countryInfo, originLanguage string) {
	r := g.r
	m.Languages = memberLanguages(r, ci.language, originLanguage)
	perm := r.Perm(len(d.skills))
	for _, k := range perm[:min(len(perm), 3+r.IntN(3))] {
		m.Skills = append(m.Skills, d.skills[k])
	}
	uni, _ := splitName(ci.universities[r.IntN(len(ci.universities))])
	m.Education = uni
	if r.IntN(10) < 6 {
		m.Description = fmt.Sprintf("%s at %s, %s.\nI work on %s and \"%s\"; ask me about %s.",
			m.Title, m.Company, m.City, m.Skills[0], m.Skills[len(m.Skills)-1], strings.ToLower(d.area))
	}
	m.Private = r.IntN(100) < 3
	m.Premium = r.IntN(100) < 20
	m.Contacts = r.IntN(1500)
	m.SharedContacts = r.IntN(30)
	m.Distance = 1 + r.IntN(3)
	m.imageID = fmt.Sprintf("%016x", r.Uint64())
}

// inject puts a formula-like value into the field inj names and returns
// that field.
func inject(m *Member, inj injection) string {
	switch inj.field {
	case "first":
		m.FirstName = inj.value
	case "last":
		m.LastName = inj.value
	case "company":
		m.Company = inj.value
		m.Positions[0].Company = inj.value
	case "title":
		m.Title = inj.value
		m.Positions[0].Title = inj.value
	}
	return inj.field
}

// pageName gives the member a page name unique in any case (the network
// ignores it): First_Last in ASCII, with the first free number from 2 on a
// clash.
func (g *drawer) pageName(m *Member, firstASCII, lastASCII string) {
	base := asciiFold(firstASCII) + "_" + asciiFold(lastASCII)
	if base == "_" {
		base = "Member"
	}
	m.PageName = base
	if key := pageKey(base); g.used[key] {
		// As if counting up each time; every number below next[key] is
		// taken already.
		k := max(2, g.next[key])
		for g.used[pageKey(base+strconv.Itoa(k))] {
			k++
		}
		m.PageName, g.next[key] = base+strconv.Itoa(k), k+1
	}
	g.used[pageKey(m.PageName)] = true
}

// email draws what an enrichment finds for the member.
func (g *drawer) email(m *Member, firstASCII, lastASCII string) {
	r := g.r
	switch p := r.IntN(100); {
	case m.Private:
		m.EmailStatus = person.StatusEmpty
	case p < 60:
		m.EmailStatus = person.StatusValid
	case p < 85:
		m.EmailStatus = person.StatusCatchAll
	default:
		m.EmailStatus = person.StatusEmpty
	}
	if m.EmailStatus == person.StatusEmpty {
		return
	}
	f, l := strings.ToLower(asciiFold(firstASCII)), strings.ToLower(asciiFold(lastASCII))
	if f != "" && r.IntN(4) == 0 {
		f = f[:1]
	}
	local := strings.Trim(f+"."+l, ".")
	if local == "" {
		local = "info"
	}
	m.Email = local + "@" + m.CompanyDomain
}

// WellKnown are members every population has, whatever the seed, so that
// documentation and examples can name a profile that exists (page_name =
// "Max_Mustermann"). They take the places of the first members.
var WellKnown = []struct{ First, Last string }{
	{"Max", "Mustermann"},
	{"Erika", "Musterfrau"},
	{"Jane", "Doe"},
}

// nameWellKnown renames the first members to the WellKnown names, keeping
// everything else they have, and makes sure no other member has their page
// names.
func nameWellKnown(members []*Member) {
	used := make(map[string]bool, len(members))
	for _, m := range members {
		used[pageKey(m.PageName)] = true
	}
	for i, w := range WellKnown {
		if i >= len(members) {
			return
		}
		page := w.First + "_" + w.Last
		for _, o := range members[len(WellKnown):] {
			if pageKey(o.PageName) == pageKey(page) {
				for k := 2; ; k++ {
					if name := page + strconv.Itoa(k); !used[pageKey(name)] {
						o.PageName, used[pageKey(name)] = name, true
						break
					}
				}
			}
		}
		used[pageKey(page)] = true
		m := members[i]
		m.FirstName, m.LastName, m.PageName = w.First, w.Last, page
		m.fullName = w.First + " " + w.Last
		if m.Email != "" {
			m.Email = strings.ToLower(w.First+"."+w.Last) + "@" + m.CompanyDomain
		}
		m.fName = fold(m.fullName)
		m.fKeywords = strings.Join([]string{m.fName, m.fTitle, m.fCompany, m.fSkills}, "\x00")
	}
}

// levelOrder ranks the career levels from the lowest.
var levelOrder = []string{"Student/Intern", "Entry", "Professional/Experienced", "Senior", "Manager", "Executive"}

// titleFor makes a job title of discipline d at a career level.
func titleFor(r *rand.Rand, d disciplineInfo, level string) string {
	role := d.roles[r.IntN(len(d.roles))]
	switch level {
	case "Student/Intern":
		if r.IntN(2) == 0 {
			return "Working Student " + d.area
		}
		return d.area + " Intern"
	case "Entry":
		return "Junior " + role
	case "Senior":
		return "Senior " + role
	case "Manager":
		if r.IntN(4) == 0 {
			return "Team Lead " + d.area
		}
		return d.area + " Manager"
	case "Executive":
		return d.execs[r.IntN(len(d.execs))]
	}
	return role
}

// memberLanguages returns the member's languages in the spec's order.
func memberLanguages(r *rand.Rand, countryLang, originLang string) []string {
	has := map[string]bool{countryLang: true}
	if originLang != "" {
		has[originLang] = true
	}
	if r.IntN(100) < 65 {
		has["English"] = true
	}
	if r.IntN(100) < 12 {
		has[languages[r.IntN(len(languages))]] = true
	}
	var out []string
	for _, l := range languages {
		if has[l] {
			out = append(out, l)
		}
	}
	return out
}

// splitName splits a "display|ascii" pool entry.
func splitName(s string) (display, ascii string) {
	d, a, ok := strings.Cut(s, "|")
	if !ok {
		return s, ""
	}
	return d, a
}

func monthsAfter(year, months int) time.Time {
	return time.Date(year, time.January+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
}

func weightsOf(keys []string, w func(string) int) weighted {
	out := make(weighted, 0, len(keys))
	for _, k := range keys {
		out = append(out, struct {
			key string
			w   int
		}{k, w(k)})
	}
	return out
}

func pick(r *rand.Rand, ws weighted) string {
	total := 0
	for _, e := range ws {
		total += e.w
	}
	n := r.IntN(total)
	for _, e := range ws {
		if n < e.w {
			return e.key
		}
		n -= e.w
	}
	return ws[len(ws)-1].key
}
