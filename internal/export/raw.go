package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// rawNode is what the columns of raw search results read from the raw item a
// person's state holds (state.Person.Raw: the item as the service sent it,
// spec 2.3). It is decoded leniently: the item was already accepted when it
// was recorded, the spec leaves several types open (items of topSkills) and a
// field of an unexpected type must cost that field, not the row. Numbers stay
// raw so that a missing or null count is told apart from 0.
type rawNode struct {
	NetworkID struct {
		Occupations  []rawOccupation `json:"occupations"`
		ProfileImage []struct {
			URL string `json:"url"`
		} `json:"profileImage"`
	} `json:"networkId"`
	Highlight     map[string]json.RawMessage `json:"highlight"`
	ProfileSkills struct {
		TopSkills []json.RawMessage `json:"topSkills"`
	} `json:"profileSkills"`
	SharedContacts struct {
		Total json.RawMessage `json:"total"`
	} `json:"sharedContacts"`
	ContactsCount struct {
		Count json.RawMessage `json:"count"`
	} `json:"contactsCount"`
	ContactDistance struct {
		Distance json.RawMessage `json:"distance"`
	} `json:"contactDistance"`
	NetworkRelationship struct {
		Permissions []json.RawMessage `json:"permissions"`
	} `json:"networkRelationship"`
}

type rawOccupation struct {
	Category string `json:"category"`
	Summary  string `json:"summary"`
}

// rawCache decodes a person's raw item once per row, however many columns
// read it.
type rawCache struct {
	p *state.Person
	n *rawNode
}

// node returns p's raw node, nil when p has no raw item (no raw search found
// them) or it holds no object.
func (c *rawCache) node(p *state.Person) *rawNode {
	if c.p == p {
		return c.n
	}
	c.p, c.n = p, decodeRaw(p.Raw)
	return c.n
}

// decodeRaw decodes a stored raw item ({"cursor", "node"}); nil when there is
// none. Fields of unexpected types are left empty (encoding/json goes on past
// a type mismatch); text that is not JSON gives nil.
func decodeRaw(b json.RawMessage) *rawNode {
	if len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	var item struct {
		Node *rawNode `json:"node"`
	}
	if err := json.Unmarshal(b, &item); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			return nil
		}
	}
	return item.Node
}

// rawText is a text of the raw result as shown: highlight markers removed,
// white space at the ends trimmed.
func rawText(s string) string {
	return strings.TrimSpace(api.StripHighlight(s))
}

// listSep joins the items of a list in one cell, as the Summary joins the
// values of a filter: values such as "Banking, Finance" contain commas.
const listSep = "; "

// occupations joins the summaries of the occupations of one category
// (WORK_EXPERIENCE, EDUCATION), in the service's order.
func (n *rawNode) occupations(category string) string {
	var out []string
	for _, o := range n.NetworkID.Occupations {
		if o.Category == category {
			if s := rawText(o.Summary); s != "" {
				out = append(out, s)
			}
		}
	}
	return strings.Join(out, listSep)
}

// skillKeys are the fields an object item of topSkills is read by, in
// order: the spec does not give the type of the items.
var skillKeys = []string{"name", "skill", "displayName", "label", "title", "value"}

// topSkills joins the top skills. An item is a string (as seen), or else a
// number or boolean as written, or an object's first string field of
// skillKeys; anything else is shown as compact JSON rather than dropped.
func (n *rawNode) topSkills() string {
	var out []string
	for _, it := range n.ProfileSkills.TopSkills {
		if s := rawText(jsonItemText(it, skillKeys)); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, listSep)
}

// permissions joins networkRelationship.permissions as sent
// (MESSAGE; VIEW_CONTACT_DETAILS).
func (n *rawNode) permissions() string {
	var out []string
	for _, it := range n.NetworkRelationship.Permissions {
		if s := rawText(jsonItemText(it, nil)); s != "" {
			out = append(out, s)
		}
	}
	return strings.Join(out, listSep)
}

// jsonItemText is the text of one JSON value of a list: a string as it is,
// null as nothing, an object by the first of keys holding a string, and
// any other value as compact JSON.
func jsonItemText(v json.RawMessage, keys []string) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil {
			for _, k := range keys {
				var s string
				if json.Unmarshal(m[k], &s) == nil && strings.TrimSpace(s) != "" {
					return s
				}
			}
		}
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) != nil {
		return ""
	}
	return buf.String()
}

// rawInt reads a count of the raw result: ok is false when it is missing,
// null, not a number or not a whole number (then unknown, never 0).
func rawInt(v json.RawMessage) (int64, bool) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || v[0] == '"' || string(v) == "null" {
		return 0, false
	}
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		return n, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f > 1<<53 || f < -(1<<53) || f != float64(int64(f)) {
		return 0, false
	}
	return int64(f), true
}

// highlightLabels name the highlight keys of spec 2.3 in words; the order
// is the order of the cell. Keys the spec does not list come after them,
// sorted, under their own name.
var highlightLabels = []struct{ key, label string }{
	{"currentTitle", "Title"},
	{"previousTitle", "Previous title"},
	{"currentCompany", "Company"},
	{"previousCompany", "Previous company"},
	{"haves", "Skills"},
	{"wants", "Wants"},
	{"interests", "Interests"},
	{"education", "Education"},
	{"qualifications", "Qualifications"},
	{"awards", "Awards"},
	{"organizations", "Organizations"},
	{"currentIndustries", "Industry"},
	{"previousIndustries", "Previous industry"},
	{"city", "City"},
	{"province", "Province"},
	{"country", "Country"},
	{"zipCode", "Zip code"},
	{"currentNotes", "Notes"},
	{"portfolioTilesTitle", "Portfolio title"},
	{"portfolioTilesPlainContent", "Portfolio"},
}

// highlightSep separates the fields of the highlights cell; the texts of
// one field are joined with listSep (as the Summary writes filters).
const highlightSep = " | "

// highlights writes what the search matched, field by field:
// "Title: Chief Technology Officer | Skills: Go; Kubernetes", markers
// removed. Null and empty fields are left out.
func (n *rawNode) highlights() string {
	if len(n.Highlight) == 0 {
		return ""
	}
	var parts []string
	add := func(label string, v json.RawMessage) {
		var items []json.RawMessage
		if json.Unmarshal(v, &items) != nil {
			// Not an array: one value (a string), or nothing.
			items = []json.RawMessage{v}
		}
		var texts []string
		for _, it := range items {
			if s := rawText(jsonItemText(it, nil)); s != "" {
				texts = append(texts, s)
			}
		}
		if len(texts) > 0 {
			parts = append(parts, label+": "+strings.Join(texts, listSep))
		}
	}
	known := map[string]bool{}
	for _, h := range highlightLabels {
		known[h.key] = true
		if v, ok := n.Highlight[h.key]; ok {
			add(h.label, v)
		}
	}
	var other []string
	for k := range n.Highlight {
		if !known[k] {
			other = append(other, k)
		}
	}
	slices.Sort(other)
	for _, k := range other {
		add(rawText(k), n.Highlight[k])
	}
	return strings.Join(parts, highlightSep)
}

// imageSize finds the size an avatar URL names ("..._256x256.jpg").
var imageSize = regexp.MustCompile(`(\d{1,5})x(\d{1,5})`)

// largestImage is the URL of the largest avatar: the one whose URL names the
// biggest size (width times height); without sizes in the URLs, the last
// one (the spec gives one image per size, order not stated). Empty when
// there is none.
func (n *rawNode) largestImage() string {
	best, bestArea := "", int64(-1)
	for _, im := range n.NetworkID.ProfileImage {
		u := strings.TrimSpace(im.URL)
		if u == "" {
			continue
		}
		area := int64(0)
		for _, m := range imageSize.FindAllStringSubmatch(u, -1) {
			w, _ := strconv.ParseInt(m[1], 10, 64)
			h, _ := strconv.ParseInt(m[2], 10, 64)
			area = max(area, w*h)
		}
		if area >= bestArea {
			best, bestArea = u, area
		}
	}
	return best
}
