package plan

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"time"
)

// Candidates chooses the people of enrich blocks for one apply, pass after
// pass, as results arrive (by the rules of env.claimed, which the plan
// counts with), with what the passes share kept between them (the exclude blocks' matcher, with the
// normalised values and the company domains it has learned). The engine
// makes one per run, and tells it of each enrichment recorded (Learn).
type Candidates struct {
	cfg     *config.Config
	excl    *config.Exclusion
	learned bool
	// lookup asks the other workspaces of the backend; reuse and asked
	// are its answers so far (each person is asked about once).
	lookup ReuseLookup
	reuse  answers
	asked  map[string]bool
	emp    *employers
	// excluded are the people the exclude blocks took out of a pass, over
	// the run.
	excluded map[string]bool
	// colleagues are the store's company domains when the run holds a
	// partial state (WithColleagues).
	colleagues *Colleagues
	// held are the people held elsewhere the plan knew by ID alone
	// (WithFacts: reuseFacts.partial), heldAsked those of them Reuses
	// asked the store for (readHeldMet); nil over a state read whole.
	// heldPage is the size of the last page of them read (nextHeldPage).
	held, heldAsked map[string]bool
	heldPage        int
	// runs are the sources the plan ran and walks its places walks
	// (WithFacts: EnrichFacts.runs, walks), placesAsked the people of the
	// blocks' lead lists Claimed asked the store for (readPlacesMet),
	// placesPage the size of its last page; nil over a state read whole.
	runs, placesAsked map[string]bool
	walks             map[string]*placesWalk
	placesPage        int
}

// NewCandidates returns the chooser of cfg's enrich blocks for one apply;
// lookup (nil when the backend's workspaces share nothing) finds the
// enrichments other workspaces hold.
func NewCandidates(cfg *config.Config, lookup ReuseLookup) *Candidates {
	return &Candidates{cfg: cfg, excl: cfg.Exclusion(), lookup: lookup,
		reuse: answers{}, asked: map[string]bool{}, emp: &employers{}}
}

// WithColleagues makes c learn the company domains from the store's
// answer (Reads.ReadColleagues, read before the run) and from the people
// a partial state holds as they are then, instead of from the state's
// people alone (Options.Colleagues): c is returned.
func (c *Candidates) WithColleagues(col *Colleagues) *Candidates {
	c.colleagues = col
	return c
}

// env is the planning environment of one pass, with what earlier passes
// learned.
func (c *Candidates) env(st *state.State, now time.Time) *env {
	v := newEnv(c.cfg, st, now)
	v.excl, v.learned = c.excl, &c.learned
	v.lookup, v.reuse, v.asked, v.emp = c.lookup, c.reuse, c.asked, c.emp
	v.colleagues = c.colleagues
	// A partial state (an apply of a plan EnrichReadsOf answers) counts
	// the blocks' places from the store's counts.
	v.facts = partialFacts(c.cfg, st)
	return v
}

// Claimed returns the people enrich block e should claim next, given the
// run's claims so far (env.claimed says by which rules), with what earlier
// passes learned (people whose enrichment Reuses copies are not among
// them). Over a partial state, with a where, the people of the lead lists
// of the sources the plan ran are read first (readRunsWhere).
func (c *Candidates) Claimed(st *state.State, e *config.Enrich, now time.Time, claims Claims) ([]string, error) {
	c.placesPage = 0
	if err := c.readRunsWhere(st, e, now); err != nil {
		return nil, err
	}
	for {
		v := c.env(st, now)
		v.onExcluded = func(p *state.Person) {
			if c.excluded == nil {
				c.excluded = map[string]bool{}
			}
			c.excluded[p.ID] = true
		}
		out, held, err := v.claimedMembers(e, claims)
		if err != nil {
			return nil, err
		}
		if more, err := c.readPlacesMet(v, e, out, held); err != nil || !more {
			return v.memberIDs(out), err
		}
	}
}

// ExcludedNow reports whether an exclude block names p with what the run
// knows now: a company domain learned since p was chosen (a colleague's
// enrichment, Learn) may name them. The engine asks before each paid
// call; a person excluded so is counted among Excluded.
func (c *Candidates) ExcludedNow(st *state.State, p *state.Person, now time.Time) bool {
	if !c.Excludes(st, p, now) {
		return false
	}
	if c.excluded == nil {
		c.excluded = map[string]bool{}
	}
	c.excluded[p.ID] = true
	return true
}

// Excludes reports whether an exclude block names p with what the run
// knows now, without counting p among Excluded (an imported person whose
// e-mail is no saving).
func (c *Candidates) Excludes(st *state.State, p *state.Person, now time.Time) bool {
	if c.excl == nil || p == nil {
		return false
	}
	return c.env(st, now).excludedBy(p) != nil
}

// Excluded counts the people the exclude blocks took out of the enrich
// blocks' candidates in this run.
func (c *Candidates) Excluded() int { return len(c.excluded) }

// Learn tells the chooser of a person whose enrichment was just recorded:
// their company's domain may exclude a colleague (by = "domain").
func (c *Candidates) Learn(p *state.Person) {
	if p != nil && c.learned && p.Enrichment != nil {
		learnPerson(c.excl, p)
	}
	if p != nil && p.Enrichment != nil {
		c.emp.learn(p.Enrichment.Result.Company, p.Enrichment.Result.CompanyDomain)
	}
}

// learnPerson records the company domain a person's enrichment gives.
func learnPerson(x *config.Exclusion, p *state.Person) {
	if p.Enrichment == nil || p.Enrichment.Result.CompanyDomain == "" {
		return
	}
	company := p.Lead.Company
	if company == "" {
		company = p.Enrichment.Result.Company
	}
	x.Learn(company, p.Enrichment.Result.CompanyDomain)
}

// personValues are what exclude blocks match p by.
func personValues(p *state.Person) config.PersonValues {
	var enr *person.EnrichedProfile
	if p.Enrichment != nil {
		enr = &p.Enrichment.Result
	}
	return config.ValuesOf(p.Lead, p.ID, enr)
}

// excludedBy returns the exclude block that removes p, nil when none does.
// The company domains the state's enrichments give are learned on first
// need (a block by domain matches a person without one of their own by a
// colleague's): from the store's answer when the plan was given it
// (Options.Colleagues), with those of the people a partial state holds
// as they are now (a run's folds changed them since the store answered:
// an import's e-mails), else from the state's people.
func (v *env) excludedBy(p *state.Person) *config.Exclude {
	if v.excl == nil {
		return nil
	}
	if v.learned == nil {
		v.learned = new(bool)
	}
	if !*v.learned {
		*v.learned = true
		switch {
		case !v.excl.NeedsColleagues():
		case v.colleagues != nil:
			for _, c := range v.colleagues.Known {
				v.excl.Learn(c.Company, c.Domain)
			}
			if v.st.Partial() {
				for _, p := range v.st.People {
					learnPerson(v.excl, p)
				}
			}
		default:
			// One pass over the people with the index of owned
			// enrichments, which the limits need anyway.
			v.learnWhileIndexing = true
			v.ownedList("")
			v.learnWhileIndexing = false
		}
	}
	return v.excl.Match(personValues(p))
}

// Colleagues are the companies and company domains the enrichments of a
// state give, each pair once (state.Base.CompanyDomains, asked of the
// store): what an exclude block by domain matches a colleague by
// (config.Exclusion.Learn), without reading every person.
type Colleagues struct {
	Known []state.CompanyDomain
}
