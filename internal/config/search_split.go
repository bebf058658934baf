package config

import (
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
)

// splitBy reads split_by: array filters of the catalog, each once. A
// dimension the search sets to several values is split across those; one
// set to a single value is skipped; any other across all its possible
// values. The search sets a filter by its attribute or in the query of its
// search_url (urlArrays, by search parameter): a sub-search's own filter
// replaces the URL's, so the URL's values bound the split as an
// attribute's do. It runs after the filters are read.
func (l *loader) splitBy(s *Search, a *hcl.Attribute, in instance, urlArrays map[string][]string) {
	if a == nil {
		return
	}
	var arrays []string
	for _, f := range l.cat.Fields {
		if f.Type == api.FieldArray {
			arrays = append(arrays, catalog.AttributeName(f.SearchParameter))
		}
	}
	example := `["industry_filter", "level_filter"]`
	names, rngs, _, astate := l.stringListAttr(a, in.ctx, in.sc, example)
	if astate != ok {
		return
	}
	if len(names) == 0 {
		l.errorf(a.Expr.Range().Ptr(), "Empty split_by", "split_by names the array filters a saturated search is split by, like split_by = %s; remove it or name at least one.", example)
		return
	}
	seen := map[string]bool{}
	good := true
	var dims []SplitDimension
	for i, n := range names {
		if seen[n] {
			l.errorf(rngs[i].Ptr(), "Duplicate split_by dimension", "%q is named twice in split_by; each dimension splits once. Remove the second %q.", n, n)
			good = false
			continue
		}
		seen[n] = true
		f, found := l.cat.ByAttribute(n)
		switch {
		case !found:
			hint := didYouMean(n, arrays)
			if hint == "" {
				hint = " The array filters are " + strings.Join(arrays, ", ") + "."
			}
			l.errorf(rngs[i].Ptr(), "Unknown split_by dimension", "%q is not an array filter of the service (%s).%s", n, l.cat.Describe(), hint)
			good = false
			continue
		case f.Type != api.FieldArray:
			l.errorf(rngs[i].Ptr(), "split_by names a text filter", "%s is a text filter: it has no list of values to split across. split_by takes array filters: %s.", n, strings.Join(arrays, ", "))
			good = false
			continue
		}
		values := f.PossibleValues
		set, isSet := s.Request.Params[f.SearchParameter].([]string)
		if !isSet {
			set, isSet = urlArrays[f.SearchParameter]
		}
		if isSet {
			if len(set) == 1 {
				s.SplitNames = append(s.SplitNames, n)
				continue // one value: nothing to split
			}
			values = set
		}
		s.SplitNames = append(s.SplitNames, n)
		dims = append(dims, SplitDimension{Attribute: n, Param: f.SearchParameter, Values: append([]string(nil), values...)})
	}
	if good {
		s.SplitBy = dims
		if dims == nil {
			s.SplitBy = []SplitDimension{}
			l.warnf(a.Expr.Range().Ptr(), "split_by splits nothing",
				"%s sets each dimension of split_by to a single value, so a search at the cap cannot be split and stays incomplete. Name a dimension the search does not fix, like %q.",
				s.Address, firstFree(arrays, names))
		}
	}
}

// firstFree is the first of arrays not in used ("" when none is left).
func firstFree(arrays, used []string) string {
	for _, a := range arrays {
		if !contains(used, a) {
			return a
		}
	}
	return ""
}
