package plan

import (
	"slices"

	"github.com/leadsync/leadsync/internal/state"
)

// Reuse across workspaces over a state read in part (EnrichReadsOf with
// Options.Reuse): the other workspaces list the lookup keys of every
// person they hold an enrichment of (Options.ReuseHeld), and the store
// finds the people of this workspace those keys name (state.Base.Keyed).
// They are read whole. A person not read then has no enrichment elsewhere
// to copy: the places walk and the census count them as without reuse.
// The copies take the places left first, in from order (placeCopies):
// all of them are among the people read, so the plan knows them all,
// and the walk reads as many people for the places as it would without
// them, some of whom the copies leave without one. The other workspaces
// are asked about the people read whom the keys name, and no others
// (lookupReuse). An enrichment is copied only if made at the company the
// person works at now (sameEmployer), which this workspace's
// enrichments tell: their companies and domains are read from the store
// (state.ValueLister) when a person read may be copied.

// maxReuseRead is the most people EnrichReadsOf reads whole because
// another workspace holds an enrichment of them (a variable for tests):
// past it the plan reads every person.
var maxReuseRead = 100_000

// maxReuseKeys is the most lookup keys of the other workspaces the store
// is asked to find people by: two a person, of people who are mostly not
// in this workspace.
func maxReuseKeys() int { return 4 * maxReuseRead }

// reuseFacts are what EnrichReadsOf learned of the other workspaces:
// held are the IDs of the people read whom their keys name; domains the
// company domains of this workspace's enrichments by company key (as
// employers.domains gathers them), nil when held is empty.
type reuseFacts struct {
	held    map[string]bool
	domains map[string][]string
}

// keyFinder is a store that finds people by their lookup keys
// (state.Base).
type keyFinder interface {
	Keyed(keys []string) ([]string, bool, error)
}

// valueLister lists the pairs of company and domain the enrichments name
// (state.Base, state.CompanyLister).
type valueLister interface {
	EnrichmentCompanies(fn func(company, domain []byte)) error
	ValuesListed() bool
}

// reuseReads returns the people of this workspace the other workspaces
// may give an enrichment of, to be read whole, and what the plan needs
// to tell whom it copies (reuseFacts); nil facts without other
// workspaces (opts.Reuse nil). ok is false when the plan is to read every
// person: the keys cannot be listed or found (an error reading the
// other workspaces included: the plan of every person reports it), or
// they find more than maxReuseRead people.
func reuseReads(opts Options, ix EnrichStore) (ids []string, facts *reuseFacts, ok bool, err error) {
	if opts.Reuse == nil {
		return nil, nil, true, nil
	}
	kf, finds := ix.(keyFinder)
	vl, lists := ix.(valueLister)
	if opts.ReuseHeld == nil || !finds || !lists || !vl.ValuesListed() {
		return nil, nil, false, nil
	}
	keys, err := opts.ReuseHeld()
	if err != nil || len(keys) > maxReuseKeys() {
		return nil, nil, false, nil
	}
	facts = &reuseFacts{held: map[string]bool{}}
	if len(keys) == 0 {
		return nil, facts, true, nil
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	found, finds, err := kf.Keyed(keys)
	if err != nil || !finds {
		return nil, nil, false, err
	}
	slices.Sort(found)
	found = slices.Compact(found)
	if len(found) > maxReuseRead {
		return nil, nil, false, nil
	}
	for _, id := range found {
		facts.held[id] = true
	}
	if len(found) > 0 {
		if facts.domains, err = storeDomains(vl); err != nil {
			return nil, nil, false, err
		}
	}
	return found, facts, true, nil
}

// storeDomains gathers the company domains of the store's enrichments by
// company key, as employers.domains gathers them from the people. A SQL
// store gives each pair of company and domain once, grouped by its
// engine: not a row for each enrichment.
func storeDomains(vl valueLister) (map[string][]string, error) {
	m := &employers{byCompany: map[string][]string{}}
	seen := map[string]bool{}
	err := vl.EnrichmentCompanies(func(company, domain []byte) {
		pair := string(company) + "\x00" + string(domain)
		if seen[pair] {
			return
		}
		seen[pair] = true
		m.learn(string(company), string(domain))
	})
	return m.byCompany, err
}

// employers is what the plan knows of this workspace's company domains:
// the store's (a copy: a run learns more), nil when f read none.
func (f *reuseFacts) employers() *employers {
	if f == nil || f.domains == nil {
		return nil
	}
	m := make(map[string][]string, len(f.domains))
	for k, ds := range f.domains {
		m[k] = slices.Clip(ds)
	}
	return &employers{byCompany: m}
}

// reuseAsk reports whether lookupReuse asks the other workspaces about p:
// over a state read in part, only about the people their keys name.
func (v *env) reuseAsk(p *state.Person) bool {
	if v.facts == nil || v.facts.reuse == nil {
		return true
	}
	return v.facts.reuse.held[p.ID]
}

// reuseEmployers gives the plan over a state read in part the company
// domains the store holds, before any is asked (sameEmployer).
func (v *env) reuseEmployers() {
	if v.facts != nil && v.emp == nil {
		v.emp = v.facts.reuse.employers()
	}
}

// WithFacts makes c, over a partial state, know the company domains of
// the state's enrichments the plan read from the store (f, the plan's
// EnrichFacts), which the people it holds do not all tell: a copy from
// another workspace must be made at one of them. c is returned.
func (c *Candidates) WithFacts(f *EnrichFacts) *Candidates {
	if f != nil {
		if m := f.reuse.employers(); m != nil {
			c.emp = m
		}
	}
	return c
}
