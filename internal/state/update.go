package state

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/leadsync/leadsync/internal/api"
)

// Updates: changes of state that need no call. The plan shows them as
// action update; apply journals them like any other event, so that the
// PostgreSQL backend and a replay after a kill get them too.

// EventTrim cuts the kept leads of a search to a lowered max_results: the
// first Trim.MaxResults of its LeadIDs stay, the others leave the search
// (its address leaves their FoundBy; they stay in state with their
// enrichments). The record's run (RanAt, ResultCount, Added, Removed,
// Runs) is unchanged: no search ran.
const EventTrim EventKind = "trim"

// EventProfileShare records a profile read under a second address: a
// profile block whose person another profile block reads (in the same
// run, or fresh in state) gets that read, without a call of its own. The
// record of Share.From is copied: its person and the time it was read;
// Generation, Request and RequestHash are this address's own, so that the
// plan finds the record current.
const EventProfileShare EventKind = "profile_share"

// TrimEvent is the max_results the kept leads are cut to.
type TrimEvent struct {
	MaxResults int `json:"max_results"`
}

// ProfileShareEvent names the read shared and this address's request.
type ProfileShareEvent struct {
	From        string          `json:"from"`
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
}

// validateUpdate checks an EventTrim or EventProfileShare.
func (e *Event) validateUpdate() error {
	if e.Address == "" {
		return fmt.Errorf("%s event has no address", e.Kind)
	}
	switch e.Kind {
	case EventTrim:
		if e.Trim == nil || e.Trim.MaxResults <= 0 {
			return fmt.Errorf("trim event for %q has no max_results", e.Address)
		}
	case EventProfileShare:
		if e.Share == nil || e.Share.From == "" {
			return fmt.Errorf("profile_share event for %q names no read to share", e.Address)
		}
		if e.Share.From == e.Address {
			return fmt.Errorf("profile_share event for %q shares its own read", e.Address)
		}
	}
	return nil
}

// trim cuts the kept leads of the search addr to te.MaxResults and records
// that max_results as the one the record keeps up to (so that raising it
// again reruns the search: Search.MaxResults). A search state does not
// hold, or that keeps no more than that, is left as it is.
func (a *applier) trim(addr string, te *TrimEvent) {
	s := a.s
	rec := s.Searches[addr]
	if rec == nil || len(rec.LeadIDs) <= te.MaxResults {
		return
	}
	for _, id := range rec.LeadIDs[te.MaxResults:] {
		removeFoundBy(s.People[id], addr)
		s.touchPerson(id)
	}
	rec.LeadIDs = slices.Clone(rec.LeadIDs[:te.MaxResults])
	rec.MaxResults = te.MaxResults
	if rec.Split != nil {
		rec.Split.MaxResults = te.MaxResults
	}
	s.touchSearch(addr)
}

// shareProfile records the read of se.From under addr. Nothing happens
// when state holds no read of se.From (it cannot be shared).
func (a *applier) shareProfile(addr string, se *ProfileShareEvent) {
	s := a.s
	src := s.Profiles[se.From]
	if src == nil {
		return
	}
	rec := &ProfileRead{
		Address:     addr,
		Generation:  se.Generation,
		Request:     se.Request,
		RequestHash: se.RequestHash,
		ReadAt:      src.ReadAt,
		PersonID:    src.PersonID,
	}
	if rec.RequestHash == "" {
		rec.RequestHash = RequestHash(se.Generation, se.Request)
	}
	if prev := s.Profiles[addr]; prev != nil && prev.PersonID != rec.PersonID {
		removeFoundBy(s.People[prev.PersonID], addr)
		s.touchPerson(prev.PersonID)
	}
	if p := s.People[rec.PersonID]; p != nil {
		addFoundBy(p, addr)
		s.touchPerson(p.ID)
	}
	s.Profiles[addr] = rec
	s.touchProfile(addr)
}
