package engine

import (
	"encoding/json"
	"fmt"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// The plan's updates change the state without a call (plan.Update): a
// search's kept leads cut to a lowered max_results (state.EventTrim), and
// a profile read shared with another profile block that reads the same
// person (state.EventProfileShare). Each is journaled like a call's
// result. A read shared with one of this run waits for it: it is recorded
// as soon as that read is, and not at all when that read fails or is not
// made (the next plan plans it again).

// prepareShares notes the profile updates that share a read of this run,
// by the address of that read. Each counts as pending for its address
// until it is settled, so that enrich blocks reading it wait for it.
func (r *runner) prepareShares() {
	for _, c := range r.opts.Plan.Changes {
		if c.Action != plan.Update || c.Kind != kind.Profile || r.pending[c.SameAs] <= 0 {
			continue
		}
		if r.shares == nil {
			r.shares = map[string][]string{}
		}
		r.shares[c.SameAs] = append(r.shares[c.SameAs], c.Address)
		r.pending[c.Address]++
	}
}

// updates records the updates that wait for nothing, before any call: the
// cuts of kept leads, and the reads shared with reads state holds.
func (r *runner) updates() error {
	for _, c := range r.opts.Plan.Changes {
		if c.Action != plan.Update {
			continue
		}
		var ev *state.Event
		switch c.Kind {
		case kind.Search:
			s := r.search(c.Address)
			if s == nil {
				return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
			}
			if s.MaxResults <= 0 {
				continue
			}
			ev = &state.Event{At: r.now(), Kind: state.EventTrim, Address: c.Address, Trim: &state.TrimEvent{MaxResults: s.MaxResults}}
		case kind.Profile:
			if r.waitsForRead(c.Address) {
				continue
			}
			var err error
			if ev, err = r.shareEvent(c.Address, c.SameAs); err != nil {
				return err
			}
		default:
			continue
		}
		if err := r.recorded(r.record(ev)); err != nil {
			return err
		}
		r.sum.Updated = append(r.sum.Updated, c.Address)
	}
	return nil
}

// waitsForRead reports whether the profile address addr shares a read of
// this run.
func (r *runner) waitsForRead(addr string) bool {
	for _, list := range r.shares {
		for _, a := range list {
			if a == addr {
				return true
			}
		}
	}
	return false
}

// settleShares records the reads shared with the read of src, once its
// outcome is handled: under each sharing address when src's read
// succeeded in this run, not at all otherwise. Either way they are no
// longer pending.
func (r *runner) settleShares(src string, read bool) {
	list := r.shares[src]
	delete(r.shares, src)
	for _, addr := range list {
		r.pending[addr]--
		if !read || r.fatal != nil {
			continue
		}
		ev, err := r.shareEvent(addr, src)
		if err == nil {
			err = r.recorded(r.record(ev))
		}
		if err != nil {
			r.fatal = err
			r.sum.Failures = append(r.sum.Failures, Failure{Address: addr, Kind: kind.Profile, Err: err, NoCall: true})
			r.halt(err.Error())
			return
		}
		r.sum.Updated = append(r.sum.Updated, addr)
	}
}

// shareEvent is the event recording the read of from under the profile
// address addr, with addr's own request.
func (r *runner) shareEvent(addr, from string) (*state.Event, error) {
	p := r.profile(addr)
	if p == nil {
		return nil, fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", addr)
	}
	body, err := json.Marshal(p.Request)
	if err != nil {
		return nil, err
	}
	gen := r.opts.Config.API.Generation
	return &state.Event{At: r.now(), Kind: state.EventProfileShare, Address: addr, Share: &state.ProfileShareEvent{
		From: from, Generation: gen, Request: body, RequestHash: state.RequestHash(gen, body),
	}}, nil
}

// search returns the configured search instance addr, nil when none.
func (r *runner) search(addr string) *config.Search {
	for _, s := range r.opts.Config.Searches {
		if s.Address == addr {
			return s
		}
	}
	return nil
}

// profile returns the configured profile instance addr, nil when none.
func (r *runner) profile(addr string) *config.Profile {
	if r.profiles == nil {
		r.profiles = make(map[string]*config.Profile, len(r.opts.Config.Profiles))
		for _, p := range r.opts.Config.Profiles {
			r.profiles[p.Address] = p
		}
	}
	return r.profiles[addr]
}
