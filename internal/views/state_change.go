package views

import (
	"fmt"
	"io"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// StateChange is the view of the commands that change the state by hand:
// state mv, state rm, state push and state recover. Paths are given as
// the command shows them (relative to the working folder where they are
// inside it).
type StateChange struct{ w io.Writer }

// NewStateChange returns the view of the state-changing commands, writing
// to w.
func NewStateChange(w io.Writer) StateChange { return StateChange{w} }

// Moved says each address state mv moved and how many.
func (v StateChange) Moved(moves []state.Move) error {
	w := newLineWriter(v.w)
	for _, m := range moves {
		w.printf("Moved %s to %s\n", m.From, m.To)
	}
	w.printf("%s moved, no call made.\n", Plural(len(moves), "address"))
	return w.flush()
}

// Removed says what state rm removed, each record in its kind's words
// (kind.Row.Removed, counting kind.Row.Counted).
func (v StateChange) Removed(removed []run.RemovedRecord) error {
	w := newLineWriter(v.w)
	for _, r := range removed {
		row := r.Kind.Row()
		w.printf(row.Removed+"\n", r.Address, Plural(r.Leads, row.Counted))
	}
	return w.flush()
}

// BackupKept says where the state before a change by hand is kept.
func (v StateChange) BackupKept(path string) error {
	_, err := fmt.Fprintf(v.w, "The state before is kept in %s.\n", path)
	return err
}

// Pushed says what state push pushed from the file at path into where:
// records search and profile records, people people.
func (v StateChange) Pushed(path string, records, people int, where string) error {
	_, err := fmt.Fprintf(v.w, "Pushed %s (%s, %s) into %s.\n", path,
		Plural(records, "search and profile record"), Plural(people, "person"), where)
	return err
}

// Recovered says what state recover kept of a state file's journal,
// what it left out and where the journal went (movedTo, relative to the
// working folder). It then says what it repaired of the records that
// named nobody, and the serial it wrote. A state database has no journal: its
// output opens with the repairs.
func (v StateChange) Recovered(res *run.Recovered, movedTo string) error {
	w := newLineWriter(v.w)
	switch j := res.Journal; {
	case j != nil && j.MovedTo != "":
		journalRecovered(w, j, movedTo)
	case j != nil:
		w.printf("No journal to recover.\n")
	}
	nobodyRepaired(w, res.Repaired)
	if res.Serial > 0 {
		w.printf("Wrote the state: serial %d.\n", res.Serial)
	} else {
		w.printf("Nothing to repair: every ID names someone (the state was not written).\n")
	}
	return w.flush()
}

// nobodyRepaired says what state recover repaired of the records that
// named nobody (r), a line a kind.
func nobodyRepaired(w *lineWriter, r state.Repairs) {
	const why = "they named people the state does not hold"
	if r.LeadIDs > 0 {
		w.printf("Dropped %s from the lead lists of %s: %s (nothing is fetched again).\n",
			Plural(r.LeadIDs, "lead ID"), Plural(r.Searches, "search"), why)
	}
	if r.SplitIDs > 0 {
		w.printf("Dropped %s from the nodes of %s under way: %s (nothing is fetched again).\n",
			Plural(r.SplitIDs, "lead ID"), Plural(r.Splits, "split run"), why)
	}
	if r.ImportIDs > 0 {
		w.printf("Dropped %s from %s: %s.\n", Plural(r.ImportIDs, "person ID"), Plural(r.Imports, "import"), why)
	}
	if r.Profiles > 0 {
		w.printf("Removed %s whose person the state does not hold: the next apply makes %s again.\n",
			Plural(r.Profiles, "profile read"), pick(r.Profiles == 1, "it", "them"))
	}
}

// journalRecovered says what state recover kept of the journal j, what it
// left out and where it went (movedTo).
func journalRecovered(w *lineWriter, j *backend.RecoverResult, movedTo string) {
	after := ""
	if j.KeptAfter > 0 {
		after = fmt.Sprintf(" (%d from after the damaged line: each line carries its own checksum)", j.KeptAfter)
	}
	w.printf("Kept %s of the journal in the state%s.\n", Plural(j.Kept, "recorded call"), after)
	if j.DamagedLine > 0 {
		w.printf("Line %d is damaged (%s): %s left out; the calls left out may be made again by the next apply.\n",
			j.DamagedLine, j.Reason, count(max(j.DroppedLines, 1), "line was", "lines were"))
	}
	w.printf("The journal is kept, unchanged, as %s.\n", movedTo)
}

// pick is one when cond holds, else other.
func pick(cond bool, one, other string) string {
	if cond {
		return one
	}
	return other
}
