// Package state is the model of what leadsync knows was fetched: State
// (searches, profile reads, people with their histories, failures, usage,
// the suppression list, split runs under way), the events that record each
// completed call, and Fold, the one way a state changes, both live and when
// a journal is replayed (a move of records to other addresses among them,
// EventMove); a marked event (EventMark) is folded once, however many
// copies of it turn up (the backend's, a rescue file's). Fold records a
// person's history (drift.go): every change of title, company, location,
// e-mail or status a call saw. It also names what changed (Changes, for a backend that writes
// row by row), checks a state read from outside (Check; CheckPerson and
// CheckExceptPeople for a reader that checks each person as it reads
// them), repairs the records that name nobody for state recover
// (nobody.go: FindNobody asks a store, DropNobody repairs), and gives the
// mark of the data an export was written from (DataMark). A Base
// (base.go) is a state whose store reads people when asked, a page or a
// question at a time (EnrichIndex, CensusSketcher, TrackSketcher,
// NetworkFinder, EnrichedLeadPager), lead lists packed (IDList); a partial
// state (partial.go) holds only the people an operation touches.
//
// It knows nothing of files or databases: the codec is
// internal/state/statefile, the backends are internal/state/local and
// internal/state/pg, behind internal/state/backend. It imports only api
// (wire types: generation, raw results, usage), the leaf person (the
// person model and the table of person fields), the leaf kind (the table
// of block kinds; the state's part of each kind that holds records is
// records, records.go), the leaf recovered (a panic of a check's
// goroutines as an error) and the leaf address
// (which block kind an address names: IsImport, Kind; a move names its
// addresses one by one, and a move onto a block's other form, with or
// without a key, is refused: move_forms.go); it must not import any of
// those.
package state
