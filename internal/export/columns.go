package export

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// cellKind is the type of a column's cells; it decides how a cell is written
// (string, date, boolean, link) in XLSX and how it is spelled in CSV.
type cellKind int

// The cell kinds.
const (
	kindText cellKind = iota // a string from data: never a formula
	kindTime                 // a date and time, UTC; zero time is an empty cell
	kindBool                 // true/false; empty when unknown
	kindLink                 // a URL: a working link in XLSX when it is http(s)
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
	}
	return fmt.Sprintf("cellKind(%d)", int(k))
}

// cellValue is one value of a row. Only the field matching the column's kind
// is used; Empty marks a cell with no value (a bool or time that is unknown).
type cellValue struct {
	Text  string
	Time  time.Time
	Bool  bool
	Empty bool
}

// column is how one named column gets its value from a person.
type column struct {
	name  string
	kind  cellKind
	value func(p *state.Person, c *cellValue)
}

// columnFor returns the column of a configured column name. tmpl is
// Settings.ProfileURLTemplate.
func columnFor(name, tmpl string) (column, error) {
	text := func(f func(p *state.Person) string) column {
		return column{name: name, kind: kindText, value: func(p *state.Person, c *cellValue) { c.Text = f(p) }}
	}
	enrich := func(f func(e *api.EnrichedProfile) string) column {
		return text(func(p *state.Person) string {
			if p.Enrichment == nil {
				return ""
			}
			return f(&p.Enrichment.Result)
		})
	}
	profileBool := func(f func(pr *api.Profile) bool) column {
		return column{name: name, kind: kindBool, value: func(p *state.Person, c *cellValue) {
			if p.Profile == nil {
				c.Empty = true
				return
			}
			c.Bool = f(p.Profile)
		}}
	}
	switch name {
	case "firstName":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.FirstName }) }), nil
	case "lastName":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.LastName }) }), nil
	case "fullName":
		return text(func(p *state.Person) string {
			if s := leadField(p, func(l api.Lead) string { return l.FullName }); s != "" {
				return s
			}
			if p.Profile != nil {
				return p.Profile.FullName
			}
			return ""
		}), nil
	case "title":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.Title }) }), nil
	case "location":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.Location }) }), nil
	case "previousTitle":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.PreviousTitle }) }), nil
	case "company":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.Company }) }), nil
	case "networkId":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.NetworkID }) }), nil
	case "pageName":
		return text(func(p *state.Person) string { return leadField(p, func(l api.Lead) string { return l.PageName }) }), nil
	case "email":
		return enrich(func(e *api.EnrichedProfile) string { return e.Email }), nil
	case "validationStatus":
		return enrich(func(e *api.EnrichedProfile) string { return e.ValidationStatus }), nil
	case "companyDomain":
		return enrich(func(e *api.EnrichedProfile) string { return e.CompanyDomain }), nil
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
	case "description":
		return text(func(p *state.Person) string {
			if p.Profile == nil {
				return ""
			}
			return p.Profile.Description
		}), nil
	case "premiumProfile":
		return profileBool(func(pr *api.Profile) bool { return pr.PremiumProfile }), nil
	case "private":
		return profileBool(func(pr *api.Profile) bool { return pr.Private }), nil
	case "currentPosition":
		return text(func(p *state.Person) string {
			if p.Profile == nil {
				return ""
			}
			return formatPositions(p.Profile.CurrentPosition)
		}), nil
	}
	known := append(append([]string(nil), config.DefaultColumns...), config.ExtraColumns...)
	return column{}, fmt.Errorf("unknown column %q; known columns are %s", name, strings.Join(known, ", "))
}

// leadField reads a lead field of a person: from the lead the searches gave,
// else from the enrichment, which carries the same fields (a person known only
// from a profile read has an almost empty lead).
func leadField(p *state.Person, f func(api.Lead) string) string {
	if s := f(p.Lead); s != "" {
		return s
	}
	if p.Enrichment != nil {
		return f(p.Enrichment.Result.Lead())
	}
	return ""
}

// profileURL is the link to a person's profile: the configured template with
// the page name filled in, else the networkUrl of a profile read, else "".
func profileURL(p *state.Person, tmpl string) string {
	if tmpl != "" {
		if pn := leadField(p, func(l api.Lead) string { return l.PageName }); pn != "" {
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
func formatPositions(ps []api.Position) string {
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
