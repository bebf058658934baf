package export

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/leadsync/leadsync/internal/config"
)

// maxSheetName is Excel's limit on a sheet name, in UTF-16 code units.
const maxSheetName = 31

// summarySheet is the name of the first sheet, unless a configured sheet
// already uses it.
const (
	summarySheet    = "Summary"
	summaryFallback = "leadsync summary"
)

// sheetNamer hands out worksheet names that Excel accepts and that are
// unique in the workbook (case-insensitively, as Excel compares them).
type sheetNamer struct {
	taken map[string]bool
}

func newSheetNamer() *sheetNamer { return &sheetNamer{taken: map[string]bool{}} }

// name returns a valid, unique sheet name for want; with part > 1 it is the
// continuation "<want> (part)". The configuration already checks names; this
// is the last line of defence, so that no name ever makes a broken file.
func (n *sheetNamer) name(want string, part int) string {
	base := cleanSheetName(want)
	for k := part; ; k++ {
		suffix := ""
		if k > 1 {
			suffix = fmt.Sprintf(" (%d)", k)
		}
		cand := truncUTF16(base, maxSheetName-len(suffix))
		cand = strings.TrimRight(cand, "'") + suffix
		if !n.taken[strings.ToLower(cand)] {
			n.taken[strings.ToLower(cand)] = true
			return cand
		}
	}
}

// cleanSheetName replaces characters Excel forbids in sheet names (: \ / ? *
// [ ] and control characters), and strips the apostrophes it forbids at
// either end.
func cleanSheetName(s string) string {
	s = strings.Map(func(r rune) rune {
		if strings.ContainsRune(`:\/?*[]`, r) || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, s)
	s = strings.Trim(strings.TrimSpace(s), "'")
	if s == "" {
		s = "Sheet"
	}
	return s
}

// truncUTF16 cuts s to at most n UTF-16 code units, never inside a character.
func truncUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if units+w > n {
			return s[:i]
		}
		units += w
	}
	return s
}

// utf16Len is the length of s in UTF-16 code units, as Excel counts.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// tableName returns a defined name for the Excel table of a sheet: it must
// start with a letter or underscore, hold only letters, digits, "_" and ".",
// and be unique in the workbook; "Leads_<slug>" keeps it readable, the
// index keeps it unique.
func tableName(sheet string, index int) string {
	s := strings.ReplaceAll(config.Slug(sheet), "-", "_")
	if len(s) > 40 {
		s = s[:40]
	}
	if s == "" {
		return fmt.Sprintf("Leads_%d", index)
	}
	return fmt.Sprintf("Leads_%d_%s", index, s)
}
