package state

import (
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/person"
)

// LeadSketcher is a store that gives people read in sketch (Sketch) the
// lead fields a where names, by ID, without reading them whole: the plan
// of enrich blocks with a where evaluates it on the people of stale
// enrichments, 75,000 at 3,000,000 people, which read whole held 70 MB
// (plan.enrichReadsMany). The SQL stores give it, from the people's
// columns of those fields alone.
type LeadSketcher interface {
	// SketchLeads sets, on each person of ps found by ID, the lead fields
	// of keys (person.LeadFields' keys) to what the store holds; the
	// people of ps it does not hold are left as they are.
	SketchLeads(ps []*Person, keys []string) error
}

// SketchLeads gives the people of ps the lead fields of keys, as
// LeadSketcher says, a page of PeoplePage at a time: from the store when
// it is a LeadSketcher, else from the people it reads whole, of whom it
// keeps those fields alone. keys must name lead fields a where reads
// (person.PersonField.Where).
func (b *Base) SketchLeads(ps []*Person, keys []string) error {
	fields, err := SketchFields(keys)
	if err != nil {
		return err
	}
	page := b.pageSize()
	for start := 0; start < len(ps); start += page {
		part := ps[start:min(start+page, len(ps))]
		if s, ok := b.store.(LeadSketcher); ok {
			err = s.SketchLeads(part, keys)
		} else {
			err = b.sketchLeadsRead(part, fields)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// sketchLeadsRead is SketchLeads of a page of people from the people of
// b read whole (People).
func (b *Base) sketchLeadsRead(ps []*Person, fields []*person.PersonField) error {
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	whole, err := b.People(ids)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if w := whole[p.ID]; w != nil {
			CopyLeadFields(&p.Lead, &w.Lead, fields)
		}
	}
	return nil
}

// CopyLeadFields sets the fields of dst to those of src.
func CopyLeadFields(dst, src *person.Lead, fields []*person.PersonField) {
	for _, f := range fields {
		*f.Lead(dst) = *f.Lead(src)
	}
}

// SketchFields are the lead fields of keys, each one a where reads
// (SketchLeads).
func SketchFields(keys []string) ([]*person.PersonField, error) {
	fields := make([]*person.PersonField, 0, len(keys))
	for _, k := range keys {
		i := slices.IndexFunc(person.LeadFields, func(f *person.PersonField) bool { return f.Key == k && f.Where })
		if i < 0 {
			return nil, fmt.Errorf("no lead field %q for a where", k)
		}
		fields = append(fields, person.LeadFields[i])
	}
	return fields, nil
}
