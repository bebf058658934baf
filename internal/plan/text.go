package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// maxDetail bounds the length of a request summary in a change's detail.
const maxDetail = 80

// paramKeys returns the keys of a request, keywords and searchUrl first.
func paramKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	rank := func(k string) int {
		switch k {
		case "keywords":
			return 0
		case "searchUrl":
			return 1
		}
		return 2
	}
	sort.Slice(keys, func(i, j int) bool {
		ri, rj := rank(keys[i]), rank(keys[j])
		if ri != rj {
			return ri < rj
		}
		return keys[i] < keys[j]
	})
	return keys
}

// describeRequest summarises a search request as attribute="value" pairs.
func describeRequest(r api.SearchRequest) string {
	var parts []string
	for _, k := range paramKeys(r.Params) {
		parts = append(parts, api.AttributeName(k)+"="+jsonText(r.Params[k]))
	}
	if r.Raw {
		parts = append(parts, "raw=true")
	}
	return joinParts(parts, " ", maxDetail)
}

// joinParts joins parts (each "name=value" or "name ...") with sep,
// keeping whole parts while they fit in about n characters. A value is
// never cut in the middle, and the attributes left out are named, so the
// reader knows that more is set and what: `keywords="CTO" city="Berlin"
// (+ industry_filter, level_filter)`. Only a first part longer than n
// alone is cut.
func joinParts(parts []string, sep string, n int) string {
	if len(parts) == 0 {
		return ""
	}
	if len(parts[0]) > n {
		return truncate(parts[0], n) + omitted(parts[1:])
	}
	used := len(parts[0])
	i := 1
	for ; i < len(parts); i++ {
		if used+len(sep)+len(parts[i]) > n {
			break
		}
		used += len(sep) + len(parts[i])
	}
	return strings.Join(parts[:i], sep) + omitted(parts[i:])
}

// omitted names the attributes of parts left out of a summary.
func omitted(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	names := make([]string, len(parts))
	for i, p := range parts {
		name, _, _ := strings.Cut(p, "=")
		name, _, _ = strings.Cut(name, " ")
		names[i] = name
	}
	return " (+ " + strings.Join(names, ", ") + ")"
}

// describePage names the profile a profile block reads.
func describePage(p *config.Profile) string {
	if p.Request.ProfileURL != "" {
		return truncate("profile_url="+jsonText(p.Request.ProfileURL), maxDetail)
	}
	return truncate("page_name="+jsonText(p.Request.PageName), maxDetail)
}

// jsonText writes v as JSON without HTML escapes (a URL keeps its &).
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// diffRequest names what changed between the request of the last run and
// the request as configured now.
func diffRequest(old json.RawMessage, now api.SearchRequest) string {
	var o, n map[string]any
	if json.Unmarshal(old, &o) != nil {
		return "the request"
	}
	nb, _ := json.Marshal(now)
	if json.Unmarshal(nb, &n) != nil {
		return "the request"
	}
	keys := map[string]bool{}
	for k := range o {
		keys[k] = true
	}
	for k := range n {
		keys[k] = true
	}
	var parts []string
	for _, k := range paramKeys(keys) {
		ov, inOld := o[k]
		nv, inNew := n[k]
		ob, _ := json.Marshal(ov)
		nbk, _ := json.Marshal(nv)
		switch {
		case !inOld:
			parts = append(parts, api.AttributeName(k)+" added")
		case !inNew:
			parts = append(parts, api.AttributeName(k)+" removed")
		case bytes.Equal(ob, nbk):
			continue
		default:
			_, os := ov.(string)
			_, ns := nv.(string)
			if os && ns {
				parts = append(parts, fmt.Sprintf("%s %s -> %s", api.AttributeName(k), jsonText(ov), jsonText(nv)))
			} else {
				parts = append(parts, api.AttributeName(k)+" changed")
			}
		}
	}
	if len(parts) == 0 {
		return "the request"
	}
	return joinParts(parts, ", ", maxDetail)
}

// truncate shortens s to about n characters, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8Start(s[cut]) {
		cut--
	}
	return s[:cut] + " ..."
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// oneLine returns the first line of a message, shortened.
func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return truncate(s, 100)
}

// ago says how long before now t was.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case t.IsZero():
		return "at an unknown time"
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h ago", int(d/time.Hour))
	}
	return fmt.Sprintf("%d days ago", int(d/(24*time.Hour)))
}

// Ago writes how long before now t was, as the plan's details do: "just
// now", "5 min ago", "2 h ago", "3 days ago".
func Ago(now, t time.Time) string { return ago(now, t) }

// formatDuration writes a refresh duration the way the configuration does.
func formatDuration(d time.Duration) string {
	const day = 24 * time.Hour
	switch {
	case d%day == 0:
		return fmt.Sprintf("%dd", d/day)
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return d.String()
}

// The package's short names for the shared text helpers (one
// implementation, in textfmt): thousands writes 9,114; plural writes
// "1 lead", "9,114 leads" with the forms given.
var (
	thousands = textfmt.Thousands
	plural    = textfmt.Count
)

// redact removes the API key and the values of sensitive variables from the
// details of a plan: a plan is printed and may be saved, and must hold no
// secret. Configuration values reach details only through search and
// profile parameters, so this catches a sensitive variable used there.
func redact(cfg *config.Config, p *Plan) {
	var secrets []string
	add := func(s string) {
		if s != "" {
			secrets = append(secrets, s)
		}
	}
	add(cfg.API.APIKey)
	for _, v := range cfg.Variables {
		if v.Sensitive {
			ctyStrings(v.Value, add)
		}
	}
	// A value printed with JSON escapes, too.
	values := len(secrets)
	for _, s := range secrets[:values] {
		if q, err := json.Marshal(s); err == nil {
			if esc := strings.Trim(string(q), `"`); esc != s {
				secrets = append(secrets, esc)
			}
		}
	}
	for _, c := range p.Changes {
		c.Detail = cfg.Scrub(c.Detail, secrets...)
	}
}

// ctyStrings calls add with every string inside v.
func ctyStrings(v cty.Value, add func(string)) {
	if v.IsNull() || !v.IsKnown() {
		return
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		add(v.AsString())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			ctyStrings(e, add)
		}
	}
}
