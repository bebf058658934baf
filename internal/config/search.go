package config

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// fixed search attributes besides the catalog's filters.
var searchFixed = []string{"for_each", "count", "keywords", "search_url", "raw", "max_results", "refresh", "split_by", "label"}

// fieldAttrs are the attribute names of the catalog's fields, in its
// order, worked out once.
func (l *loader) fieldAttrs() []string {
	if l.catAttrs == nil {
		l.catAttrs = make([]string, len(l.cat.Fields))
		for i, f := range l.cat.Fields {
			l.catAttrs[i] = catalog.AttributeName(f.SearchParameter)
		}
	}
	return l.catAttrs
}

func (l *loader) searchBodySchema() *hcl.BodySchema {
	if l.searchSchema == nil {
		l.searchSchema, _ = l.newSearchSchema()
	}
	return l.searchSchema
}

func (l *loader) newSearchSchema() (*hcl.BodySchema, []string) {
	names := append([]string{}, searchFixed...)
	for _, f := range l.cat.Fields {
		n := catalog.AttributeName(f.SearchParameter)
		if !contains(names, n) {
			names = append(names, n)
		}
	}
	s := &hcl.BodySchema{}
	for _, n := range names {
		s.Attributes = append(s.Attributes, hcl.AttributeSchema{Name: n})
	}
	return s, names
}

// decodeSearch decodes a search block into one Search per instance.
func (l *loader) decodeSearch(b *hcl.Block) {
	if l.skip[b] {
		return
	}
	content, meant := l.content(b, l.searchBodySchema(), "A search block")
	info := l.blocks["search."+b.Labels[0]]
	at := content.Attributes
	l.cfg.blockAddrs = append(l.cfg.blockAddrs, l.blockAddr(kind.Search, b.Labels[0], ""))
	for _, in := range l.expand(b, content, info) {
		s := &Search{Address: in.addr, Addr: l.blockAddr(kind.Search, b.Labels[0], in.akey), Block: l.prefix + "search." + b.Labels[0], Name: b.Labels[0], Module: l.modulePath(), DeclRange: b.DefRange,
			Request: api.SearchRequest{Params: map[string]any{}}}
		kwState := l.searchFilters(s, at, in)
		urlState, urlArrays := l.searchURL(s, at, in)
		switch {
		case kwState == absent && urlState == absent && (meant["keywords"] || meant["search_url"]):
			// Misspelt: that error is the one to fix.
		case kwState == absent && urlState == absent:
			l.errorf(b.DefRange.Ptr(), "Missing keywords or search_url",
				"A search needs keywords (like keywords = \"CTO\") or a search_url whose query carries keywords; the service refuses a search with neither.")
		case kwState == ok && urlState == ok:
			l.errorf(at["search_url"].Expr.Range().Ptr(), "Both keywords and search_url",
				"The service takes keywords or a search URL (which carries its own keywords), not both; remove one.")
		}
		if v, astate := l.boolAttr(at["raw"], in.ctx, in.sc); astate == ok {
			s.Request.Raw = v
			if v {
				l.rawAttrs = append(l.rawAttrs, at["raw"])
			}
		}
		l.splitBy(s, at["split_by"], in, urlArrays)
		l.maxResults(s, at, in)
		if d, astate := l.durationAttr(at["refresh"], in.ctx, in.sc); astate == ok {
			s.Refresh = d
		}
		s.Label = l.label(at["label"], in)
		l.cfg.Searches = append(l.cfg.Searches, s)
	}
}

// searchFilters decodes the filters of the catalog (and keywords) into
// s's request, and returns the state of keywords.
func (l *loader) searchFilters(s *Search, at hcl.Attributes, in instance) (kwState attrState) {
	for i, f := range l.cat.Fields {
		name := l.fieldAttrs()[i]
		a := at[name]
		if a == nil || (contains(searchFixed, name) && name != "keywords") {
			continue
		}
		if f.Type == api.FieldArray {
			l.arrayFilter(s, f, a, in)
			continue
		}
		v, _, astate := l.stringAttr(a, in.ctx, in.sc, true)
		if astate == ok && !l.valueLength(a, v, MaxTextValue) {
			astate = bad
		}
		if name == "keywords" {
			kwState = astate
			if astate == ok && strings.TrimSpace(v) == "" {
				l.errorf(a.Expr.Range().Ptr(), "Empty keywords", "keywords must not be empty; give the words to search for, like keywords = \"CTO\".")
				kwState = bad
			}
		}
		if astate == ok && v != "" {
			s.Request.Params[f.SearchParameter] = v
		}
	}
	if _, inCatalog := l.cat.ByAttribute("keywords"); !inCatalog && at["keywords"] != nil {
		v, _, astate := l.stringAttr(at["keywords"], in.ctx, in.sc, true)
		if astate == ok && !l.valueLength(at["keywords"], v, MaxTextValue) {
			astate = bad
		}
		kwState = astate
		if astate == ok {
			s.Request.Params["keywords"] = v
		}
	}
	return kwState
}

// searchURL decodes search_url into s's request, and returns its state
// and the array filters its query sets.
func (l *loader) searchURL(s *Search, at hcl.Attributes, in instance) (attrState, map[string][]string) {
	a := at["search_url"]
	if a == nil {
		return absent, nil
	}
	v, sens, astate := l.stringAttr(a, in.ctx, in.sc, true)
	if astate == ok && !l.valueLength(a, v, MaxURLValue) {
		astate = bad
	}
	if astate != ok {
		return astate, nil
	}
	if problem := searchURLProblem(v); problem != "" {
		l.errorf(a.Expr.Range().Ptr(), "Invalid search_url", "%s", problem)
		return bad, nil
	}
	s.Request.Params["searchUrl"] = v
	return ok, l.searchURLFilters(s, a, v, sens, at)
}

// maxResults decodes max_results: up to the service's cap, or up to
// MaxSplitResults with split_by.
func (l *loader) maxResults(s *Search, at hcl.Attributes, in instance) {
	n, astate := l.intAttr(at["max_results"], in.ctx, in.sc, 1, -1)
	if astate != ok {
		return
	}
	rng := at["max_results"].Expr.Range().Ptr()
	switch {
	case n > api.MaxResults && at["split_by"] == nil:
		l.errorf(rng, "max_results above the cap without split_by",
			"The network returns at most %d results for one search, so max_results above %d needs split_by, which splits a saturated search into sub-searches by array filters, like split_by = [\"industry_filter\", \"level_filter\"]. Add split_by or lower max_results to %d; got %d.",
			api.MaxResults, api.MaxResults, api.MaxResults, n)
	case n > MaxSplitResults:
		l.errorf(rng, "Invalid max_results", "max_results must be from 1 to %d with split_by; got %d.", MaxSplitResults, n)
	default:
		s.MaxResults = n
	}
}

// arrayFilter checks an array filter against the catalog's possible values.
func (l *loader) arrayFilter(s *Search, f api.Field, a *hcl.Attribute, in instance) {
	example := "[\"" + f.PossibleValues[0] + "\"]"
	vals, rngs, sens, astate := l.stringListAttr(a, in.ctx, in.sc, example)
	if astate != ok || len(vals) == 0 {
		return
	}
	good := true
	seen := map[string]bool{}
	var out []string
	for i, v := range vals {
		if seen[v] {
			continue
		}
		seen[v] = true
		if contains(f.PossibleValues, v) {
			out = append(out, v)
			continue
		}
		good = false
		l.errorf(rngs[i].Ptr(), "Invalid "+a.Name+" value", "%s", l.valueProblem(f, a.Name, v, sens))
	}
	if good {
		s.Request.Params[f.SearchParameter] = out
	}
}

// valueProblem is the detail of an array filter item v that is not one of
// f's possible values; name is the filter as the configuration writes it.
func (l *loader) valueProblem(f api.Field, name, v string, sens bool) string {
	shown := strconv.Quote(v)
	if sens {
		shown = "A sensitive value"
	}
	hint := ""
	near := nearest(v, f.PossibleValues, 3)
	if abbr := expansions(v, f.PossibleValues); len(abbr) > 0 {
		near = abbr // "UK" is "United Kingdom" rather than any 2-letter value
	}
	if len(near) > 0 && !sens {
		hint = " Did you mean " + textfmt.QuoteList(near, " or ") + "?"
	} else {
		hint = " Valid values: " + textfmt.QuoteList(f.PossibleValues, ", ") + "."
	}
	return fmt.Sprintf("%s is not one of the values the service accepts for %s (%s).%s", shown, name, l.cat.Describe(), hint)
}

// pick is one when n is 1, else many.
func pick(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// commaHint explains, for a search URL's array filter value that is
// possible values joined by commas, that each value is a parameter of its
// own.
func commaHint(f api.Field, param, v string, sens bool) string {
	if sens || !strings.Contains(v, ",") {
		return ""
	}
	parts := strings.Split(v, ",")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
		if !contains(f.PossibleValues, parts[i]) {
			return ""
		}
	}
	var qs []string
	for _, p := range parts {
		qs = append(qs, param+"="+url.QueryEscape(p))
	}
	return fmt.Sprintf(" A URL gives each value as a parameter of its own: %s.", strings.Join(qs, "&"))
}

// label decodes a search's or profile's label (words shown in the Found
// in column instead of the address): text, not blank; "" when absent or
// refused.
func (l *loader) label(a *hcl.Attribute, in instance) string {
	v, _, astate := l.stringAttr(a, in.ctx, in.sc, true)
	if astate != ok || !l.valueLength(a, v, MaxTextValue) {
		return ""
	}
	if strings.TrimSpace(v) == "" {
		l.errorf(a.Expr.Range().Ptr(), "Empty label", "A label is the words the sheets show for the block in the Found in column, like label = \"CTOs in Manchester\"; leave it out to show the address.")
		return ""
	}
	return strings.TrimSpace(v)
}

// expansions are the values of candidates that v abbreviates by its
// initials, the small words aside: "UK" is "United Kingdom", "USA"
// "United States of America". None unless v is 2 to 5 letters.
func expansions(v string, candidates []string) []string {
	v = strings.TrimSpace(strings.ReplaceAll(v, ".", ""))
	if len(v) < 2 || len(v) > 5 || strings.ContainsFunc(v, func(r rune) bool { return !unicode.IsLetter(r) }) {
		return nil
	}
	var out []string
	for _, c := range candidates {
		var initials strings.Builder
		for _, w := range strings.Fields(c) {
			switch strings.ToLower(w) {
			case "of", "and", "the", "&":
				continue
			}
			r, _ := utf8.DecodeRuneInString(w)
			initials.WriteRune(r)
		}
		if initials.Len() > 1 && strings.EqualFold(initials.String(), v) {
			out = append(out, c)
		}
	}
	return out
}
