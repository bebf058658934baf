package export

import (
	"github.com/leadsync/leadsync/internal/state"
)

// exportFacts are the Summary's counts over the people of an export's
// sheets, each person once however many sheets list them: gathered while
// the sheets' rows are collected, a page of people at a time, so that
// nobody is read again for the Summary.
type exportFacts struct {
	// people are the IDs of the people of the export's sheets.
	people map[string]bool
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
	return exportFacts{people: map[string]bool{}, status: map[string]int{}, byField: map[string]int{},
		jobMonths: map[string]int{}, excluded: map[string]bool{}}
}

// add counts p, a person of one of the export's sheets, unless counted.
func (f *exportFacts) add(p *state.Person) {
	if f.people[p.ID] {
		return
	}
	f.people[p.ID] = true
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
