package config

import (
	"strings"

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
