package export

import (
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// WhereColumns are the parts of a person WhereValues reads for the fields
// names (state.PersonColumns), the full name a selection shows among
// them, and true; false when a field needs the person whole: fullName and
// description (a profile read may give them), the profile's fields,
// profileUrl, foundIn, photoUrl and the raw result's columns.
func WhereColumns(names []string) (state.PersonColumns, bool) {
	cols := state.PersonColumns{Lead: []string{"fullName"}}
	for _, n := range names {
		switch f := person.FieldByColumn(n); {
		case n == "firstSeen" || n == "lastSeen":
			cols.Seen = true
		case n == "enrichedAt":
			cols.AddEnrichment()
		case n == "email" || n == "validationStatus" || n == "companyDomain":
			cols.AddEnriched(n)
		case f != nil && f.Where && f.Profile == nil:
			// fieldText: the lead's, else the enrichment's.
			cols.AddLead(f.Key)
			cols.AddEnriched(f.Key)
		default:
			return state.PersonColumns{}, false
		}
	}
	return cols, true
}
