package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// Track reads: one profile read per person the plan's track change lists
// (its PersonIDs, exactly its calls). The answer is compared with state
// by the fold (state.EventTrack): a new title or company is history; a
// profile gone (the service refuses the page name) or private is recorded
// as such, and is no failure that stops the run.

// prepareTrack queues the reads of a track change. When the state holds
// people in sketch (the plan read a track of the enriched so:
// plan.Reads.Sketched), the reads are queued as one task of their people
// (task.unread), read whole a page at a time as the reads come to the
// head of the queue (readTrackHead): the first call waits neither for
// 1,000,000 people read whole nor for a task each, nor for a list of
// their IDs (plan.Listed).
func (r *runner) prepareTrack(c *plan.Change) error {
	if r.opts.Config.Track(c.Address) == nil {
		return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
	}
	people := c.Listed()
	if r.st.TrackSketches() != nil && people.Len() > 0 {
		r.push(task{call: Call{Kind: kind.Track, Address: c.Address}, unread: people})
		r.pending[c.Address] += people.Len()
		return nil
	}
	ids, _ := people.Next(people.Len())
	for _, id := range ids {
		if t, ok := r.trackTask(c.Address, id); ok {
			r.push(t)
			r.pending[c.Address]++
		}
	}
	return nil
}

// trackTask is the read of the person of id by the track at addr; ok is
// false when the state holds no such person, or one without a page name:
// gone from state since the plan (state rm), nobody to read.
func (r *runner) trackTask(addr, id string) (task, bool) {
	p := r.st.Person(id)
	if p == nil || p.Lead.PageName == "" {
		return task{}, false
	}
	return task{
		call:      Call{Kind: kind.Track, Address: addr, Person: p.ID, Page: p.Lead.PageName, Label: p.Lead.FullName},
		page:      api.PageRequest{PageName: p.Lead.PageName},
		networkID: p.Lead.NetworkID,
	}, true
}

// trackHeadPage is how many people of the task of unread reads at the
// head of the queue readTrackHead reads at once: one question to the
// store a page of reads, at most a page of people ahead of the calls.
var trackHeadPage = state.PeoplePage

// readTrackHead reads whole the next people (up to trackHeadPage) of the
// task of unread reads at the head of the queue and queues a read of
// each before the rest of them, as prepareTrack queues a person held
// whole (those the state read already are not read again). A person the
// store no longer holds is dropped, as prepareTrack drops them. A failed
// read of the store stops the run: no call of those reads was made.
func (r *runner) readTrackHead() {
	rest := r.queue[0]
	var ids []string
	ids, rest.unread = rest.unread.Next(trackHeadPage)
	head := make([]task, 0, len(ids)+len(r.queue))
	r.mu.Lock()
	err := r.st.ReadPeople(ids)
	for _, id := range ids {
		if err != nil {
			break
		}
		if t, ok := r.trackTask(rest.call.Address, id); ok {
			head = append(head, t)
		} else {
			r.pending[rest.call.Address]--
		}
	}
	r.mu.Unlock()
	if err != nil {
		r.fatal = fmt.Errorf("reading the people of %s: %w", rest.call.Address, err)
		r.halt(r.fatal.Error())
		return
	}
	if rest.unread.Len() > 0 {
		head = append(head, rest)
	}
	r.queue = append(head, r.queue[1:]...)
}

// readTrack makes one track read: the event to record, or the error.
func (r *runner) readTrack(ctx context.Context, t task) (*state.Event, error) {
	gen := r.opts.Config.API.Generation
	body, err := json.Marshal(t.page)
	if err != nil {
		return nil, err
	}
	te := &state.TrackEvent{PersonID: t.call.Person, Generation: gen, Request: body, RequestHash: state.RequestHash(gen, body)}
	p, err := r.opts.Service.Page(ctx, gen, t.page)
	switch {
	case err == nil:
		te.Profile = p
	case api.MemberUnknown(err):
		// No member has the page name any more: they left the network.
		te.Gone = true
	default:
		return nil, err
	}
	return &state.Event{Kind: state.EventTrack, Address: t.call.Address, Track: te}, nil
}

// Job is a person's job: title and company.
type Job struct {
	Title, Company string
}

func (j Job) String() string {
	switch {
	case j.Title != "" && j.Company != "":
		return j.Title + " at " + j.Company
	case j.Title != "":
		return j.Title
	}
	return j.Company
}

// JobChange is a change of a person's job (title, company or both) that a
// call of this run saw.
type JobChange struct {
	PersonID, Name string
	Before, After  Job
	// By is the address of the call that saw it; Call its kind (the
	// drift's Call: a track block's read is kind.Track).
	By   string
	Call kind.Kind
}

// PersonSeen names a person a call of this run found gone or private.
type PersonSeen struct {
	PersonID, Name string
	By             string
}

// Drift is what the calls of a run saw change, person by person.
type Drift struct {
	// Jobs are the job changes, in the order they were seen.
	Jobs []JobChange
	// Left and Private are the people whose profile a read found gone
	// (left the network) or turned private.
	Left, Private []PersonSeen
	// Fields counts every change by field (title, company, location,
	// email, status).
	Fields map[string]int
}

// add records the drifts one event's fold recorded; st is the state just
// after the fold.
func (d *Drift) add(st *state.State, seen []state.SeenDrift) []JobChange {
	if len(seen) == 0 {
		return nil
	}
	if d.Fields == nil {
		d.Fields = map[string]int{}
	}
	var jobs []JobChange
	byPerson := map[string]int{} // person -> index in jobs
	for _, s := range seen {
		d.Fields[s.Drift.Field]++
		p := st.Person(s.PersonID)
		name := s.PersonID
		if p != nil && p.Lead.FullName != "" {
			name = p.Lead.FullName
		}
		switch {
		case s.Drift.Field == state.DriftStatus && s.Drift.After == state.StatusLeft:
			d.Left = append(d.Left, PersonSeen{s.PersonID, name, s.Drift.By})
		case s.Drift.Field == state.DriftStatus && s.Drift.After == state.StatusPrivate:
			d.Private = append(d.Private, PersonSeen{s.PersonID, name, s.Drift.By})
		case s.Drift.JobField():
			i, ok := byPerson[s.PersonID]
			if !ok {
				i = len(jobs)
				byPerson[s.PersonID] = i
				cur := Job{}
				if p != nil {
					cur = Job{p.Lead.Title, p.Lead.Company}
				}
				// Fields not changed are the same before and after.
				jobs = append(jobs, JobChange{PersonID: s.PersonID, Name: name, Before: cur, After: cur, By: s.Drift.By, Call: kind.Kind(s.Drift.Call)})
			}
			j := &jobs[i]
			if s.Drift.Field == state.DriftTitle {
				j.Before.Title, j.After.Title = s.Drift.Before, s.Drift.After
			} else {
				j.Before.Company, j.After.Company = s.Drift.Before, s.Drift.After
			}
		}
	}
	d.Jobs = append(d.Jobs, jobs...)
	return slices.Clip(jobs)
}
