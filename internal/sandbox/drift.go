package sandbox

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/sandbox/knobs"
)

// The sandbox's population drifts with time, as a real network does: people
// change jobs, move, leave the network or hide their profile. Time is counted
// in epochs: epoch 0 is the population as generated, and at each later epoch
// every member still public and in the network moves with probability
// Options.Drift, drawn from Seed, the member's place in the population and
// the epoch alone. Changes accumulate: at epoch 3 a member shows every move
// of epochs 1 to 3. Drift 0 (the default) is the generated population,
// whatever the epoch.
//
// Of the moves, about 5 % leave the network (their page name becomes unknown
// and searches no longer find them), 5 % turn their profile private, and the
// rest change jobs: a promotion at the same company (a new title), or a new
// company (a new title half of the time, another industry a third of the
// time, another city a fifth of the time). A member who left or turned
// private moves no more.

// MaxEpoch is the largest epoch Options.Epoch accepts.
const MaxEpoch = knobs.MaxEpoch

// DriftKind is what one change of the ground truth did to a member.
type DriftKind int

// Kinds of changes.
const (
	// DriftJob is a new title and/or company, sometimes in another city.
	DriftJob DriftKind = iota + 1
	// DriftLeft is a member who left the network: profile reads and
	// enrichments answer as for a page name nobody has, searches no longer
	// find them.
	DriftLeft
	// DriftPrivate is a member who turned their profile private: a profile
	// read shows private: true and no positions, an enrichment finds no
	// e-mail. Searches still find them, with the job they had.
	DriftPrivate
)

func (k DriftKind) String() string {
	switch k {
	case DriftJob:
		return "job"
	case DriftLeft:
		return "left"
	case DriftPrivate:
		return "private"
	}
	return fmt.Sprintf("DriftKind(%d)", int(k))
}

// Job is what a member shows of their work at one epoch.
type Job struct {
	Title, Company, CompanyDomain string
	City, Country                 string
	// Email is what an enrichment finds then; "" when none.
	Email string
}

// Location is "<city>, <country>", as search results and enrichments show
// it.
func (j Job) Location() string { return j.City + ", " + j.Country }

func jobOf(m *Member) Job {
	return Job{Title: m.Title, Company: m.Company, CompanyDomain: m.CompanyDomain, City: m.City, Country: m.Country, Email: m.Email}
}

// Change is one change of the sandbox's ground truth: what happened to one
// member at one epoch. Before and After are the member's job just before
// and just after; for DriftLeft and DriftPrivate they are equal.
type Change struct {
	Epoch     int
	PageName  string
	NetworkID string
	Kind      DriftKind
	Before    Job
	After     Job
}

// Fields names what a DriftJob change changed, among "title", "company"
// and "location", in that order.
func (c Change) Fields() []string {
	var out []string
	if c.Before.Title != c.After.Title {
		out = append(out, "title")
	}
	if c.Before.Company != c.After.Company {
		out = append(out, "company")
	}
	if c.Before.Location() != c.After.Location() {
		out = append(out, "location")
	}
	return out
}

// EpochStart is the first day of the month in which the moves of epoch e
// happen: the start of a member's new position and the end of the old one.
// Epoch 1 is January 2026, one month per epoch.
func EpochStart(e int) time.Time {
	return monthsAfter(2026, max(0, e-1))
}

// Salts of the drift's draws, apart from the calls' salts in handler.go.
const (
	saltDrift = 2000 + iota
	saltDriftDetail1
	saltDriftDetail2
)

// driftKey names one drifted population.
type driftKey struct {
	seed, people int64
	drift        uint64 // math.Float64bits
	epoch        int
	privateMoves bool // Options.PrivatePositions: private members move too
}

var (
	driftedMu sync.Mutex
	drifted   = map[driftKey]*population{}
)

// populationAt returns the population of seed and size at epoch with the
// given drift: the generated one when nothing drifts, else a population
// whose moved members are new copies (the others are shared with the
// generated one). Like generated ones, drifted populations are built once
// per process and shared.
// With privateMoves (Options.PrivatePositions), members who are private go
// on moving.
func populationAt(seed int64, people int, drift float64, epoch int, privateMoves bool) *population {
	base := populationFor(seed, people)
	if drift == 0 || epoch == 0 {
		return base
	}
	key := driftKey{seed, int64(people), math.Float64bits(drift), epoch, privateMoves}
	driftedMu.Lock()
	defer driftedMu.Unlock()
	if p, ok := drifted[key]; ok {
		return p
	}
	p := base.drift(seed, drift, epoch, privateMoves)
	drifted[key] = p
	return p
}

// drift builds the population at epoch from the generated one.
func (p *population) drift(seed int64, drift float64, epoch int, privateMoves bool) *population {
	table := companyTable(newPopulationRand(seed))
	out := &population{members: make([]*Member, 0, len(p.members)), byPage: make(map[string]*Member, len(p.members))}
	for i, m := range p.members {
		cur := m
		left := false
		for e := 1; e <= epoch && (privateMoves || !cur.Private); e++ {
			n := uint64(i)*(MaxEpoch+1) + uint64(e)
			if unit(seed, n, saltDrift) >= drift {
				continue
			}
			r := rand.New(rand.NewPCG(mix(seed, n, saltDriftDetail1), mix(seed, n, saltDriftDetail2)))
			ch := Change{Epoch: e, PageName: m.PageName, NetworkID: m.NetworkID, Before: jobOf(cur)}
			switch k := r.IntN(100); {
			case k < 5:
				ch.Kind, ch.After = DriftLeft, ch.Before
				left = true
			case k < 10 && cur.Private:
				continue // private already: this epoch moves nothing
			case k < 10:
				next := cur.clone()
				next.Private, next.Email, next.EmailStatus = true, "", person.StatusEmpty
				ch.Kind, ch.After = DriftPrivate, ch.Before
				cur = next
			default:
				next, ok := cur.moved(r, table, EpochStart(e))
				if !ok {
					continue
				}
				ch.Kind, ch.After = DriftJob, jobOf(next)
				cur = next
			}
			out.changes = append(out.changes, ch)
			if left {
				break
			}
		}
		if left {
			continue
		}
		out.members = append(out.members, cur)
		out.byPage[pageKey(cur.PageName)] = cur
	}
	slices.SortStableFunc(out.changes, func(a, b Change) int { return a.Epoch - b.Epoch })
	return out
}

// clone copies m, with its own timeline.
func (m *Member) clone() *Member {
	c := *m
	c.Positions = slices.Clone(m.Positions)
	return &c
}

// moved is m after a job change that began at start: a promotion at the
// same company, or a new company (sometimes another industry, another
// title, another city). false when the draw found nothing different.
func (m *Member) moved(r *rand.Rand, table companies, start time.Time) (*Member, bool) {
	next := m.clone()
	d := disciplineInfos[m.Discipline]
	lvl := max(0, slices.Index(levelOrder, m.Level))
	if r.IntN(4) == 0 { // a promotion at the same company
		next.Level = levelOrder[min(len(levelOrder)-1, lvl+1)]
		title, ok := otherTitle(r, d, next.Level, m.Title)
		if !ok {
			return nil, false
		}
		next.Title = title
	} else {
		if r.IntN(5) == 0 { // another city, in the country or abroad
			if r.IntN(5) == 0 {
				next.Country = countries[r.IntN(len(countries))]
			}
			next.City = pick(r, countryInfos[next.Country].cities)
		}
		if r.IntN(3) == 0 {
			next.Industry = industries[r.IntN(len(industries))]
		}
		pool := slices.DeleteFunc(slices.Clone(table[next.Country][next.Industry]), func(c company) bool { return c.name == m.Company })
		c := pool[r.IntN(len(pool))]
		next.Company, next.CompanyDomain = c.name, c.domain
		if r.IntN(2) == 0 {
			if title, ok := otherTitle(r, d, next.Level, m.Title); ok {
				next.Title = title
			}
		}
	}
	if m.Email != "" {
		local, _, _ := strings.Cut(m.Email, "@")
		next.Email = local + "@" + next.CompanyDomain
	}
	// The timeline: the current position ends, the new one begins.
	next.Positions = append([]Position{{Title: next.Title, Company: next.Company, Start: start}}, next.Positions...)
	next.Positions[1].End = start
	next.PreviousTitle, next.PreviousCompany = m.Title, m.Company
	next.refold(fold)
	return next, true
}

// otherTitle draws a title of discipline d at level other than old.
func otherTitle(r *rand.Rand, d disciplineInfo, level, old string) (string, bool) {
	for range 8 {
		if t := titleFor(r, d, level); t != old {
			return t, true
		}
	}
	return "", false
}

// refold recomputes the folded forms matching reads, folding with fold
// (generate memoises it).
func (m *Member) refold(fold func(string) string) {
	m.fName, m.fTitle, m.fPrevTitle = fold(m.FullName()), fold(m.Title), fold(m.PreviousTitle)
	m.fCompany, m.fPrevCompany = fold(m.Company), fold(m.PreviousCompany)
	m.fCity, m.fEducation = fold(m.City), fold(m.Education)
	if alt := cityNames[m.City]; len(alt) > 0 {
		m.fCity = fold(m.City + "\x00" + strings.Join(alt, "\x00"))
	}
	m.fSkills = fold(strings.Join(m.Skills, "\x00"))
	m.fKeywords = strings.Join([]string{m.fName, m.fTitle, m.fCompany, m.fSkills}, "\x00")
}
