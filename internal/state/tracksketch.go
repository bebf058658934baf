package state

// TrackSketcher is a store that reads the people holding an enrichment
// made by one address (Enrichment.By: an enrich block, an import, or a
// copy's "reused:" address) as TrackSketch keeps them: the plan of a
// track of the enriched asks it instead of reading them whole
// (plan.Reads.Read). The SQL stores give it, from the index
// enrichments_by and the people's primary key.
type TrackSketcher interface {
	// TrackSketched are the people holding an enrichment whose By is
	// by, each as TrackSketch gives them, in no order.
	TrackSketched(by string) ([]*Person, error)
}

// TrackSketch is what a plan of a track reads of a person of an enrich
// block it watches (plan.trackPeople, plan.track): the ID, the page
// name, the status, when a read last looked at them (Checked), and the
// enrichment's By. Nothing else of them is read: a plan that asks more
// (an exclude block, an import, retention, moves) reads them whole.
func TrackSketch(p *Person) *Person {
	s := &Person{ID: p.ID, Status: p.Status, CheckedAt: p.CheckedAt, ProfileReadAt: p.ProfileReadAt}
	s.Lead.PageName = p.Lead.PageName
	if p.Enrichment != nil {
		s.Enrichment = &Enrichment{By: p.Enrichment.By}
	}
	return s
}

// TrackSketches reports whether b reads people as TrackSketch keeps
// them: a state in memory does, a store when it gives them.
func (b *Base) TrackSketches() bool {
	if b.store == nil {
		return true
	}
	_, ok := b.store.(TrackSketcher)
	return ok
}

// TrackSketched: see TrackSketcher; a state in memory sketches its own
// people.
func (b *Base) TrackSketched(by string) ([]*Person, error) {
	if s, ok := b.store.(TrackSketcher); ok {
		return s.TrackSketched(by)
	}
	var out []*Person
	for _, p := range b.mem {
		if p.Enrichment != nil && p.Enrichment.By == by {
			out = append(out, TrackSketch(p))
		}
	}
	return out, nil
}
