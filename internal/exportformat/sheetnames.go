package exportformat

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
)

// MaxSheetName is Excel's limit on a sheet name, in UTF-16 code units.
const MaxSheetName = 31

// XLSXMaxRows is the number of rows of an XLSX worksheet, its header
// included: a sheet with more data rows than XLSXMaxRows-1 continues on
// "<name> (2)", "<name> (3)" ... (WorkbookNames).
const XLSXMaxRows = 1_048_576

// The name of a workbook's first sheet, unless a configured sheet already
// uses it.
const (
	SummarySheet    = "Summary"
	SummaryFallback = "leadsync summary"
)

// WorkbookNames returns the worksheet names of a workbook whose sheets are
// named sheets (as configured) and take parts[i] worksheets each (1 when
// they fit one): the Summary's name, then each sheet's names, the first
// part's then its continuations. The export writes these names and the plan
// announces them, so both say the same. A continuation never takes a
// configured sheet's name: it takes the next number free.
func WorkbookNames(sheets []string, parts []int) (summary string, names [][]string) {
	n := NewSheetNamer()
	summary = SummarySheet
	for _, s := range sheets {
		if strings.EqualFold(strings.TrimSpace(s), SummarySheet) {
			summary = SummaryFallback
		}
	}
	n.taken[strings.ToLower(summary)] = true
	// The configured names first, so that a continuation never takes the
	// name of a sheet configured after it ("Leads (2)").
	names = make([][]string, len(sheets))
	for i, s := range sheets {
		names[i] = []string{n.Name(s, 1)}
	}
	for i, s := range sheets {
		for p := 2; p <= parts[i]; p++ {
			names[i] = append(names[i], n.Name(s, p))
		}
	}
	return summary, names
}

// SheetNamer hands out worksheet names that Excel accepts and that are
// unique in the workbook (case-insensitively, as Excel compares them).
type SheetNamer struct {
	taken map[string]bool
}

// NewSheetNamer returns a namer with no name taken.
func NewSheetNamer() *SheetNamer { return &SheetNamer{taken: map[string]bool{}} }

// Take marks name as used.
func (n *SheetNamer) Take(name string) { n.taken[strings.ToLower(name)] = true }

// Name returns a valid, unique sheet name for want; with part > 1 it is the
// continuation "<want> (part)". The configuration already checks names; this
// is the last line of defence, so that no name ever makes a broken file.
func (n *SheetNamer) Name(want string, part int) string {
	base := cleanSheetName(want)
	for k := part; ; k++ {
		suffix := ""
		if k > 1 {
			suffix = fmt.Sprintf(" (%d)", k)
		}
		cand := TruncUTF16(base, MaxSheetName-len(suffix))
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

// TruncUTF16 cuts s to at most n UTF-16 code units, never inside a character.
func TruncUTF16(s string, n int) string {
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
