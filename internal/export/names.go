package export

import (
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exportformat"
)

// maxSheetName is Excel's limit on a sheet name, in UTF-16 code units.
const maxSheetName = exportformat.MaxSheetName

// summarySheet is the name of the first sheet, unless a configured sheet
// already uses it.
const (
	summarySheet    = exportformat.SummarySheet
	summaryFallback = exportformat.SummaryFallback
)

// sheetNamer hands out valid, unique worksheet names (exportformat.SheetNamer).
type sheetNamer struct{ *exportformat.SheetNamer }

func newSheetNamer() sheetNamer { return sheetNamer{exportformat.NewSheetNamer()} }

func (n sheetNamer) name(want string, part int) string { return n.Name(want, part) }

// truncUTF16 cuts s to at most n UTF-16 code units, never inside a character.
func truncUTF16(s string, n int) string { return exportformat.TruncUTF16(s, n) }

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

// sourceName is how the Summary names a search or profile: by its label
// where the block sets one (words for the people who read the file), else
// by its address. A label that another search or profile shares is
// followed by the address, so that each row still names one source.
func (j *job) sourceName(addr string) string {
	if j.names == nil {
		labels := j.cfg.Labels()
		uses := make(map[string]int, len(labels))
		for _, l := range labels {
			uses[l]++
		}
		j.names = make(map[string]string, len(labels))
		for a, l := range labels {
			if uses[l] > 1 {
				l += " (" + a + ")"
			}
			j.names[a] = l
		}
	}
	if n, ok := j.names[addr]; ok {
		return n
	}
	return addr
}

// someSources names addrs by sourceName as someOf lists them.
func (j *job) someSources(addrs []string) string {
	names := make([]string, len(addrs))
	for i, a := range addrs {
		names[i] = j.sourceName(a)
	}
	return someOf(names)
}
