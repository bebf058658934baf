package export

import (
	"archive/zip"
	"compress/flate"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/exportformat"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Excel's limits.
const (
	// excelMaxRows is the number of rows of a worksheet, header included.
	excelMaxRows = exportformat.XLSXMaxRows
	// maxCellChars is the most characters (UTF-16 code units) a cell holds.
	maxCellChars = 32_767
	// maxFormulaString is the longest string literal a formula may hold;
	// a longer URL is written as plain text instead of a HYPERLINK().
	maxFormulaString = 255
	// maxWidth and minWidth bound fitted column widths, in characters.
	maxWidth = 60
	minWidth = 8
)

// maxRows is the row limit used; a variable so that tests can exercise the
// continuation sheets without writing a million rows.
var maxRows = excelMaxRows

// truncMarker ends a cell that was cut at the cell limit.
const truncMarker = " …[cut: longer than 32,767 characters]"

// dateFormat is the number format of date cells: ISO 8601, unambiguous
// whatever the reader's locale.
const dateFormat = "yyyy-mm-dd hh:mm"

// zipLevel is the DEFLATE level of the XLSX zip.
const zipLevel = flate.BestSpeed

// tableStyle is the built-in Excel table style of data sheets.
const tableStyle = "TableStyleMedium2"

// widthSamples is how many rows are looked at to fit column widths: the
// first rows plus rows spread over the rest; enough to fit the widths well,
// cheap on a million rows.
const widthSamples = 1000

// xlsxStyles are the style IDs of a workbook.
type xlsxStyles struct {
	header, date, link, number, title, sumHeader int
	// wrap is a data cell's text with a line break: wrapped, at the top;
	// the others of a row made taller by one are at the top too.
	wrap, top, topDate, topLink, topNumber int
	// The Summary's cells: text, wrapped text, whole numbers, dates; at
	// the top of rows made taller by a wrapped cell.
	sumText, sumWrap, sumNumber, sumDate int
}

func newXLSXStyles(f *excelize.File) (xlsxStyles, error) {
	var s xlsxStyles
	var err error
	dateFmt := dateFormat
	mk := func(dst *int, style *excelize.Style) {
		if err != nil {
			return
		}
		*dst, err = f.NewStyle(style)
	}
	mk(&s.header, &excelize.Style{
		Font:      &excelize.Font{Bold: true, Color: "FFFFFF"},
		Fill:      excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"305496"}},
		Alignment: &excelize.Alignment{Vertical: "center"},
	})
	mk(&s.date, &excelize.Style{CustomNumFmt: &dateFmt, Alignment: &excelize.Alignment{Horizontal: "left"}})
	mk(&s.link, &excelize.Style{Font: &excelize.Font{Color: "0563C1", Underline: "single"}})
	mk(&s.number, &excelize.Style{NumFmt: numFmtThousands})
	mk(&s.title, &excelize.Style{Font: &excelize.Font{Bold: true, Size: 13}})
	mk(&s.sumHeader, &excelize.Style{
		Font:   &excelize.Font{Bold: true},
		Border: []excelize.Border{{Type: "bottom", Color: "808080", Style: 1}},
	})
	top := func(a excelize.Alignment) *excelize.Alignment {
		a.Vertical = "top"
		return &a
	}
	mk(&s.wrap, &excelize.Style{Alignment: top(excelize.Alignment{WrapText: true})})
	mk(&s.top, &excelize.Style{Alignment: top(excelize.Alignment{})})
	mk(&s.topDate, &excelize.Style{CustomNumFmt: &dateFmt, Alignment: top(excelize.Alignment{Horizontal: "left"})})
	mk(&s.topLink, &excelize.Style{Font: &excelize.Font{Color: "0563C1", Underline: "single"}, Alignment: top(excelize.Alignment{})})
	mk(&s.topNumber, &excelize.Style{NumFmt: numFmtThousands, Alignment: top(excelize.Alignment{})})
	mk(&s.sumText, &excelize.Style{Alignment: top(excelize.Alignment{})})
	mk(&s.sumWrap, &excelize.Style{Alignment: top(excelize.Alignment{WrapText: true})})
	// Numbers left-aligned: the Summary's sections share columns as wide
	// as their longest text, where a right-aligned number sits far from
	// its header and against the next column's text.
	mk(&s.sumNumber, &excelize.Style{NumFmt: numFmtThousands, Alignment: top(excelize.Alignment{Horizontal: "left"})})
	mk(&s.sumDate, &excelize.Style{CustomNumFmt: &dateFmt, Alignment: top(excelize.Alignment{Horizontal: "left"})})
	return s, err
}

// numFmtThousands is Excel's built-in number format 3, "#,##0": whole
// numbers with the reader's thousands separator.
const numFmtThousands = 3

// excelTime converts a time to an Excel serial date (days since 1899-12-30),
// in UTC, to the second.
func excelTime(t time.Time) float64 {
	const unixEpoch = 25569 // serial of 1970-01-01
	return float64(t.UTC().Unix())/86400 + unixEpoch
}

// xlsxWriter writes an XLSX workbook (exportformat's Workbook layout).
type xlsxWriter struct{}

var _ writer = xlsxWriter{}

// write writes the workbook: the Summary first, then one worksheet per
// sheet block (continued on "<name> (2)" ... past Excel's row limit).
func (xlsxWriter) write(j *job) ([]Written, error) {
	af, err := createAtomic(j.path)
	if err != nil {
		return nil, err
	}
	defer af.abort()

	f := excelize.NewFile()
	defer f.Close()
	styles, err := newXLSXStyles(f)
	if err != nil {
		return nil, err
	}

	sumName, names := workbookNames(j.sheets)
	if err := f.SetSheetName("Sheet1", sumName); err != nil {
		return nil, err
	}

	w := Written{Path: j.path, Export: j.exp.Address}
	// The data rows of each worksheet, by its part name, until the package
	// is written.
	sheetRows := map[string]*sheetRowsXML{}
	defer func() {
		for _, r := range sheetRows {
			r.data.Close()
		}
	}()
	truncated, err := writeDataSheets(f, styles, names, j, &w, sheetRows)
	if err != nil {
		return nil, err
	}
	if truncated > 0 {
		were, they := "were", "they end"
		if truncated == 1 {
			were, they = "was", "it ends"
		}
		j.warnf("%s %s longer than the 32,767 characters an Excel cell holds and %s cut; %s in %q",
			textfmt.Plural(truncated, "cell"), were, were, they, strings.TrimSpace(truncMarker))
	}

	if err := writeSummarySheet(f, styles, sumName, j.summary(true)); err != nil {
		return nil, fmt.Errorf("writing %s, sheet %q: %w", j.path, sumName, err)
	}
	if err := j.readErr(); err != nil {
		return nil, fmt.Errorf("writing %s: %w", j.path, err)
	}
	if err := setDocProps(f, j); err != nil {
		return nil, err
	}
	// The first data sheet is the active one (writeDataSheet); the Summary
	// stays the first tab.

	// excelize builds the whole zip in a memory buffer; write it straight
	// into the temporary file instead, compressed on every core at the
	// fastest level: the file is a little larger, the write several times
	// faster. The data sheets get their rows on the way (spliceZip).
	f.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		zw := zip.NewWriter(af.File)
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return newParallelDeflate(out, zipLevel), nil
		})
		return newSpliceZip(zw, sheetRows)
	})
	if err := f.Write(io.Discard); err != nil {
		return nil, fmt.Errorf("writing %s: %w", j.path, err)
	}
	if err := af.finish(); err != nil {
		return nil, err
	}
	if err := j.rename(af); err != nil {
		return nil, err
	}
	w.Warnings = j.warnings
	return []Written{w}, nil
}

// rowsPerSheet is the data rows a worksheet holds under its header.
func rowsPerSheet() int { return maxRows - 1 }

// sheetParts is how many worksheets n data rows take: 1 at least.
func sheetParts(n int) int { return max((n+rowsPerSheet()-1)/rowsPerSheet(), 1) }

// workbookNames returns the names of the Summary and of the worksheets
// of each sheet of j, as exportformat.WorkbookNames gives them to the plan.
func workbookNames(sheets []sheetJob) (summary string, names [][]string) {
	conf := make([]string, len(sheets))
	parts := make([]int, len(sheets))
	for i, s := range sheets {
		conf[i], parts[i] = s.table.name, sheetParts(s.table.n)
	}
	return exportformat.WorkbookNames(conf, parts)
}

// writeDataSheets writes the worksheets of every sheet block of j, each
// continued on "<name> (2)" ... past Excel's row limit (their names in
// names), counting them and their rows in w; sheetRows gets their data
// rows by part name. It returns the number of cells cut to fit a cell.
func writeDataSheets(f *excelize.File, styles xlsxStyles, allNames [][]string, j *job, w *Written, sheetRows map[string]*sheetRowsXML) (truncated int, err error) {
	perSheet := rowsPerSheet()
	for i := range j.sheets {
		s := &j.sheets[i]
		t := s.table
		names := allNames[i]
		parts := len(names)
		if names[0] != t.name {
			j.warnf("sheet %q is named %q in the workbook: Excel does not accept the name as written", t.name, names[0])
		}
		if parts > 1 {
			j.warnf("sheet %q has %d rows, more than the %d an Excel sheet holds: continued on %s", t.name, t.n, perSheet, strings.Join(names[1:], ", "))
		}
		for p, name := range names {
			from, to := p*perSheet, min(t.n, (p+1)*perSheet)
			part, rows, err := writeDataSheet(f, styles, name, tableName(t.name, w.Sheets+1), t, from, to, w.Sheets == 0)
			if rows != nil {
				sheetRows[part] = rows
				truncated += rows.cut
			}
			if err == nil {
				err = t.readErr() // the people of its rows could not be read
			}
			if err != nil {
				return truncated, fmt.Errorf("writing %s, sheet %q: %w", j.path, name, err)
			}
			w.Sheets++
		}
		w.Rows += t.n
		s.where = strings.Join(names, ", ")
	}
	return truncated, nil
}

// setDocProps sets the workbook's properties: what it is and when it was
// written.
func setDocProps(f *excelize.File, j *job) error {
	stamp := j.now.Format(time.RFC3339)
	return f.SetDocProps(&excelize.DocProperties{
		Title:          "Leads: " + j.exp.Name,
		Subject:        j.exp.Address,
		Creator:        "leadsync",
		LastModifiedBy: "leadsync",
		Description:    "Written by leadsync from its state. The Summary sheet says when, from which searches, and what was enriched.",
		Keywords:       "leads; leadsync",
		Created:        stamp,
		Modified:       stamp,
	})
}

// newDataSheet adds the worksheet name; the first one is the sheet the
// workbook opens on, not the Summary. That is set now, before the
// StreamWriter copies the sheet's view: only the Summary and this sheet
// exist, both still in memory (SetActiveSheet reads every sheet back;
// pinned by TestWorkbookOpensOnThePeople).
func newDataSheet(f *excelize.File, name string, first bool) error {
	idx, err := f.NewSheet(name)
	if err == nil && first {
		f.SetActiveSheet(idx)
	}
	return err
}

// writeDataSheet makes a worksheet of rows [from, to) of t: a bold, frozen
// header, an Excel table over the rows, fitted widths. excelize's
// StreamWriter writes the sheet with its header row; the data rows are
// written and compressed here (encodeRows), and go into the sheet when the
// package is written (spliceZip). It returns the sheet's part name and rows.
func writeDataSheet(f *excelize.File, styles xlsxStyles, name, table string, t *table, from, to int, first bool) (string, *sheetRowsXML, error) {
	if err := newDataSheet(f, name, first); err != nil {
		return "", nil, err
	}
	// The used range, header and rows: a new sheet says "A1", which the
	// StreamWriter would copy, and readers that trust <dimension> (openpyxl
	// in read-only mode) would then see the header alone. Set before the
	// StreamWriter starts, which writes the element first (pinned by
	// TestExcelizeInternals).
	used, err := excelize.CoordinatesToCellName(len(t.header), to-from+1)
	if err != nil {
		return "", nil, err
	}
	if err = f.SetSheetDimension(name, "A1:"+used); err != nil {
		return "", nil, err
	}
	// Print settings go in before the StreamWriter starts, which copies
	// them from the worksheet (pinned by TestPrintSetup).
	if err := printSetup(f, name); err != nil {
		return "", nil, err
	}
	sw, err := f.NewStreamWriter(name)
	if err != nil {
		return "", nil, err
	}
	part, err := sheetPart(f, name)
	if err != nil {
		return "", nil, err
	}
	// Last column first: excelize puts each new <col> before the others,
	// and the schema wants them in column order (pinned by
	// TestExcelizeInternals).
	widths := fitWidths(t, from, to)
	for c := len(widths) - 1; c >= 0; c-- {
		if err := sw.SetColWidth(c+1, c+1, widths[c]); err != nil {
			return "", nil, err
		}
	}
	if err := sw.SetPanes(&excelize.Panes{
		Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft",
		Selection: []excelize.Selection{{SQRef: "A2", ActiveCell: "A2", Pane: "bottomLeft"}},
	}); err != nil {
		return "", nil, err
	}

	ncol := len(t.header)
	vals := make([]any, ncol)
	for c, h := range t.header {
		vals[c] = excelize.Cell{StyleID: styles.header, Value: h}
	}
	if err := sw.SetRow("A1", vals, excelize.RowOpts{Height: 20}); err != nil {
		return "", nil, err
	}

	rows, err := encodeRows(styles, t, from, to, widths)
	if err != nil {
		return "", nil, err
	}
	last, err := excelize.CoordinatesToCellName(ncol, max(to-from+1, 2))
	if err != nil {
		return part, rows, err
	}
	stripes := true
	if err := sw.AddTable(&excelize.Table{
		Range:          "A1:" + last,
		Name:           table,
		StyleName:      tableStyle,
		ShowRowStripes: &stripes,
	}); err != nil {
		return part, rows, err
	}
	return part, rows, sw.Flush()
}

// sheetPart returns the zip part name of a new worksheet. excelize names a
// new sheet's part after its sheet ID; the part is checked to exist, so a
// change in excelize shows up as an error here, not as a broken file.
func sheetPart(f *excelize.File, name string) (string, error) {
	for id, n := range f.GetSheetMap() {
		if n != name {
			continue
		}
		part := "xl/worksheets/sheet" + strconv.Itoa(id) + ".xml"
		if _, ok := f.Sheet.Load(part); ok {
			return part, nil
		}
	}
	return "", fmt.Errorf("internal error: cannot find the part of worksheet %q", name)
}

// fitCell cuts a string at Excel's cell limit, ending it with the marker.
func fitCell(s string) (string, bool) {
	// A UTF-8 string has at least as many bytes as UTF-16 code units.
	if len(s) <= maxCellChars || utf16Len(s) <= maxCellChars {
		return s, false
	}
	return truncUTF16(s, maxCellChars-utf16Len(truncMarker)) + truncMarker, true
}

// hyperlinkFormula returns HYPERLINK("url") for an http(s) URL. Real
// hyperlinks (relationships) are limited to 65,530 per sheet and cost
// excelize quadratic time; the formula works in Excel, LibreOffice and Google
// Sheets at any size. The URL is the only data in the formula, as a string
// literal with its quotes doubled; anything else, a URL too long for a
// formula literal, or with control characters, is not linked.
func hyperlinkFormula(u string) (string, bool) {
	lower := strings.ToLower(u)
	if !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://") {
		return "", false
	}
	if utf16Len(u) > maxFormulaString {
		return "", false
	}
	for _, r := range u {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return "", false
		}
	}
	return `HYPERLINK("` + strings.ReplaceAll(u, `"`, `""`) + `")`, true
}

// fitWidths returns a width per column fitted to the header and a sample of
// the rows [from, to).
func fitWidths(t *table, from, to int) []float64 {
	widths := make([]int, len(t.header))
	for c, h := range t.header {
		widths[c] = textfmt.Width(h) + 2 // room for the filter button
	}
	cells := make([]cellValue, len(t.header))
	sample := func(i int) {
		t.fill(i, cells)
		for c, cell := range cells {
			w := 0
			switch t.kinds[c] {
			case kindText, kindLink:
				// A text with line breaks wraps: its longest line counts.
				for line := range strings.SplitSeq(cell.Text, "\n") {
					w = max(w, textfmt.Width(line))
				}
			case kindTime:
				w = len(dateFormat)
			case kindBool:
				w = len("FALSE")
			case kindNumber:
				if !cell.Empty {
					w = len(textfmt.Thousands(int(cell.Num)))
				}
			}
			widths[c] = max(widths[c], w)
		}
	}
	n := to - from
	if n <= widthSamples {
		for i := from; i < to; i++ {
			sample(i)
		}
	} else {
		head := widthSamples / 2
		for i := from; i < from+head; i++ {
			sample(i)
		}
		step := (n - head) / (widthSamples - head)
		var jumps []int
		for i := from + head; i < to; i += step {
			jumps = append(jumps, i)
		}
		if t.prefetch != nil {
			t.prefetch(jumps) // one read, not a question a row
		}
		for _, i := range jumps {
			sample(i)
		}
	}
	out := make([]float64, len(widths))
	for c, w := range widths {
		out[c] = float64(min(max(w+2, minWidth), maxWidth))
	}
	return out
}

// The Summary's layout: columns as wide as their content up to
// sumMaxWidth characters, longer text wrapped in rows tall enough to show it.
const (
	sumMaxWidth = 48
	// sumLineHeight is the height of a line of text in points (the default
	// row height of an 11-point Calibri row).
	sumLineHeight = 15
)

// sumCellText is what a Summary cell shows, to measure it.
func sumCellText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int:
		return textfmt.Thousands(x)
	case time.Time:
		return dateFormat
	}
	return fmt.Sprint(v)
}

// sumWidths fits the Summary's columns to the cells of its plain and header
// rows (titles overflow into the empty cells beside them; wide rows span
// every column), between minWidth and sumMaxWidth characters.
func sumWidths(rows []sumRow) []float64 {
	var widths []int
	for _, row := range rows {
		if row.style == styleTitle || row.style == styleWide {
			continue
		}
		for c, v := range row.cells {
			for len(widths) <= c {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], textfmt.Width(sumCellText(v)))
		}
	}
	out := make([]float64, len(widths))
	for c, w := range widths {
		out[c] = float64(min(max(w+2, minWidth), sumMaxWidth))
	}
	return out
}

// wrappedLines is how many lines s takes wrapped at word boundaries in a
// column width characters wide (a word longer than the line is broken).
func wrappedLines(s string, width int) int {
	width = max(width, 1)
	lines := 0
	for _, para := range strings.Split(s, "\n") {
		lines++
		used := 0
		for _, word := range strings.Fields(para) {
			w := textfmt.Width(word)
			switch {
			case used == 0:
			case used+1+w <= width:
				used += 1 + w
				continue
			default:
				lines++
			}
			lines += (w - 1) / width
			used = w % width
			if w > 0 && used == 0 {
				used = width
			}
		}
	}
	return lines
}

// writeSummarySheet fills the Summary sheet (small: normal mode), laid out
// to read on screen and on paper: fitted column widths, long text wrapped,
// whole numbers with thousands separators (the cells stay numbers).
func writeSummarySheet(f *excelize.File, styles xlsxStyles, name string, rows []sumRow) error {
	ss := &sumSheet{f: f, styles: styles, name: name, widths: sumWidths(rows)}
	ss.ncol = max(len(ss.widths), 1)
	for _, w := range ss.widths {
		ss.total += w
	}
	for r, row := range rows {
		lines := 1
		for c, v := range row.cells {
			if v == nil {
				continue
			}
			n, err := ss.cell(r, c, v, row.style)
			if err != nil {
				return err
			}
			lines = max(lines, n)
		}
		if row.chart != nil {
			if err := ss.addChart(r, row.chart); err != nil {
				return err
			}
		}
		if lines > 1 {
			if err := f.SetRowHeight(name, r+1, float64(rowHeight(lines))); err != nil {
				return err
			}
		}
	}
	// The used range: a new sheet says "A1", and a reader that trusts
	// <dimension> (openpyxl in read-only mode) would see one cell.
	used, err := excelize.CoordinatesToCellName(ss.ncol, max(len(rows), 1))
	if err != nil {
		return err
	}
	if err := f.SetSheetDimension(name, "A1:"+used); err != nil {
		return err
	}
	for c, w := range ss.widths {
		if err := f.SetColWidth(name, colName(c), colName(c), w); err != nil {
			return err
		}
	}
	return printSetup(f, name)
}

// sumSheet is the Summary sheet being written: its column widths, their
// total and the number of columns.
type sumSheet struct {
	f      *excelize.File
	styles xlsxStyles
	name   string
	widths []float64
	total  float64
	ncol   int
}

// cell writes the value v of row r, column c, in the row's style, and
// returns the lines its text takes (a wide row spans every column).
func (ss *sumSheet) cell(r, c int, v any, rs rowStyle) (lines int, err error) {
	ref, err := excelize.CoordinatesToCellName(c+1, r+1)
	if err != nil {
		return 0, err
	}
	f, name, lines := ss.f, ss.name, 1
	style := ss.styles.sumText
	switch x := v.(type) {
	case string:
		s, _ := fitCell(x)
		err = f.SetCellStr(name, ref, s)
		width := ss.total
		if rs != styleWide && c < len(ss.widths) {
			width = ss.widths[c]
		}
		// One character of the width goes to the cell's margins.
		if n := wrappedLines(s, int(width)-1); n > 1 || rs == styleWide || strings.Contains(s, "\n") {
			style = ss.styles.sumWrap
			lines = n
		}
	case int:
		err = f.SetCellInt(name, ref, int64(x))
		style = ss.styles.sumNumber
	case time.Time:
		err = f.SetCellFloat(name, ref, excelTime(x), -1, 64)
		style = ss.styles.sumDate
	default:
		err = f.SetCellStr(name, ref, fmt.Sprint(x))
	}
	if err != nil {
		return 0, err
	}
	switch rs {
	case styleTitle:
		style = ss.styles.title
	case styleHeader:
		style = ss.styles.sumHeader
	case styleWide:
		last, err := excelize.CoordinatesToCellName(ss.ncol, r+1)
		if err != nil {
			return 0, err
		}
		if last != ref {
			if err := f.MergeCell(name, ref, last); err != nil {
				return 0, err
			}
		}
	}
	return lines, f.SetCellStyle(name, ref, ref, style)
}

// printSetup makes a sheet print (and convert to PDF) as people expect of
// a wide list: landscape, every column on the page width, as many pages
// down as it takes.
func printSetup(f *excelize.File, name string) error {
	fit, landscape, one, zero := true, "landscape", 1, 0
	if err := f.SetSheetProps(name, &excelize.SheetPropsOptions{FitToPage: &fit}); err != nil {
		return err
	}
	return f.SetPageLayout(name, &excelize.PageLayoutOptions{Orientation: &landscape, FitToWidth: &one, FitToHeight: &zero})
}

func colName(c int) string {
	s, _ := excelize.ColumnNumberToName(c + 1)
	return s
}
