package config

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/leadsync/leadsync/internal/api"
)

// rawColumnCheck warns about a sheet that shows RawColumns while none of its
// sources is a search with raw = true: those cells stay empty unless a raw
// search elsewhere finds the same people. A warning, not an error: the
// configuration is valid, and the data may come later. One warning per
// sheet, at its first such column.
func (l *loader) rawColumnCheck() {
	for _, x := range l.cfg.Exports {
		for _, s := range x.Sheets {
			var cols []string
			first := -1
			for i, c := range s.Columns {
				if contains(RawColumns, c) {
					cols = append(cols, c)
					if first < 0 {
						first = i
					}
				}
			}
			if len(cols) == 0 || first >= len(s.columnRanges) {
				continue
			}
			sources := l.cfg.Resolve(s.From)
			if len(sources) == 0 {
				continue // from is wrong or empty: that is the error to fix first
			}
			if l.anyRawSearch(sources) {
				continue
			}
			fix := "Set raw = true on a search of the sheet (first generation only): the next apply runs it again, one call as before, and these columns fill in."
			if l.cfg.API.Generation == api.Gen2 {
				fix = "The api block sets generation = 2, which has no raw results: raw = true needs generation = 1."
			}
			l.warnf(s.columnRanges[first].Ptr(), "Columns that need raw search results",
				"Raw search results fill %s, but no search in this sheet's from (%s) sets raw = true, so these cells stay empty unless a raw search elsewhere finds the same people. %s",
				strings.Join(cols, ", "), strings.Join(s.From, ", "), fix)
		}
	}
}

// profileLinkCheck warns about a sheet whose columns list profileUrl (the
// "Profile" column) while there is no leadsync { profile_url_template }
// and none of the sheet's sources reads profiles: the column then stays
// empty (a profile read's own address is the only other source of the
// link). A warning at the column. The default columns, which every sheet
// without columns shows, draw none: that would warn about nearly every
// configuration without a template, where an empty Profile column is the
// known default (docs/exports.md).
func (l *loader) profileLinkCheck() {
	if l.cfg.Settings.ProfileURLTemplate != "" {
		return
	}
	for _, x := range l.cfg.Exports {
		for _, s := range x.Sheets {
			i := -1
			for k, c := range s.Columns {
				if c == "profileUrl" && k < len(s.columnRanges) {
					i = k
				}
			}
			if i < 0 {
				continue
			}
			sources := l.cfg.Resolve(s.From)
			if len(sources) == 0 || l.anyProfile(sources) {
				continue // from is wrong (the error to fix first), or profile reads give links
			}
			l.warnf(s.columnRanges[i].Ptr(), "Profile column without profile_url_template",
				"Sheet %q of %s shows profileUrl (the %q column), but the leadsync block sets no profile_url_template and no source of the sheet reads profiles, so the column stays empty. Set profile_url_template in the leadsync block, like profile_url_template = \"https://network.example/profile/{pageName}\" (the network's profile address with {pageName}), or leave profileUrl out of columns.",
				s.Name, x.Address, ColumnLabels["profileUrl"])
		}
	}
}

// anyProfile reports whether one of the instance addresses is a profile.
func (l *loader) anyProfile(addrs []string) bool {
	for _, p := range l.cfg.Profiles {
		if contains(addrs, p.Address) {
			return true
		}
	}
	return false
}

// anyRawSearch reports whether one of the instance addresses is a search
// with raw = true.
func (l *loader) anyRawSearch(addrs []string) bool {
	for _, s := range l.cfg.Searches {
		if s.Request.Raw && contains(addrs, s.Address) {
			return true
		}
	}
	return false
}

// columnHint suggests the column meant by name, which is not one of known:
// the column whose name or header text it is when case, spaces and
// punctuation are ignored ("E-mail status" is the header of
// validationStatus, "emailStatus" the same words), else the nearest name,
// else the list of columns.
func columnHint(name string, known []string) string {
	key := columnKey(name)
	for _, k := range known {
		if columnKey(k) == key {
			return fmt.Sprintf(" Did you mean %q?", k)
		}
	}
	labels := make([]string, 0, len(known))
	byLabel := map[string]string{}
	for _, k := range known {
		if l := ColumnLabels[k]; l != "" {
			labels = append(labels, l)
			byLabel[l] = k
			if columnKey(l) == key {
				if l == name {
					return fmt.Sprintf(" %q is the header text of the column %s: columns are named by their column names (labels changes a header). Did you mean %q?", name, k, k)
				}
				return fmt.Sprintf(" Did you mean %q (its header text is %q)?", k, l)
			}
		}
	}
	if hint := didYouMean(name, known); hint != "" {
		return hint
	}
	sort.Strings(labels)
	if n := nearest(name, labels, 1); len(n) > 0 {
		return fmt.Sprintf(" Did you mean %q (its header text is %q)?", byLabel[n[0]], n[0])
	}
	return " Columns: " + strings.Join(known, ", ") + "."
}

// columnKey is a column name or header as compared by columnHint: lower
// case letters and digits only.
func columnKey(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}
