package config

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// searchURLProblem checks a search URL: absolute http(s) with a keywords
// query parameter, as the service requires. It returns the diagnostic's
// detail, or "" when the URL is fine.
func searchURLProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "search_url must be an absolute http(s) URL of a search on the network, like \"https://network.example/search?keywords=CTO\"."
	}
	if strings.TrimSpace(u.Query().Get("keywords")) == "" {
		return "The service requires a keywords parameter in the query of a search URL, like \"https://network.example/search?keywords=CTO\"; this one has none."
	}
	return ""
}

// searchURLFilters checks the filters in the query of a search URL as the
// attributes are checked, since the service applies them alike: each value
// of an array filter must be one of the catalog's possible values, and a
// filter set both in the URL and as an attribute of the block is an error
// (which one the service applies is not specified). An array filter takes
// one value per occurrence (industryFilter=A&industryFilter=B), as the
// sandbox reads it; values cannot be separated by commas, since some hold
// commas themselves. Parameters the catalog does not know draw one warning.
// It returns the array filters the URL sets, by search parameter, each
// value once in the URL's order; a filter with an invalid value is left out.
func (l *loader) searchURLFilters(s *Search, a *hcl.Attribute, raw string, sens bool, at hcl.Attributes) map[string][]string {
	u, err := url.Parse(raw)
	if err != nil { // searchURLProblem has accepted it
		return nil
	}
	query := u.Query()
	rng := a.Expr.Range().Ptr()
	byParam := map[string]api.Field{}
	var params []string
	for _, f := range l.cat.Fields {
		byParam[f.SearchParameter] = f
		params = append(params, f.SearchParameter)
	}
	out := map[string][]string{}
	var unknown, hints []string
	for _, k := range slices.Sorted(maps.Keys(query)) {
		if k == "keywords" { // searchURLProblem checks it
			continue
		}
		f, known := byParam[k]
		if !known {
			unknown = append(unknown, k)
			if near := nearest(k, params, 1); len(near) > 0 {
				hints = append(hints, fmt.Sprintf("%q for %q", near[0], k))
			}
			continue
		}
		name := catalog.AttributeName(k)
		if attr := at[name]; attr != nil && s.Request.Params[k] != nil {
			l.errorf(attr.Expr.Range().Ptr(), "Filter set twice",
				"%s is set here and as %s in the query of search_url (%s); which one the service applies is not specified. Remove one of the two.",
				name, k, shortRange(a.Expr.Range()))
			continue
		}
		if f.Type != api.FieldArray {
			continue
		}
		good := true
		var values []string
		for _, v := range query[k] {
			if contains(values, v) {
				continue
			}
			if contains(f.PossibleValues, v) {
				values = append(values, v)
				continue
			}
			good = false
			l.errorf(rng, "Invalid "+k+" value in search_url", "%s%s",
				l.valueProblem(f, k+" in the query of search_url", v, sens), commaHint(f, k, v, sens))
		}
		if good {
			out[k] = values
		}
	}
	if len(unknown) > 0 {
		what := "is not a search parameter"
		if len(unknown) > 1 {
			what = "are not search parameters"
		}
		hint := ""
		if len(hints) > 0 {
			hint = " Did you mean " + strings.Join(hints, ", ") + "?"
		}
		l.warnf(rng, "Unknown parameter in search_url",
			"The query of search_url has %s, which %s of the service (%s): leadsync cannot check %s, and whether the service applies %s is not known.%s The search parameters are %s. Remove what is not a filter (a tracking or paging parameter copied with the URL) to silence this warning.",
			textfmt.QuoteList(unknown, ", "), what, l.cat.Describe(), pick(len(unknown), "it", "them"), pick(len(unknown), "it", "them"), hint, strings.Join(params, ", "))
	}
	return out
}
