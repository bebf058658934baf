package plan

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// Track reads: a track block reads the profile of each of its people who
// is due (never read, or not read for every), comparing their current
// position with state. Its people are those its sources hold now and
// every person it read before (its record, Person.Tracked), even one who
// dropped out of a search since: that is often how a job change shows.
// They stay its people until leadsync state rm track.X or forget removes
// them. The plan counts the reads exactly: they are the people state holds
// now (a person a search of this run brings is read by the next run),
// listed in the change's PersonIDs (People), in the order apply reads them. Each is
// a request of the monthly quota (first generation) and costs no credits.

// Track is the action of a track block with people due.
const Track Action = "track"

// ReasonDue says a track has people due for a read.
const ReasonDue Reason = "due"

// tracks plans the track blocks, in declaration order, after the profile
// blocks: a person a profile block reads in this run is not read again by
// a track (shared), nor is one an earlier track reads.
func (b *builder) tracks() {
	for _, t := range b.cfg.Tracks {
		if b.selected(t.Address) {
			b.add(b.track(t))
		}
	}
}

// trackCount is what one track plan counts of its people.
type trackCount struct {
	people, due, fresh, noPage, byProfile, byTrack, excluded int
	// former are the people of its record its sources hold no more
	// (among people, after its sources' people, by ID); left those due whom the last read found gone from
	// the network (among due).
	former, left int
	next         time.Time // when the next read falls due, among the fresh
}

// track plans one track block.
func (b *builder) track(t *config.Track) *Change {
	c := &Change{Address: t.Address, Kind: kind.Track, Action: Track, Reason: ReasonDue, PersonIDs: []string{}}
	if b.tracked == nil {
		b.tracked = map[*state.Person]string{}
	}
	var n trackCount
	due := dueList{sketches: b.v.st.TrackSketches()}
	n.former = b.v.trackPeople(t, func(tp trackee) {
		n.people++
		paged, page, status, checked := b.v.trackeeSketch(tp)
		switch {
		case !paged:
			n.noPage++ // a profile read needs a page name
		case tp.p != nil && b.v.excludedBy(tp.p) != nil:
			n.excluded++ // an exclude block names them: never read
		case !b.replace[t.Address] && !b.trackDue(t, checked):
			n.fresh++
			if next := checked.Add(t.Every); n.next.IsZero() || next.Before(n.next) {
				n.next = next
			}
		case len(b.reads) > 0 && b.reads[api.PageKey(page)] != "":
			n.byProfile++ // read by a profile block of this run
		case b.trackedNow(tp):
			n.byTrack++ // read by an earlier track of this run
		default:
			n.due++
			if status == state.StatusLeft {
				n.left++
			}
			b.trackNow(tp, t.Address)
			due.add(tp)
		}
	})
	if due.inSketch() {
		c.PersonIDs, c.due = nil, &due
	} else {
		c.PersonIDs = due.ids()
	}
	c.Calls, c.CallsMax = n.due, n.due
	c.Detail = trackDetail(b, t, n)
	if n.due == 0 {
		c.Action, c.Reason = None, ReasonUpToDate
	} else if b.replace[t.Address] {
		c.Reason = ReasonReplace
	}
	return c
}

// trackDue reports whether a person last read at (Person.Checked; zero
// for never) is due for a read of t: never read by a profile or track
// read, or not for t.Every.
func (b *builder) trackDue(t *config.Track, at time.Time) bool {
	return at.IsZero() || b.now.Sub(at) >= t.Every
}

// trackDetail explains a track change: how many people are read, why the
// others are not.
func trackDetail(b *builder, t *config.Track, n trackCount) string {
	every := "every " + formatDuration(t.Every)
	var parts []string
	switch {
	case n.people == 0:
		return "no people in state yet (" + every + ")"
	case n.due > 0 && b.replace[t.Address]:
		parts = append(parts, fmt.Sprintf("%s of %s read again (replace requested; %s)", thousands(n.due), plural(n.people, "person", "people"), every))
	case n.due > 0:
		parts = append(parts, fmt.Sprintf("%s of %s due (%s); requests, no credits", thousands(n.due), plural(n.people, "person", "people"), every))
	case n.fresh > 0:
		// Only those read within every: the others are read by another
		// reader of this run, or cannot be read (said below).
		parts = append(parts, fmt.Sprintf("%s read within %s", plural(n.fresh, "person", "people"), formatDuration(t.Every)))
	default:
		// Nobody due, nobody read within every: each is read by another
		// reader of this run or cannot be read, as the parts below say.
		parts = append(parts, fmt.Sprintf("%s (%s)", plural(n.people, "person", "people"), every))
	}
	if n.left > 0 {
		parts = append(parts, fmt.Sprintf("%s of them left the network (read again in case they came back)", thousands(n.left)))
	}
	if n.due > 0 && n.fresh > 0 {
		parts = append(parts, fmt.Sprintf("%s read within %s", thousands(n.fresh), formatDuration(t.Every)))
	}
	if n.due == 0 && !n.next.IsZero() {
		parts = append(parts, "next due "+until(b.now, n.next))
	}
	if n.byProfile > 0 {
		parts = append(parts, fmt.Sprintf("%s read by a profile block of this run", thousands(n.byProfile)))
	}
	if n.byTrack > 0 {
		parts = append(parts, fmt.Sprintf("%s read by another track of this run", thousands(n.byTrack)))
	}
	if n.noPage > 0 {
		parts = append(parts, fmt.Sprintf("%s without a page name (not readable)", thousands(n.noPage)))
	}
	if n.former > 0 {
		parts = append(parts, fmt.Sprintf("%s no longer in its sources, still watched (state rm %s stops it)",
			thousands(n.former), t.Address))
	}
	if n.excluded > 0 {
		parts = append(parts, thousands(n.excluded)+" excluded")
	}
	return strings.Join(parts, "; ")
}

// until says when t comes, seen from now: "in 3 days", "now".
func until(now, t time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "now"
	case d < time.Hour:
		return "in " + plural(int(d/time.Minute), "minute", "minutes")
	case d < 48*time.Hour:
		return "in " + plural(int(d/time.Hour), "hour", "hours")
	}
	return "in " + plural(int(d/(24*time.Hour)), "day", "days")
}

// trackPeople gives fn the people a track watches, each once: the people
// its sources hold, in from order (those of its searches and profiles,
// and those an enrich block it lists enriched, among that block's sources,
// or holds enriched at no credit: imported with an e-mail, or copied from
// another workspace, which the block counts as enriched), then the people
// it read before whom its sources hold no more (its record, by ID; their
// number is former). People the plan removes first (retention) are left
// out. No list of them is held: at 1,000,000 people in sketch, 16 MB.
func (v *env) trackPeople(t *config.Track, fn func(trackee)) (former int) {
	seen := trackSeen{whole: map[*state.Person]bool{}}
	add := func(addr, enrichedBy string) {
		for _, id := range v.sourcePeople(addr).All() {
			tp, ok := v.trackee(id)
			if !ok {
				continue
			}
			if tp.p != nil && v.gone[tp.p] || enrichedBy != "" && !v.enrichedBy(tp, enrichedBy) || !seen.add(v, tp) {
				continue
			}
			fn(tp)
		}
	}
	for _, ref := range t.From {
		e := v.cfg.Enrich(ref)
		if e == nil { // a search, a profile or an import
			for _, addr := range v.cfg.Resolve([]string{ref}) {
				add(addr, "")
			}
			continue
		}
		for _, addr := range v.cfg.Resolve(e.From) {
			add(addr, ref)
		}
	}
	var rest []*state.Person
	for _, p := range v.watchedBy(t.Address) {
		if !v.gone[p] && seen.add(v, trackee{p: p}) {
			rest = append(rest, p)
		}
	}
	slices.SortFunc(rest, func(x, y *state.Person) int { return strings.Compare(x.ID, y.ID) })
	for _, p := range rest {
		fn(trackee{p: p})
	}
	return len(rest)
}

// watchedBy returns the people the track at addr read before, in no
// order: the people of the state with its entry in Person.Tracked.
func (v *env) watchedBy(addr string) []*state.Person {
	v.waitOwned() // findOwned finds them too
	if v.watched == nil {
		v.watched = map[string][]*state.Person{}
		for _, p := range v.st.People {
			for a := range p.Tracked {
				v.watched[a] = append(v.watched[a], p)
			}
		}
	}
	return v.watched[addr]
}
