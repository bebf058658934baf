package state

import (
	"maps"
	"slices"
	"strings"
	"time"
)

// A track's record: each track read notes, on the person read, when that
// track read them (Person.Tracked). What a track holds is the people with
// its entry: who it watches and when it last read each; what it saw change
// is their history by its address, and whether their profile is gone or
// private their status. The record goes with the person: leadsync forget
// and retention erase it with them. leadsync state rm track.X forgets the
// track's read times (forgetTrack), so that the next plan finds its people
// due again.

// TrackAddresses lists, sorted, the addresses of the tracks the state holds
// a record of: those that read a person still in state.
func (s *State) TrackAddresses() []string {
	seen := map[string]bool{}
	s.otherNames(seen, true)
	for _, p := range s.People {
		for addr := range p.Tracked {
			seen[addr] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// hasTrack reports whether some person holds a read of the track at addr.
func (s *State) hasTrack(addr string) bool {
	if s.partial != nil && s.partial.others.Tracked[addr] > 0 {
		return true
	}
	for _, p := range s.People {
		if _, ok := p.Tracked[addr]; ok {
			return true
		}
	}
	return false
}

// TrackRecord is what the state holds of one track block.
type TrackRecord struct {
	Address string `json:"address"`
	// LastRead is the track's latest read of any of its people.
	LastRead time.Time `json:"last_read"`
	// People are the people the track read, the most recently read first
	// (by ID on a tie).
	People []TrackedPerson `json:"people"`
	// Changes counts the changes the track saw among them, by field
	// (title, company, status; every field of DriftFields is present).
	Changes map[string]int `json:"changes"`
	// Left and Private count its people whose last profile read (the
	// track's or another's) found them gone or private.
	Left    int `json:"left"`
	Private int `json:"private"`
}

// TrackedPerson is one person of a track's record.
type TrackedPerson struct {
	PersonID string `json:"person_id"`
	// ReadAt is when the track last read them.
	ReadAt time.Time `json:"read_at"`
	// Status is what the last profile read found: "public", "private" or
	// "left" (StatusName); StatusSince when it was first found so.
	Status      string     `json:"status"`
	StatusSince *time.Time `json:"status_since,omitempty"`
	// Changes are the drifts the track saw of them, oldest first.
	Changes []Drift `json:"changes"`
}

// TrackRecordOf returns the record of the track at addr; nil when no person in
// state holds a read of it.
func (s *State) TrackRecordOf(addr string) *TrackRecord {
	rec := &TrackRecord{Address: addr, People: []TrackedPerson{}, Changes: make(map[string]int, len(DriftFields))}
	for _, f := range DriftFields {
		rec.Changes[f] = 0
	}
	for _, p := range s.People {
		at, ok := p.Tracked[addr]
		if !ok {
			continue
		}
		tp := TrackedPerson{PersonID: p.ID, ReadAt: at, Status: StatusName(p.Status), StatusSince: p.StatusSince, Changes: []Drift{}}
		for _, d := range p.History {
			if d.By == addr {
				tp.Changes = append(tp.Changes, d)
				rec.Changes[d.Field]++
			}
		}
		switch p.Status {
		case StatusLeft:
			rec.Left++
		case StatusPrivate:
			rec.Private++
		}
		if at.After(rec.LastRead) {
			rec.LastRead = at
		}
		rec.People = append(rec.People, tp)
	}
	if len(rec.People) == 0 {
		return nil
	}
	slices.SortFunc(rec.People, func(a, b TrackedPerson) int {
		if c := b.ReadAt.Compare(a.ReadAt); c != 0 {
			return c
		}
		return strings.Compare(a.PersonID, b.PersonID)
	})
	return rec
}

// noteTrackRead records on p that the track at addr read them at at.
func noteTrackRead(p *Person, addr string, at time.Time) {
	if p.Tracked == nil {
		p.Tracked = map[string]time.Time{}
	}
	p.Tracked[addr] = at
}

// mergeTracked folds src's track reads into dst's, the later read of each
// track winning: the same person known under two IDs.
func mergeTracked(dst, src *Person) {
	for addr, at := range src.Tracked {
		if old, ok := dst.Tracked[addr]; !ok || at.After(old) {
			noteTrackRead(dst, addr, at)
		}
	}
}

// forgetTrack drops the record of the track at addr (leadsync state rm):
// its people forget when it read them, so that the next plan finds them
// due again. A read by another reader still counts (a profile block's,
// another track's): the person's check time goes back to the latest of
// those, or to none; when the track's read was the last, the time of the
// profile it brought is forgotten too (the profile itself is kept).
// People, their history and their status stay.
func (a *applier) forgetTrack(addr string) {
	s := a.s
	var profileReads map[string]time.Time // person ID -> latest profile block read
	for _, p := range s.People {
		at, ok := p.Tracked[addr]
		if !ok {
			continue
		}
		if profileReads == nil {
			profileReads = s.profileReadsByPerson()
		}
		delete(p.Tracked, addr)
		if len(p.Tracked) == 0 {
			p.Tracked = nil
		}
		var other *time.Time
		later := func(t time.Time) {
			if other == nil || t.After(*other) {
				other = &t
			}
		}
		for _, t := range p.Tracked {
			later(t)
		}
		if t, ok := profileReads[p.ID]; ok {
			later(t)
		}
		if p.CheckedAt != nil && !p.CheckedAt.After(at) {
			p.CheckedAt = other
		}
		if p.ProfileReadAt != nil && !p.ProfileReadAt.After(at) {
			p.ProfileReadAt = nil
		}
		s.touchPerson(p.ID)
	}
}

// profileReadsByPerson maps each person a profile block's record names to
// the latest of those reads.
func (s *State) profileReadsByPerson() map[string]time.Time {
	out := map[string]time.Time{}
	for _, pr := range s.Profiles {
		if t, ok := out[pr.PersonID]; !ok || pr.ReadAt.After(t) {
			out[pr.PersonID] = pr.ReadAt
		}
	}
	return out
}
