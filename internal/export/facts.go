package export

import (
	"github.com/leadsync/leadsync/internal/state"
)

// exportFacts are the Summary's counts over the people of an export's
// sheets, each person once however many sheets list them. They are
// gathered as the writer fills the rows (rowTally: a row marked as its
// person's first in the export counts them), and for a changes sheet as
// its people are read, so that nobody is read for the Summary alone.
type exportFacts struct {
	// status counts them by the validation status of their e-mail
	// (StatusText), notEnriched for those never enriched.
	status map[string]int
	// byField counts the people whose history holds a change of the
	// field (not status); changes counts the changes.
	byField map[string]int
	changes int
	// left and private count the people the last profile read found
	// gone or private; stale and leftEmails those whose e-mail is not
	// current (FormerEmployer, LeftNetwork).
	left, private, stale, leftEmails int
	// jobMonths counts, by UTC month, the people whose title or company
	// was seen to change that month.
	jobMonths map[string]int
	// imported and reused count the people whose enrichment no credit
	// was spent on here.
	imported, reused int
	// excluded are the people of the sheets' sources an exclude block
	// left out whom an enrich block would have enriched at a credit.
	excluded map[string]bool
}

func newExportFacts() exportFacts {
	return exportFacts{status: map[string]int{}, byField: map[string]int{},
		jobMonths: map[string]int{}, excluded: map[string]bool{}}
}

// add counts p, a person of one of the export's sheets (once: the caller
// sees to it).
func (f *exportFacts) add(p *state.Person) {
	if p.Enrichment == nil {
		f.status[notEnriched]++
	} else {
		f.status[StatusText(p.Enrichment.Result.ValidationStatus)]++
		switch {
		case p.Enrichment.ImportedEnrichment():
			f.imported++
		case p.Enrichment.ReusedFrom() != "":
			f.reused++
		}
	}
	f.addHistory(p)
	switch p.Status {
	case state.StatusLeft:
		f.left++
	case state.StatusPrivate:
		f.private++
	}
	switch p.EmailNotCurrent() {
	case FormerEmployer:
		f.stale++
	case LeftNetwork:
		f.leftEmails++
	}
}

// addHistory counts the changes of p's history: by field, and the months
// their title or company changed.
func (f *exportFacts) addHistory(p *state.Person) {
	f.changes += len(p.History)
	fields := map[string]bool{}
	months := map[string]bool{}
	for _, d := range p.History {
		if d.Field != state.DriftStatus && !fields[d.Field] {
			fields[d.Field] = true
			f.byField[d.Field]++
		}
		if m := d.At.UTC().Format("2006-01"); d.JobField() && !months[m] {
			months[m] = true
			f.jobMonths[m]++
		}
	}
}

// rowTally is what a people sheet's rows tell the Summary, counted as the
// writer fills them: each row once, however often it is filled (fitWidths
// samples rows before they are written).
type rowTally struct {
	// first marks the rows that are their person's first in the sheet,
	// firstInExport those that are their person's first in the export.
	first, firstInExport, done rowBits
	// filled counts the rows done.
	filled int
	// fresh counts the sheet's people first seen after the file was last
	// written (Options.LastWritten).
	fresh int
}

// count counts row i, whose person is p, unless counted.
func (t *rowTally) count(j *job, i int, p *state.Person) {
	if t == nil || t.done.has(i) {
		return
	}
	t.done.set(i)
	t.filled++
	if t.firstInExport.has(i) {
		j.facts.add(p)
	}
	if t.first.has(i) && j.opts.LastWritten != nil && p.FirstSeen.After(*j.opts.LastWritten) {
		t.fresh++
	}
}

// rowBits is a set of row numbers.
type rowBits []uint64

func (b *rowBits) set(i int) {
	for len(*b) <= i/64 {
		*b = append(*b, 0)
	}
	(*b)[i/64] |= 1 << (i % 64)
}

func (b rowBits) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// tallyRest fills the rows of the people sheets that the writer has not
// filled, so that the Summary counts every row: none, when the writer
// wrote every sheet's rows before the Summary, as both writers do.
func (j *job) tallyRest() {
	for _, s := range j.sheets {
		t := s.rows.tally
		if t == nil || t.filled >= s.table.n {
			continue
		}
		cells := make([]cellValue, len(s.table.header))
		for i := 0; i < s.table.n; i++ {
			if !t.done.has(i) {
				s.table.fill(i, cells)
			}
		}
	}
}

// readErr is the first error of a read of the people of the sheets'
// rows, nil when none failed: a writer checks it before it renames its
// files into place.
func (j *job) readErr() error {
	for _, s := range j.sheets {
		if err := s.table.readErr(); err != nil {
			return err
		}
	}
	return nil
}
