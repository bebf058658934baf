package export

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// cellKind is the type of a column's cells; it decides how a cell is written
// (string, date, boolean, link) in XLSX and how it is spelled in CSV.
type cellKind int

// The cell kinds.
const (
	kindText   cellKind = iota // a string from data: never a formula
	kindTime                   // a date and time, UTC; zero time is an empty cell
	kindBool                   // true/false; empty when unknown
	kindLink                   // a URL: a working link in XLSX when it is http(s)
	kindNumber                 // a whole number; empty when unknown
)

func (k cellKind) String() string {
	switch k {
	case kindText:
		return "text"
	case kindTime:
		return "time"
	case kindBool:
		return "bool"
	case kindLink:
		return "link"
	case kindNumber:
		return "number"
	}
	return fmt.Sprintf("cellKind(%d)", int(k))
}

// cellValue is one value of a row. Only the field matching the column's kind
// is used; Empty marks a cell with no value (a bool, time or number that is
// unknown).
type cellValue struct {
	Text  string
	Time  time.Time
	Bool  bool
	Num   int64
	Empty bool
}

// column is how one named column gets its value from a person: value, or
// for columns that read the person's raw search result, raw.
type column struct {
	name  string
	kind  cellKind
	value func(p *state.Person, c *cellValue)
	// raw gets the person's raw node (nil when they have none), decoded
	// once per row whatever the number of such columns.
	raw func(p *state.Person, n *rawNode, c *cellValue)
}

// fill sets c to the column's value for p; rc holds p's raw node once
// decoded, for the next columns of the row.
func (col *column) fill(p *state.Person, rc *rawCache, c *cellValue) {
	if col.raw != nil {
		col.raw(p, rc.node(p), c)
		return
	}
	col.value(p, c)
}

// columnFor returns the column of a configured column name. tmpl is
// Settings.ProfileURLTemplate. It is long because it is the table of the
// columns with a form of their own, one short case per column, read as a
// list; every other person field's column comes from person.PersonFields.
func columnFor(name, tmpl string) (column, error) {
	text := func(f func(p *state.Person) string) column {
		return column{name: name, kind: kindText, value: func(p *state.Person, c *cellValue) { c.Text = f(p) }}
	}
	profileBool := func(f func(pr *person.Profile) bool) column {
		return column{name: name, kind: kindBool, value: func(p *state.Person, c *cellValue) {
			if p.Profile == nil {
				c.Empty = true
				return
			}
			c.Bool = f(p.Profile)
		}}
	}
	rawCol := func(f func(n *rawNode) string) column {
		return column{name: name, kind: kindText, raw: func(_ *state.Person, n *rawNode, c *cellValue) {
			if n != nil {
				c.Text = f(n)
			}
		}}
	}
	rawNumber := func(f func(n *rawNode) json.RawMessage) column {
		return column{name: name, kind: kindNumber, raw: func(_ *state.Person, n *rawNode, c *cellValue) {
			if n == nil {
				c.Empty = true
				return
			}
			c.Num, c.Empty = 0, true
			if v, ok := rawInt(f(n)); ok {
				c.Num, c.Empty = v, false
			}
		}}
	}
	// The columns of person fields shown in a form of their own; every
	// other person field's column shows its text (fieldText), and the
	// columns after these show what the state knows beyond the fields.
	switch name {
	case "email":
		// An e-mail that is not current (of a former employer, of someone
		// who left the network) is never shown as current.
		return text(func(p *state.Person) string { return p.CurrentEmail() }), nil
	case "validationStatus":
		return text(whereStatus), nil
	case "companyDomain":
		return text(func(p *state.Person) string {
			if p.Enrichment == nil || p.EmailStale() {
				return ""
			}
			return p.Enrichment.Result.CompanyDomain
		}), nil
	case "premiumProfile":
		return profileBool(func(pr *person.Profile) bool { return pr.PremiumProfile }), nil
	case "private":
		// The latest read's word, a track's too: its profile may be older.
		return column{name: name, kind: kindBool, value: func(p *state.Person, c *cellValue) {
			c.Bool, c.Empty = false, true
			if priv, known := p.Private(); known {
				c.Bool, c.Empty = priv, false
			}
		}}, nil
	case "currentPosition":
		return text(func(p *state.Person) string {
			if p.Profile == nil {
				return ""
			}
			return formatPositions(p.Profile.CurrentPosition)
		}), nil
	case "workHistory":
		return text(func(p *state.Person) string {
			if p.Profile == nil {
				return ""
			}
			return formatTimeline(p.Profile.WorkPositionTimeline)
		}), nil
	case "enrichedAt":
		return column{name: name, kind: kindTime, value: func(p *state.Person, c *cellValue) {
			if p.Enrichment == nil {
				c.Empty = true
				return
			}
			c.Time = p.Enrichment.EnrichedAt
		}}, nil
	case "profileUrl":
		return column{name: name, kind: kindLink, value: func(p *state.Person, c *cellValue) { c.Text = profileURL(p, tmpl) }}, nil
	case "foundIn":
		return text(func(p *state.Person) string { return strings.Join(p.FoundBy, ", ") }), nil
	case "firstSeen":
		return column{name: name, kind: kindTime, value: func(p *state.Person, c *cellValue) { c.Time = p.FirstSeen }}, nil
	case "lastSeen":
		return column{name: name, kind: kindTime, value: func(p *state.Person, c *cellValue) { c.Time = p.LastSeen }}, nil
	case "photoUrl":
		return column{name: name, kind: kindLink, raw: func(p *state.Person, n *rawNode, c *cellValue) { c.Text = photoURL(p, n) }}, nil
	case "topSkills":
		return rawCol((*rawNode).topSkills), nil
	case "experience":
		return rawCol(func(n *rawNode) string { return n.occupations("WORK_EXPERIENCE") }), nil
	case "education":
		return rawCol(func(n *rawNode) string { return n.occupations("EDUCATION") }), nil
	case "highlights":
		return rawCol((*rawNode).highlights), nil
	case "permissions":
		return rawCol((*rawNode).permissions), nil
	case "contactsCount":
		return rawNumber(func(n *rawNode) json.RawMessage { return n.ContactsCount.Count }), nil
	case "sharedContacts":
		return rawNumber(func(n *rawNode) json.RawMessage { return n.SharedContacts.Total }), nil
	case "contactDistance":
		return rawNumber(func(n *rawNode) json.RawMessage { return n.ContactDistance.Distance }), nil
	}
	if f := person.FieldByColumn(name); f != nil && (f.Lead != nil || f.Enriched != nil || f.Profile != nil) {
		return text(fieldText(f)), nil
	}
	known := append(append([]string(nil), config.DefaultColumns...), config.ExtraColumns...)
	return column{}, fmt.Errorf("unknown column %q; known columns are %s", name, strings.Join(known, ", "))
}

// fieldText reads a person field (a row of person.PersonFields) of a person:
// from the lead the searches gave, else from the enrichment, which carries
// the same fields (a person known only from a profile read has an almost
// empty lead), else from the profile read.
func fieldText(f *person.PersonField) func(p *state.Person) string {
	return func(p *state.Person) string {
		if f.Lead != nil {
			if s := *f.Lead(&p.Lead); s != "" {
				return s
			}
		}
		if f.Enriched != nil && p.Enrichment != nil {
			if s := *f.Enriched(&p.Enrichment.Result); s != "" {
				return s
			}
		}
		if f.Profile != nil && p.Profile != nil {
			return *f.Profile(p.Profile)
		}
		return ""
	}
}

// profileURL is the link to a person's profile: the configured template with
// the page name filled in, else the networkUrl of a profile read, else "".
func profileURL(p *state.Person, tmpl string) string {
	if tmpl != "" {
		pn := p.Lead.PageName
		if pn == "" && p.Enrichment != nil {
			pn = p.Enrichment.Result.PageName
		}
		if pn != "" {
			return strings.ReplaceAll(tmpl, "{pageName}", url.PathEscape(pn))
		}
	}
	if p.Profile != nil {
		return p.Profile.NetworkURL
	}
	return ""
}

// formatPositions writes current positions as "Title at Company (since)",
// separated by "; ".
func formatPositions(ps []person.Position) string {
	var parts []string
	for _, pos := range ps {
		s := pos.JobTitle
		switch {
		case s != "" && pos.Company != "":
			s += " at " + pos.Company
		case s == "":
			s = pos.Company
		}
		if pos.Date != "" {
			s += " (" + pos.Date + ")"
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "; ")
}

// formatTimeline writes a profile's work history, one position after the
// other as the service lists them, separated by "; ":
// "CTO at Acme (Mar 2019 – Jan 2022); Founder at Muster AG (since Feb 2022)".
// A position without a start date shows its date text instead.
func formatTimeline(ts []person.TimelinePosition) string {
	var parts []string
	for _, pos := range ts {
		s := strings.TrimSpace(pos.JobTitle)
		company := strings.TrimSpace(pos.Company)
		switch {
		case s != "" && company != "":
			s += " at " + company
		case s == "":
			s = company
		}
		start := strings.TrimSpace(pos.StartDate)
		end := ""
		if pos.EndDate != nil {
			end = strings.TrimSpace(*pos.EndDate)
		}
		var when string
		switch {
		case start != "" && end != "":
			when = start + " – " + end
		case start != "" && pos.EndDate == nil:
			when = "since " + start
		case start != "":
			when = "from " + start // ended, end date not given
		case end != "":
			when = "until " + end
		default:
			when = strings.TrimSpace(pos.Date)
		}
		if when != "" {
			if s == "" {
				s = when
			} else {
				s += " (" + when + ")"
			}
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, listSep)
}

// photoURL is the person's avatar: the enrichment's profileImgUrl, else the
// profile read's profileImg, else the largest image of the raw result.
func photoURL(p *state.Person, n *rawNode) string {
	if p.Enrichment != nil {
		if u := strings.TrimSpace(p.Enrichment.Result.ProfileImgURL); u != "" {
			return u
		}
	}
	if p.Profile != nil {
		if u := strings.TrimSpace(p.Profile.ProfileImg); u != "" {
			return u
		}
	}
	if n != nil {
		return n.largestImage()
	}
	return ""
}

// foundInColumn is the Found in column: the searches and profiles that
// found the person, each by its label where it sets one (words for the
// sheet's readers), else by its address; a label shared by several
// instances is shown once.
func foundInColumn(cfg *config.Config) column {
	labels := cfg.Labels()
	if len(labels) == 0 {
		c, _ := columnFor("foundIn", "")
		return c
	}
	return column{name: "foundIn", kind: kindText, value: func(p *state.Person, c *cellValue) {
		names := make([]string, 0, len(p.FoundBy))
		for _, a := range p.FoundBy {
			name := a
			if l, ok := labels[a]; ok {
				name = l
			}
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		c.Text = strings.Join(names, ", ")
	}}
}

// NotFound is leadsync's one name of the service's validation status
// "empty" (no e-mail address was found): words for the people who read
// them, in the sheets, the terminal (apply's progress and summary, show)
// and a sheet's where (person.validationStatus == "not found"). State and
// the JSON documents keep the service's "empty".
const NotFound = "not found"

// StatusText is a validation status as the spreadsheets write it: the
// service's "empty", or no status at all from an enrichment, is "not
// found"; any other status as the service sent it.
// FormerEmployer is the validation status shown for a person whose
// company changed after their enrichment: their e-mail and domain are
// the old employer's, kept in the history and never shown as current.
const FormerEmployer = state.EmailFormerEmployer

// LeftNetwork is the validation status shown for a person whose profile
// a read found gone after their enrichment: their e-mail is kept and
// never shown as current (their company and its domain, the last known,
// stay).
const LeftNetwork = state.EmailLeftNetwork

func StatusText(status string) string {
	if status == person.StatusEmpty || status == "" {
		return NotFound
	}
	return status
}
