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

// Recovered says what state recover kept of the journal, what it left
// out and where the journal went (movedTo, relative to the working
// folder), then how many lead IDs naming nobody it dropped.
func (v StateChange) Recovered(res *run.Recovered, movedTo string) error {
	w := newLineWriter(v.w)
	switch j := res.Journal; {
	case j != nil && j.MovedTo != "":
		journalRecovered(w, j, movedTo)
	case res.Dropped.IDs > 0:
		w.printf("No journal to recover.\n")
	default:
		w.printf("No journal to recover: the state is complete.\n")
	}
	if d := res.Dropped; d.IDs > 0 {
		w.printf("Dropped %s from the lead lists of %s: they named people the state does not hold (nothing is fetched again).\n",
			Plural(d.IDs, "lead ID"), Plural(d.Searches, "search"))
	}
	return w.flush()
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
