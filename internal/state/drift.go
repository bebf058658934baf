package state

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// A person's history: whenever a call brings another title, company or
// location than state holds for a person (a search result, a profile or
// track read, an enrichment), or another e-mail (an enrichment made again,
// or replaced by a newer one an import or another workspace gave: Call
// "import" or "reuse"),
// or finds their profile private or gone, the fold records a Drift in
// Person.History before the new value replaces the old. Nothing is
// overwritten silently. The history goes with the person: leadsync forget
// and retention erase it with them.

// Fields a Drift names.
const (
	DriftTitle    = "title"
	DriftCompany  = "company"
	DriftLocation = "location"
	DriftEmail    = "email"
	// DriftStatus is the profile's status: Before and After are
	// StatusName values ("public", "private", "left").
	DriftStatus = "status"
)

// Statuses of a person's profile (Person.Status); "" is a public profile.
const (
	StatusPrivate = "private"
	StatusLeft    = "left" // the service knows the page name no more: left the network
)

// StatusName names a Person.Status in a Drift: "public" for "".
func StatusName(status string) string {
	if status == "" {
		return "public"
	}
	return status
}

// Calls that see drift (Drift.Call): the kinds of the calls a user knows.
const (
	CallSearch  = "search" // a search, or one sub-search of a split search
	CallProfile = "profile"
	CallTrack   = "track"
	CallEnrich  = "enrich"
)

// Drift is one change of what a person shows, as a call saw it.
type Drift struct {
	Field  string    `json:"field"`
	Before string    `json:"before"`
	After  string    `json:"after"`
	At     time.Time `json:"at"`
	// By is the address of the call that saw it (search.cto,
	// track.champions, enrich.contacts, ...) and Call its kind.
	By   string `json:"by"`
	Call string `json:"call"`
}

// JobField reports whether the drift is of the title or the company: a job
// change.
func (d Drift) JobField() bool { return d.Field == DriftTitle || d.Field == DriftCompany }

// SeenDrift is a drift with the person it was recorded for.
type SeenDrift struct {
	PersonID string
	Drift    Drift
}

// EventTrack is one profile read of a track block: the person's current
// position compared with what state holds (title and company; a profile
// shows no location). A profile gone (the service knows the page name no
// more) or private is recorded as such, not as a failure.
const EventTrack EventKind = "track"

// TrackEvent is a completed track read of one person.
type TrackEvent struct {
	PersonID    string          `json:"person_id"`
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
	// Profile is the answer; nil when Gone.
	Profile *person.Profile `json:"profile,omitempty"`
	// Gone is true when the service answered that no member has the page
	// name: the person left the network (or changed their page name).
	Gone bool `json:"gone,omitempty"`
}

// validateTrack checks an EventTrack.
func (e *Event) validateTrack() error {
	switch {
	case e.Address == "":
		return fmt.Errorf("track event has no address")
	case e.Track == nil || e.Track.PersonID == "":
		return fmt.Errorf("track event for %q names no person", e.Address)
	case e.Track.Gone == (e.Track.Profile != nil):
		return fmt.Errorf("track event for %q: want a profile or gone, exactly one", e.Address)
	}
	return nil
}

// callOf is the Drift.Call of an event kind.
func callOf(k EventKind) string {
	switch k {
	case EventSearch, EventSplit:
		return CallSearch
	case EventProfile:
		return CallProfile
	case EventTrack:
		return CallTrack
	case EventEnrich:
		return CallEnrich
	}
	return string(k)
}

// LastDrifts returns the drifts the last Fold recorded, with their people:
// what apply reports as it goes.
func (s *State) LastDrifts() []SeenDrift { return s.lastDrifts }

// sameValue reports whether two values a call and state hold are the same:
// equal but for case and surrounding spaces. A difference of case only is
// not news.
func sameValue(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// drift records, for p, that field went from before to after, when both
// are known and differ.
func (a *applier) drift(p *Person, field, before, after string) {
	if before == "" || after == "" || sameValue(before, after) {
		return
	}
	a.record(p, Drift{Field: field, Before: before, After: after})
}

// record appends d to p's history, seen now by the call being folded.
func (a *applier) record(p *Person, d Drift) {
	d.At, d.By, d.Call = a.at, a.by, a.call
	p.History = append(p.History, d)
	a.s.touchHistory(p.ID, 1)
	a.s.lastDrifts = append(a.s.lastDrifts, SeenDrift{PersonID: p.ID, Drift: d})
}

// setStatus records what a profile read found of p's status. The first
// read of a private profile says nothing of a change (it may always have
// been private); a profile found private after a public one, gone, or
// back, is a drift.
func (a *applier) setStatus(p *Person, status string, readBefore bool) {
	if p.Status == status {
		return
	}
	if status == StatusLeft || p.Status != "" || readBefore {
		a.record(p, Drift{Field: DriftStatus, Before: StatusName(p.Status), After: StatusName(status)})
	}
	at := a.at
	p.Status, p.StatusSince = status, &at
	if status == "" {
		p.StatusSince = nil
	}
}

// readBefore reports whether a profile read looked at p before.
func readBefore(p *Person) bool { return p.ProfileReadAt != nil || p.CheckedAt != nil }

// track records a completed track read. A person no longer in state
// (forgotten meanwhile) is not brought back.
func (a *applier) track(addr string, te *TrackEvent) {
	s := a.s
	p := s.Person(te.PersonID)
	if p == nil {
		return
	}
	before := readBefore(p)
	at := a.at
	p.CheckedAt, p.CheckedGeneration = &at, te.Generation
	noteTrackRead(p, addr, at)
	switch {
	case te.Gone:
		a.setStatus(p, StatusLeft, before)
	default:
		// A private profile is read for what its answer holds: the
		// positions it carries are the person's job (a change is history,
		// as from a public one); what it does not show stays as last known.
		l := person.Lead{FullName: te.Profile.FullName}
		if len(te.Profile.CurrentPosition) > 0 {
			l.Title = te.Profile.CurrentPosition[0].JobTitle
			l.Company = te.Profile.CurrentPosition[0].Company
		}
		a.mergeLead(p, l)
		guessNames(&p.Lead)
		prof := profileRead(p.Profile, *te.Profile)
		p.Profile, p.ProfileReadAt = &prof, &at
		p.LastSeen = at
		status := ""
		if prof.Private {
			status = StatusPrivate
		}
		a.setStatus(p, status, before)
	}
	s.touchPerson(p.ID)
}

// profileRead is the profile state keeps after a read answered read, last
// being the profile kept before (nil when none). A public answer is kept as
// it is. A private one (private: true) shows what the member lets it show:
// what it carries is kept, and what it leaves blank (the description, or
// every position) stays as last known, since a profile that turned private
// hid it rather than removed it. Positions go together: an answer that
// carries a current position or a timeline gives both.
func profileRead(last *person.Profile, read person.Profile) person.Profile {
	if !read.Private || last == nil {
		return read
	}
	if read.FullName == "" {
		read.FullName = last.FullName
	}
	if read.Description == "" {
		read.Description = last.Description
	}
	if read.NetworkURL == "" {
		read.NetworkURL = last.NetworkURL
	}
	if len(read.CurrentPosition) == 0 && len(read.WorkPositionTimeline) == 0 {
		read.CurrentPosition, read.WorkPositionTimeline = last.CurrentPosition, last.WorkPositionTimeline
	}
	return read
}

// Checked is when a profile read (a profile block's or a track's) last
// looked at p; nil when never.
func (p *Person) Checked() *time.Time {
	switch {
	case p.CheckedAt == nil:
		return p.ProfileReadAt
	case p.ProfileReadAt == nil || p.CheckedAt.After(*p.ProfileReadAt):
		return p.CheckedAt
	}
	return p.ProfileReadAt
}

// Private is the latest knowledge of whether p's profile is private,
// whichever read found it (a profile block's or a track's, state keeps
// the last in Status): a read that finds a profile private keeps in
// Profile what its answer shows and the last known rest (profileRead),
// and one that finds it public replaces a private one. known is false when no read found a profile:
// never read, or gone (left the network).
func (p *Person) Private() (private, known bool) {
	switch p.Status {
	case StatusPrivate:
		return true, true
	case StatusLeft:
		return false, false
	}
	if p.Profile == nil {
		return false, false
	}
	// A state written before Status was kept holds it in the profile.
	return p.Profile.Private, true
}

// EmailStale reports whether p's enrichment predates a change of company
// state saw: its e-mail and domain belong to the old employer, and the
// e-mail is never shown as current.
func (p *Person) EmailStale() bool {
	if p.Enrichment == nil {
		return false
	}
	return p.ChangedSinceEnriched(DriftCompany)
}

// ChangedSinceEnriched reports whether field (company or title) of p's
// lead changed after p's enrichment to a value the enrichment did not
// have: a change the enrichment already shows (two records of the same
// person merged after it, one of them enriched with the new job) does not
// make it old.
func (p *Person) ChangedSinceEnriched(field string) bool {
	if p.Enrichment == nil {
		return false
	}
	var had string
	switch field {
	case DriftCompany:
		had = p.Enrichment.Result.Company
	case DriftTitle:
		had = p.Enrichment.Result.Title
	}
	for _, d := range p.History {
		if d.Field == field && d.At.After(p.Enrichment.EnrichedAt) && (had == "" || !strings.EqualFold(d.After, had)) {
			return true
		}
	}
	return false
}

// Why an enrichment's e-mail is not current (Person.EmailNotCurrent): the
// words the spreadsheets and state show give it.
const (
	// EmailFormerEmployer: the company changed after the enrichment.
	EmailFormerEmployer = "former employer"
	// EmailLeftNetwork: a profile read found the person gone (the service
	// knows the page name no more) after the enrichment.
	EmailLeftNetwork = "left the network"
)

// EmailNotCurrent says why the e-mail of p's enrichment is not current:
// EmailLeftNetwork when their profile was found gone after it (whatever
// came before), EmailFormerEmployer when their company changed after it
// (EmailStale); "" when it is current or there is none. An e-mail that is
// not current is kept (in the enrichment, and in the history once an
// enrichment replaces it) and never shown as current.
func (p *Person) EmailNotCurrent() string {
	switch {
	case p.Enrichment == nil:
		return ""
	case p.Status == StatusLeft && (p.StatusSince == nil || !p.StatusSince.Before(p.Enrichment.EnrichedAt)):
		return EmailLeftNetwork
	case p.EmailStale():
		return EmailFormerEmployer
	}
	return ""
}

// CurrentEmail is the e-mail of p's enrichment, "" when none or not
// current (EmailNotCurrent).
func (p *Person) CurrentEmail() string {
	if p.Enrichment == nil || p.EmailNotCurrent() != "" {
		return ""
	}
	return p.Enrichment.Result.Email
}

// ChangedSince reports whether p's field changed after t.
func (p *Person) ChangedSince(field string, t time.Time) bool {
	for i := len(p.History) - 1; i >= 0; i-- {
		d := p.History[i]
		if d.Field == field && d.At.After(t) {
			return true
		}
	}
	return false
}

// mergeHistory folds src's history into dst's, by time (dst's first on a
// tie): the same person known under two IDs.
func mergeHistory(dst, src []Drift) []Drift {
	if len(src) == 0 {
		return dst
	}
	out := append(slices.Clone(dst), src...)
	slices.SortStableFunc(out, func(x, y Drift) int { return x.At.Compare(y.At) })
	return out
}

// changedBy counts the people of ids with a drift of a lead field
// (title, company, location) seen by addr at since or later.
func (s *State) changedBy(ids []string, addr string, since time.Time) int {
	n := 0
	for _, id := range ids {
		p := s.People[id]
		if p == nil {
			continue
		}
		for i := len(p.History) - 1; i >= 0; i-- {
			d := p.History[i]
			if d.At.Before(since) {
				break
			}
			if d.By == addr && d.Field != DriftEmail && d.Field != DriftStatus {
				n++
				break
			}
		}
	}
	return n
}

// DriftCounts sum the histories of a state's people.
type DriftCounts struct {
	// Changes counts every drift, People the people with at least one.
	Changes int `json:"changes"`
	People  int `json:"people"`
	// ByField counts the drifts by field (title, company, location, email,
	// status); every field is present.
	ByField map[string]int `json:"by_field"`
	// Left and Private count the people whose profile the last read found
	// gone or private.
	Left    int `json:"left"`
	Private int `json:"private"`
	// StaleEmails counts the enriched people whose company changed after
	// their enrichment (Person.EmailStale), LeftEmails those whose profile
	// was found gone after it: their e-mails are not current
	// (Person.EmailNotCurrent; a person who left is counted there only).
	StaleEmails int `json:"stale_emails"`
	LeftEmails  int `json:"left_emails"`
}

// DriftFields are the fields of a drift, in the order they are shown.
var DriftFields = []string{DriftTitle, DriftCompany, DriftLocation, DriftEmail, DriftStatus}

// DriftCounts sums the histories of s's people.
func (s *State) DriftCounts() DriftCounts {
	c := DriftCounts{ByField: make(map[string]int, len(DriftFields))}
	for _, f := range DriftFields {
		c.ByField[f] = 0
	}
	for _, p := range s.People {
		if len(p.History) > 0 {
			c.People++
			c.Changes += len(p.History)
			for _, d := range p.History {
				c.ByField[d.Field]++
			}
		}
		switch p.Status {
		case StatusLeft:
			c.Left++
		case StatusPrivate:
			c.Private++
		}
		switch p.EmailNotCurrent() {
		case EmailFormerEmployer:
			c.StaleEmails++
		case EmailLeftNetwork:
			c.LeftEmails++
		}
	}
	return c
}
