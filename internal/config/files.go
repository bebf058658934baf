package config

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/leadsync/leadsync/internal/exportformat"
)

// Files returns the files an export writes, as written in the configuration
// (relative to Dir unless absolute), by the layout of its format: the data
// files, one per sheet for a format that writes a file per sheet (CSV) and
// several sheets, and the summary file of such a format ("" for a workbook
// such as XLSX, whose Summary is a sheet). Export writes exactly these,
// plan checks that they exist.
func (x *Export) Files() (data []string, summary string) {
	if f, _ := exportformat.Lookup(x.Format); f.Layout != exportformat.FilePerSheet {
		return []string{x.Path}, ""
	}
	names := make([]string, len(x.Sheets))
	for i, s := range x.Sheets {
		names[i] = s.Name
	}
	return SheetFiles(x.Path, names)
}

// SheetFiles names the files of an export at path, in a format that writes
// a file per sheet, with the given sheets: one sheet writes path itself;
// several write <base>-<sheet-slug><ext> each (a slug that is empty becomes
// sheet-N, a repeated one gets -2, -3, ...); the summary is
// <base>.summary<ext>.
func SheetFiles(path string, sheets []string) (files []string, summary string) {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	summary = base + ".summary" + ext
	if len(sheets) == 1 {
		return []string{base + ext}, summary
	}
	taken := map[string]bool{}
	for i, name := range sheets {
		s := Slug(name)
		if s == "" {
			s = fmt.Sprintf("sheet-%d", i+1)
		}
		cand := s
		for k := 2; taken[cand]; k++ {
			cand = fmt.Sprintf("%s-%d", s, k)
		}
		taken[cand] = true
		files = append(files, base+"-"+cand+ext)
	}
	return files, summary
}

// Slug makes a file-name part from a name: lower-case ASCII letters and
// digits, other runs of characters as one "-" ("All leads" -> "all-leads").
// Letters with diacritics lose them where that is obvious (ä -> a); anything
// else that is not ASCII becomes a separator.
func Slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if f, ok := slugFold[r]; ok {
			r = f
		}
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
	}
	return b.String()
}

// slugFold maps common Latin letters with diacritics to their base letter.
var slugFold = map[rune]rune{
	'à': 'a', 'á': 'a', 'â': 'a', 'ã': 'a', 'ä': 'a', 'å': 'a',
	'ç': 'c', 'è': 'e', 'é': 'e', 'ê': 'e', 'ë': 'e',
	'ì': 'i', 'í': 'i', 'î': 'i', 'ï': 'i', 'ñ': 'n',
	'ò': 'o', 'ó': 'o', 'ô': 'o', 'õ': 'o', 'ö': 'o', 'ø': 'o',
	'ù': 'u', 'ú': 'u', 'û': 'u', 'ü': 'u', 'ý': 'y', 'ÿ': 'y', 'ß': 's',
}
