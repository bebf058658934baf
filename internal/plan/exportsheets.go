package plan

import (
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// sheetRowLimit is the rows of an XLSX worksheet, its header included; a
// variable so that tests can exercise continued sheets with a few rows.
var sheetRowLimit = exportformat.XLSXMaxRows

// SheetContinued is, for an export written to a workbook, a sheet that may
// hold more rows than a worksheet does: export continues it on further
// worksheets, named in Names after the first.
type SheetContinued struct {
	Sheet string `json:"sheet"`
	// RowsMax bounds the sheet's data rows: the people state holds for its
	// sources, plus what the planned runs, reads and imports of them may
	// add at most (300 a search call); a sheet's where, dedupe and the
	// exclude blocks only make it fewer.
	RowsMax int `json:"rows_max"`
	// Names are the worksheets the sheet may take, the first one first.
	Names []string `json:"names"`
}

// continuedSheets returns the sheets of x that may pass a worksheet's row
// limit, for an export written as a workbook (a CSV file has no limit).
// The count comes from state and the changes planned so far, never from
// the people themselves: it costs a length per source.
func (b *builder) continuedSheets(x *config.Export) []SheetContinued {
	if !workbook(x) {
		return nil
	}
	perSheet := sheetRowLimit - 1 // the header takes a row
	names := make([]string, len(x.Sheets))
	parts := make([]int, len(x.Sheets))
	bounds := make([]int, len(x.Sheets))
	over := false
	for i, sh := range x.Sheets {
		names[i], parts[i] = sh.Name, 1
		if len(sh.Changes) > 0 {
			continue // a sheet of changes lists history, counted by export
		}
		bounds[i] = b.sheetRowsMax(sh)
		if bounds[i] > perSheet {
			parts[i], over = (bounds[i]+perSheet-1)/perSheet, true
		}
	}
	if !over {
		return nil
	}
	_, all := exportformat.WorkbookNames(names, parts)
	var out []SheetContinued
	for i := range x.Sheets {
		if parts[i] > 1 {
			out = append(out, SheetContinued{Sheet: names[i], RowsMax: bounds[i], Names: all[i]})
		}
	}
	return out
}

// workbook reports whether x is written as a workbook, whose sheets'
// rows the plan counts (ReadsOf reads their sources' lead lists).
func workbook(x *config.Export) bool {
	f, _ := exportformat.Lookup(x.Format)
	return f.Layout == exportformat.Workbook
}

// sheetRowsMax bounds the rows of a sheet of people: for each source, the
// people state holds for it, or what its planned change may bring.
func (b *builder) sheetRowsMax(sh *config.Sheet) int {
	planned := map[string]*Change{}
	for _, c := range b.p.Changes {
		if c.Action != None {
			planned[c.Address] = c
		}
	}
	n := 0
	for _, src := range b.cfg.Resolve(sh.From) {
		c := planned[src]
		a, _ := b.cfg.Addr(src)
		switch a.Kind {
		case kind.Search:
			n += b.st.LeadCount(src)
			if c != nil {
				n += c.CallsMax * api.MaxResults
				if t := b.st.Splits[src]; t != nil {
					for _, node := range t.Nodes {
						n += len(node.LeadIDs)
					}
				}
			}
		case kind.Profile:
			if rec := b.st.Profiles[src]; c != nil || (rec != nil && rec.PersonID != "") {
				n++
			}
		case kind.Import:
			n += b.importRowsMax(src, c != nil)
		}
	}
	return n
}

// importRowsMax is the people an import gives a sheet: those of its file
// when it is imported again, else those state holds.
func (b *builder) importRowsMax(addr string, planned bool) int {
	if planned {
		for _, im := range b.cfg.Imports {
			if im.Address == addr {
				return len(im.People)
			}
		}
	}
	if rec := b.st.Imports[addr]; rec != nil {
		return len(rec.PersonIDs)
	}
	return 0
}

// continuedText is what the plan says of the continued sheets of an export.
func continuedText(cs []SheetContinued) string {
	var parts []string
	for _, s := range cs {
		quoted := make([]string, len(s.Names)-1)
		for i, n := range s.Names[1:] {
			quoted[i] = fmt.Sprintf("%q", n)
		}
		parts = append(parts, fmt.Sprintf("sheet %q: up to %s rows, more than the %s a worksheet holds: continued on %s",
			s.Sheet, textfmt.Thousands(s.RowsMax), textfmt.Thousands(sheetRowLimit-1), strings.Join(quoted, ", ")))
	}
	return strings.Join(parts, "; ")
}
