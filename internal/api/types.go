package api

import (
	"encoding/json"
	"strings"

	"github.com/leadsync/leadsync/internal/person"
)

// Generation selects one of the two generations of the service.
type Generation int

const (
	// Gen1 is the first generation, {base_url}/v1/...: every operation.
	Gen1 Generation = 1
	// Gen2 is the second generation, {base_url_v2}/...: search and profile read only.
	Gen2 Generation = 2
)

func (g Generation) String() string {
	switch g {
	case Gen1:
		return "generation 1"
	case Gen2:
		return "generation 2"
	}
	return "generation ?"
}

// Field is one descriptor of the searchable-field list (spec 2.1).
type Field struct {
	FieldName       string   `json:"field_name"`
	SearchParameter string   `json:"search_parameter"`
	Type            string   `json:"type"` // "text" or "array"
	PossibleValues  []string `json:"possible_values,omitempty"`
}

// Field types.
const (
	FieldText  = "text"
	FieldArray = "array"
)

// RawLead is one raw search result of the first generation (spec 2.3).
// Raw holds the item exactly as received, unknown fields included; the typed
// fields are decoded from it.
type RawLead struct {
	Cursor string          `json:"cursor"`
	Node   RawNode         `json:"node"`
	Raw    json.RawMessage `json:"-"`
}

// UnmarshalJSON decodes the typed fields and keeps the bytes in Raw.
func (r *RawLead) UnmarshalJSON(b []byte) error {
	type plain RawLead
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*r = RawLead(p)
	r.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// MarshalJSON writes Raw when present (nothing dropped), else the typed fields.
func (r RawLead) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain RawLead
	return json.Marshal(plain(r))
}

// RawNode is the "node" object of a raw lead.
type RawNode struct {
	NetworkID           RawMember           `json:"networkId"`
	Highlight           map[string][]string `json:"highlight"`
	TrackingToken       string              `json:"trackingToken"`
	Position            int                 `json:"position"`
	Contains            json.RawMessage     `json:"contains"`
	Missing             json.RawMessage     `json:"missing"`
	ProfileSkills       RawProfileSkills    `json:"profileSkills"`
	SharedContacts      RawTotal            `json:"sharedContacts"`
	ContactsCount       RawCount            `json:"contactsCount"`
	NetworkRelationship RawRelationship     `json:"networkRelationship"`
	ContactDistance     RawDistance         `json:"contactDistance"`
}

// RawMember is node.networkId of a raw lead: the member's public data.
type RawMember struct {
	ID                string            `json:"id"`
	DisplayName       string            `json:"displayName"`
	DisplayFlag       string            `json:"displayFlag"`
	Location          RawLocation       `json:"location"`
	ProfileOccupation RawOccupationOrg  `json:"profileOccupation"`
	Occupations       []RawOccupation   `json:"occupations"`
	PageName          string            `json:"pageName"`
	ProfileImage      []RawProfileImage `json:"profileImage"`
}

// RawLocation is node.networkId.location.
type RawLocation struct {
	DisplayLocation string `json:"displayLocation"`
}

// RawOccupationOrg is node.networkId.profileOccupation.
type RawOccupationOrg struct {
	OccupationOrg string `json:"occupationOrg"`
}

// RawOccupation is one item of node.networkId.occupations.
type RawOccupation struct {
	Category string          `json:"category"` // WORK_EXPERIENCE, EDUCATION, ...
	Summary  string          `json:"summary"`
	Links    json.RawMessage `json:"links"`
}

// RawProfileImage is one size of the avatar.
type RawProfileImage struct {
	URL string `json:"url"`
}

// RawProfileSkills is node.profileSkills.
type RawProfileSkills struct {
	TopSkills []json.RawMessage `json:"topSkills"`
}

// RawTotal is node.sharedContacts.
type RawTotal struct {
	Total int `json:"total"`
}

// RawCount is node.contactsCount.
type RawCount struct {
	Count int `json:"count"`
}

// RawRelationship is node.networkRelationship.
type RawRelationship struct {
	Permissions []string `json:"permissions"`
}

// RawDistance is node.contactDistance.
type RawDistance struct {
	Distance int `json:"distance"`
}

// Lead derives the simplified lead from a raw one, so that raw searches feed
// the same people, enrichments and exports as plain ones. Highlight markers
// (double asterisks) are removed. A raw result has no first and last name,
// only displayName: FirstName and LastName stay empty rather than carry a
// guess that would pass for the service's own (the state fills a person's
// missing names from the full name, see person.SplitFullName).
func (r RawLead) Lead() person.Lead {
	m := r.Node.NetworkID
	l := person.Lead{
		FullName:  StripHighlight(m.DisplayName),
		Location:  StripHighlight(m.Location.DisplayLocation),
		Company:   StripHighlight(m.ProfileOccupation.OccupationOrg),
		NetworkID: m.ID,
		PageName:  m.PageName,
	}
	var work []string
	for _, o := range m.Occupations {
		if o.Category == "WORK_EXPERIENCE" {
			work = append(work, StripHighlight(o.Summary))
		}
	}
	if len(work) > 0 {
		l.Title = work[0]
	}
	if len(work) > 1 {
		l.PreviousTitle = work[1]
	}
	return l
}

// StripHighlight removes the double-asterisk markers the service wraps around
// matched terms.
func StripHighlight(s string) string {
	return strings.ReplaceAll(s, "**", "")
}

// Usage is the result of billing (spec 2.6).
type Usage struct {
	RemainingRequests  int    `json:"Remaining requests this month"`
	InvoicingStartDate string `json:"Invoicing start date"`
}

// SearchRequest is the body of a search. Params holds the search parameters
// by their service names (keywords, searchUrl, city, industryFilter, ...):
// strings for text fields, []string for array fields. Raw is sent only when
// true, and only in the first generation.
type SearchRequest struct {
	Params map[string]any
	Raw    bool
}

// MarshalJSON writes the flat request body the service expects, keys sorted.
func (r SearchRequest) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(r.Params)+1)
	for k, v := range r.Params {
		m[k] = v
	}
	if r.Raw {
		m["raw"] = true
	}
	return json.Marshal(m)
}

// SearchResult is what a search returned: Leads always (derived from Raw for
// raw searches), Raw only for raw searches.
type SearchResult struct {
	Leads []person.Lead
	Raw   []RawLead
}

// PageRequest names one profile, for the profile read and enrich: exactly one
// of PageName and ProfileURL is set.
type PageRequest struct {
	PageName   string `json:"pageName,omitempty"`
	ProfileURL string `json:"profileUrl,omitempty"`
}

// MaxResults is the network's cap on the results of one search.
const MaxResults = 300
