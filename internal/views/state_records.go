package views

import (
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// failureKind is what StateKind says of an address whose calls all failed.
const failureKind = "failure"

// shownRecord is how state show draws the record of one kind that holds
// records (internal/kind), in its human and its JSON form. Every kind
// whose row says HoldsRecords has one (TestEveryKindThatHoldsRecordsIsShown).
type shownRecord struct {
	human func(w *lineWriter, s *state.State, addr string, now time.Time)
	json  func(out *StateShowJSON, s *state.State, addr string)
}

// shownRecords is state show's record of each kind that holds records.
var shownRecords = map[kind.Kind]shownRecord{
	kind.Search:  {writeSearchRecord, searchJSON},
	kind.Profile: {writeProfileRecord, profileJSON},
	kind.Import:  {writeImportRecord, importJSON},
	kind.Track:   {writeTrackRecord, trackJSON},
	kind.Person:  {writePersonRecord, personJSON},
}

func writePersonRecord(w *lineWriter, s *state.State, addr string, now time.Time) {
	writePerson(w, s.People[strings.TrimPrefix(addr, state.PersonAddressPrefix)], now)
}

func searchJSON(out *StateShowJSON, s *state.State, addr string) {
	out.Search = s.Searches[addr]
	out.addPeople(s, out.Search.LeadIDs)
}

func profileJSON(out *StateShowJSON, s *state.State, addr string) {
	out.Profile = s.Profiles[addr]
	if p := s.People[out.Profile.PersonID]; p != nil {
		out.People = append(out.People, p)
	}
}

func importJSON(out *StateShowJSON, s *state.State, addr string) {
	out.Import = s.Imports[addr]
	out.addPeople(s, out.Import.PersonIDs)
}

// addPeople adds the people of ids that s holds to out.People, in order.
func (out *StateShowJSON) addPeople(s *state.State, ids []string) {
	for _, id := range ids {
		if p := s.People[id]; p != nil {
			out.People = append(out.People, p)
		}
	}
}

func trackJSON(out *StateShowJSON, s *state.State, addr string) {
	out.Track = s.TrackRecordOf(addr)
	for _, tp := range out.Track.People {
		out.People = append(out.People, s.People[tp.PersonID])
	}
}

func personJSON(out *StateShowJSON, s *state.State, addr string) {
	out.Person = s.People[strings.TrimPrefix(addr, state.PersonAddressPrefix)]
	out.EmailNotCurrent = out.Person.EmailNotCurrent()
}
