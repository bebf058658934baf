package state

import (
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/person"
)

// LeadPager is a store that reads some columns of people alone, a page
// at a time: the console's where on lead.<field> or on person.<field>
// (run.ConsoleSession), and a sheet's where or only_new without exclude
// blocks (export), read the columns of the fields they name, not every
// person whole. The SQL stores give it.
type LeadPager interface {
	// LeadsAfter reads up to n people whose IDs sort after id (byte
	// order), in that order, each holding its ID and what cols names
	// alone (PersonColumns.Of); fewer than n at the end.
	LeadsAfter(id string, n int, cols PersonColumns) ([]*Person, error)
	// LeadsOf reads the people of ids that exist, in no order, each as
	// LeadsAfter gives them.
	LeadsOf(ids []string, cols PersonColumns) ([]*Person, error)
}

// PersonColumns names what a narrowed read of people holds of each
// person besides the ID (LeadPager).
type PersonColumns struct {
	// Lead are keys of the lead fields a where reads (SketchFields).
	Lead []string
	// Enriched are keys of an enrichment's texts (person.EnrichedFields).
	// With any, an enriched person holds an Enrichment of its time, its
	// company and those fields, and every person their status, its time
	// and the company changes of their history: what says whether the
	// e-mail is current (Person.EmailNotCurrent).
	Enriched []string
	// Seen: the times the person was first and last seen.
	Seen bool
}

// AddLead names the lead field of key k too, unless cols names it.
func (cols *PersonColumns) AddLead(k string) {
	if !slices.Contains(cols.Lead, k) {
		cols.Lead = append(cols.Lead, k)
	}
}

// AddEnriched names the enrichment's text of key k too, unless cols
// names it.
func (cols *PersonColumns) AddEnriched(k string) {
	if !slices.Contains(cols.Enriched, k) {
		cols.Enriched = append(cols.Enriched, k)
	}
}

// AddEnrichment names an enriched person's Enrichment (its time, its
// company): its company's text, which Fields reads first with any
// enrichment text.
func (cols *PersonColumns) AddEnrichment() {
	cols.AddEnriched(enrichedCompany)
}

// enrichedCompany is the key of the company among an enrichment's texts
// (person.EnrichedFields), the one Fields always reads.
const enrichedCompany = "company"

// Fields are the rows of cols' lead fields and of its enrichment's
// fields, the company first among these when there are any; an error for
// a key that names no such field.
func (cols PersonColumns) Fields() (lead, enriched []*person.PersonField, err error) {
	if lead, err = SketchFields(cols.Lead); err != nil || len(cols.Enriched) == 0 {
		return lead, nil, err
	}
	keys := append([]string{enrichedCompany}, cols.Enriched...)
	for i, k := range keys {
		j := slices.IndexFunc(person.EnrichedFields, func(f *person.PersonField) bool { return f.Key == k && f.Enriched != nil })
		switch {
		case j < 0:
			return nil, nil, fmt.Errorf("no text %q of an enrichment", k)
		case !slices.Contains(keys[:i], k):
			enriched = append(enriched, person.EnrichedFields[j])
		}
	}
	return lead, enriched, nil
}

// Of is what a narrowed read of cols gives of p (LeadsAfter): a person
// of p's ID and those of its fields and parts alone. The conformance
// cases compare the stores' reads with it.
func (cols PersonColumns) Of(p *Person) (*Person, error) {
	lead, enriched, err := cols.Fields()
	if err != nil {
		return nil, err
	}
	q := &Person{ID: p.ID}
	CopyLeadFields(&q.Lead, &p.Lead, lead)
	if cols.Seen {
		q.FirstSeen, q.LastSeen = p.FirstSeen, p.LastSeen
	}
	if len(enriched) == 0 {
		return q, nil
	}
	q.Status, q.StatusSince = p.Status, p.StatusSince
	for _, d := range p.History {
		if d.Field == DriftCompany {
			q.History = append(q.History, Drift{Field: d.Field, After: d.After, At: d.At})
		}
	}
	if p.Enrichment != nil {
		q.Enrichment = &Enrichment{EnrichedAt: p.Enrichment.EnrichedAt}
		for _, f := range enriched {
			*f.Enriched(&q.Enrichment.Result) = *f.Enriched(&p.Enrichment.Result)
		}
	}
	return q, nil
}

// EachLead calls fn with every person in ID order (byte order), a page of
// the store in memory at a time, as EachPerson does. From a store that is
// a LeadPager each holds what cols names alone (PersonColumns.Of); else
// it is read whole. It stops at fn's first error and returns it.
func (b *Base) EachLead(cols PersonColumns, fn func(*Person) error) error {
	if _, _, err := cols.Fields(); err != nil {
		return err
	}
	l, ok := b.store.(LeadPager)
	if !ok {
		return b.EachPerson(fn)
	}
	return eachPage(b.pageSize(), func(after string, n int) ([]*Person, error) {
		return l.LeadsAfter(after, n, cols)
	}, fn)
}

// PeopleOf are the people of ids that exist, by ID, read a page at a
// time, as People gives them. From a store that is a LeadPager each
// holds what cols names alone (PersonColumns.Of); else it is read whole.
func (b *Base) PeopleOf(ids []string, cols PersonColumns) (map[string]*Person, error) {
	if _, _, err := cols.Fields(); err != nil {
		return nil, err
	}
	l, ok := b.store.(LeadPager)
	if !ok {
		return b.People(ids)
	}
	out := make(map[string]*Person, len(ids))
	for page := range slices.Chunk(ids, b.pageSize()) {
		ps, err := l.LeadsOf(page, cols)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			out[p.ID] = p
		}
	}
	return out, nil
}

// eachPage calls fn with each person of the pages of n that after gives,
// from the first, each page after the last ID of the one before, until a
// page holds fewer than n; it stops at the first error.
func eachPage(n int, after func(id string, n int) ([]*Person, error), fn func(*Person) error) error {
	last := ""
	for {
		ps, err := after(last, n)
		if err != nil {
			return err
		}
		for _, p := range ps {
			if err := fn(p); err != nil {
				return err
			}
		}
		if len(ps) < n {
			return nil
		}
		last = ps[len(ps)-1].ID
	}
}
