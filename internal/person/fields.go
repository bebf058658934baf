package person

import (
	"reflect"
	"strings"
)

// PersonFields is the one table of the fields the service gives about a
// person: those of a search result (spec 2.2), of a profile read (2.4) and
// of an enrichment (2.5). Every place that lists person fields reads it:
// the state file's codec (internal/state/statefile, whose reader and
// writer of these fields are generated from it), the pg backend's
// columns, the fold's merge and the identity hash (internal/state), the
// export columns and their labels (internal/export, internal/config),
// config's column names and did-you-mean, and the attributes of lead in a
// where expression.
//
// A new field of the service is a field of its struct in types.go and a
// row here, with its label when a column shows it; then go generate
// ./internal/state/statefile. TestPersonFieldsCover fails when a field of
// Lead, EnrichedProfile or Profile has no row, or a row's accessor reaches
// another field.
//
// The order is the order of the default columns (a sheet without columns
// shows them in it) and of the extra columns; the state file writes each
// struct's fields in the struct's own order (LeadFields, EnrichedFields).
var PersonFields = []*PersonField{
	// The lead (spec 2.2); an enrichment repeats these fields.
	{Key: "firstName", From: FromLead | FromEnrichment, Column: "firstName", Label: "First name", Default: true, Where: true, Identity: true, Merge: MergeName, PG: "first_name",
		Lead: func(l *Lead) *string { return &l.FirstName }, Enriched: func(e *EnrichedProfile) *string { return &e.FirstName }},
	{Key: "lastName", From: FromLead | FromEnrichment, Column: "lastName", Label: "Last name", Default: true, Where: true, Identity: true, Merge: MergeName, PG: "last_name",
		Lead: func(l *Lead) *string { return &l.LastName }, Enriched: func(e *EnrichedProfile) *string { return &e.LastName }},
	{Key: "fullName", From: FromLead | FromEnrichment | FromProfile, Column: "fullName", Label: "Full name", Default: true, Where: true, Identity: true, PG: "full_name",
		Lead: func(l *Lead) *string { return &l.FullName }, Enriched: func(e *EnrichedProfile) *string { return &e.FullName }, Profile: func(p *Profile) *string { return &p.FullName }},
	{Key: "title", From: FromLead | FromEnrichment, History: true, Column: "title", Label: "Title", Default: true, Where: true, Identity: true, PG: "title",
		Lead: func(l *Lead) *string { return &l.Title }, Enriched: func(e *EnrichedProfile) *string { return &e.Title }},
	{Key: "location", From: FromLead | FromEnrichment, History: true, Column: "location", Label: "Location", Default: true, Where: true, Identity: true, PG: "location",
		Lead: func(l *Lead) *string { return &l.Location }, Enriched: func(e *EnrichedProfile) *string { return &e.Location }},
	{Key: "previousTitle", From: FromLead | FromEnrichment, Column: "previousTitle", Label: "Previous title", Default: true, Where: true, Identity: true, PG: "previous_title",
		Lead: func(l *Lead) *string { return &l.PreviousTitle }, Enriched: func(e *EnrichedProfile) *string { return &e.PreviousTitle }},
	{Key: "company", From: FromLead | FromEnrichment, History: true, Column: "company", Label: "Company", Default: true, Where: true, Identity: true, PG: "company",
		Lead: func(l *Lead) *string { return &l.Company }, Enriched: func(e *EnrichedProfile) *string { return &e.Company }},
	{Key: "networkId", From: FromLead | FromEnrichment, Column: "networkId", Label: "Network ID", Default: true, Where: true, Merge: MergeKey, PG: "network_id",
		Lead: func(l *Lead) *string { return &l.NetworkID }, Enriched: func(e *EnrichedProfile) *string { return &e.NetworkID }},
	{Key: "pageName", From: FromLead | FromEnrichment, Column: "pageName", Label: "Page name", Default: true, Where: true, Merge: MergeKey, PG: "page_name",
		Lead: func(l *Lead) *string { return &l.PageName }, Enriched: func(e *EnrichedProfile) *string { return &e.PageName }},

	// What only an enrichment gives (spec 2.5).
	{Key: "id", From: FromEnrichment, PG: "result_id",
		Enriched: func(e *EnrichedProfile) *string { return &e.ID }},
	{Key: "profileImgUrl", From: FromEnrichment, PG: "profile_img_url",
		Enriched: func(e *EnrichedProfile) *string { return &e.ProfileImgURL }},
	{Key: "email", From: FromEnrichment, Column: "email", Label: "E-mail", Default: true, PG: "email",
		Enriched: func(e *EnrichedProfile) *string { return &e.Email }},
	{Key: "validationStatus", From: FromEnrichment, Column: "validationStatus", Label: "E-mail status", Default: true, PG: "validation_status",
		Enriched: func(e *EnrichedProfile) *string { return &e.ValidationStatus }},
	{Key: "companyDomain", From: FromEnrichment, Column: "companyDomain", Label: "Company domain", Default: true, PG: "company_domain",
		Enriched: func(e *EnrichedProfile) *string { return &e.CompanyDomain }},
	{Key: "creditBalance", From: FromEnrichment, PG: "credit_balance",
		EnrichedInt: func(e *EnrichedProfile) *int { return &e.CreditBalance }},

	// What only a profile read gives (spec 2.4). The state and the pg
	// backend keep a profile whole, as JSON; the export writes the lists
	// and yes/no fields in a form of its own (internal/export).
	{Key: "description", From: FromProfile, Column: "description", Label: "Description",
		Profile: func(p *Profile) *string { return &p.Description }},
	{Key: "premiumProfile", From: FromProfile, Column: "premiumProfile", Label: "Premium profile"},
	{Key: "private", From: FromProfile, Column: "private", Label: "Private profile"},
	{Key: "currentPosition", From: FromProfile, Column: "currentPosition", Label: "Current position"},
	{Key: "workPositionTimeline", From: FromProfile, Column: "workHistory", Label: "Work history"},
	{Key: "profileImg", From: FromProfile,
		Profile: func(p *Profile) *string { return &p.ProfileImg }},
	{Key: "networkUrl", From: FromProfile,
		Profile: func(p *Profile) *string { return &p.NetworkURL }},
}

// PersonField is one field the service gives about a person: a row of
// PersonFields.
type PersonField struct {
	// Key is the field's key in the service's JSON ("previousTitle"), and
	// its key in the state, which keeps the service's objects as they came.
	Key string
	// From says which answers of the service carry the field.
	From Source

	// Lead, Enriched and Profile reach the field in each answer that has
	// it as a string, to read or to set it; nil for an answer without it.
	// A profile's lists and yes/no fields have no accessor: the state
	// keeps a profile whole. EnrichedInt reaches a whole number of an
	// enrichment (creditBalance).
	Lead        func(*Lead) *string
	Enriched    func(*EnrichedProfile) *string
	Profile     func(*Profile) *string
	EnrichedInt func(*EnrichedProfile) *int

	// Column is the name of the export column that shows the field ("" for
	// none): a sheet's columns and labels name it. Label is its header text,
	// words a person reads. Default puts it among the columns of a sheet
	// that names none.
	Column  string
	Label   string
	Default bool

	// Where makes the field an attribute of lead in a where expression
	// (lead.previousTitle): only fields every search result has, so that a
	// where never passes over people a plain search found.
	Where bool
	// Identity puts the field into the hash that names a lead with neither
	// networkId nor page name (state.PersonID), in table order. Changing
	// it for a field changes the ID such leads get from then on.
	Identity bool
	// Merge is how a newer answer about a person changes what the state
	// holds of the field (the lead fields only).
	Merge Merge
	// History makes a change of the field a change of the person's history
	// (state.Drift, whose field is Key): what a person shows of their job
	// and place. Lead fields only.
	History bool
	// PG is the field's column in the pg backend's people table (lead
	// fields) and enrichments table (enrichment fields). "" keeps it in the
	// row's extra column, as JSON: a new field needs no migration. A
	// profile is kept whole in the profile column.
	PG string
}

// Source is a set of the service's answers that carry a person field.
type Source uint8

// The answers.
const (
	FromLead       Source = 1 << iota // a search result (spec 2.2): the person's lead in the state
	FromProfile                       // a profile read (spec 2.4)
	FromEnrichment                    // an enrichment (spec 2.5)
)

func (s Source) String() string {
	var parts []string
	for _, x := range []struct {
		s    Source
		name string
	}{{FromLead, "lead"}, {FromProfile, "profile"}, {FromEnrichment, "enrichment"}} {
		if s&x.s != 0 {
			parts = append(parts, x.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}

// Merge is how a newer answer about a person changes a lead field the
// state holds.
type Merge uint8

// The ways of merging.
const (
	// MergeNewest: the newest non-empty value wins and an empty one never
	// erases a known one; when two records of one person are joined, the
	// one kept takes the other's value where it has none.
	MergeNewest Merge = iota
	// MergeName: as MergeNewest, but when two records of one person are
	// joined the names go as a pair (half of one person's name and half of
	// the other's would be nobody's).
	MergeName
	// MergeKey: the person's identity (networkId, page name), which the
	// fold keeps itself: a networkId that keys a person never changes.
	MergeKey
)

func (m Merge) String() string {
	switch m {
	case MergeNewest:
		return "newest"
	case MergeName:
		return "name"
	case MergeKey:
		return "key"
	}
	return "merge?"
}

// LeadFields are the rows of the fields of a Lead, and EnrichedFields those
// of an EnrichedProfile, each in the order of the struct's fields: the
// order in which encoding/json writes them, which the state file keeps.
var (
	LeadFields     = fieldsOf(reflect.TypeFor[Lead](), func(f *PersonField) bool { return f.Lead != nil })
	EnrichedFields = fieldsOf(reflect.TypeFor[EnrichedProfile](), func(f *PersonField) bool {
		return f.Enriched != nil || f.EnrichedInt != nil
	})
)

// fieldsOf returns the rows that have reaches, in the order of t's fields
// (their JSON keys); rows whose key t lacks come last, in table order.
// Reflection runs once, here: the accessors themselves are plain code.
func fieldsOf(t reflect.Type, has func(*PersonField) bool) []*PersonField {
	var out []*PersonField
	seen := map[*PersonField]bool{}
	for i := 0; i < t.NumField(); i++ {
		key, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		for _, f := range PersonFields {
			if f.Key == key && has(f) && !seen[f] {
				out = append(out, f)
				seen[f] = true
			}
		}
	}
	for _, f := range PersonFields {
		if has(f) && !seen[f] {
			out = append(out, f)
		}
	}
	return out
}

// FieldByColumn returns the row whose export column is name, nil when none.
func FieldByColumn(name string) *PersonField {
	if name == "" {
		return nil
	}
	for _, f := range PersonFields {
		if f.Column == name {
			return f
		}
	}
	return nil
}

// Lead returns the lead fields of an enriched profile.
func (e EnrichedProfile) Lead() Lead {
	var l Lead
	for _, f := range LeadFields {
		if f.Enriched != nil {
			*f.Lead(&l) = *f.Enriched(&e)
		}
	}
	return l
}
