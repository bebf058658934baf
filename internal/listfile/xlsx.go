package listfile

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// An XLSX workbook is a zip archive of XML parts (ECMA-376, Office Open
// XML): _rels/.rels names the workbook part, the workbook lists the sheets
// and, through its relationships, where each sheet and the shared strings
// are. readXLSX reads the sheet wanted, or every sheet shown, streaming,
// with xmlScan.

// Limits of what one part of a workbook may unpack to: a small file must
// not claim gigabytes (a zip bomb).
const (
	maxPart     = 1 << 30 // a sheet or the shared strings
	maxMetaPart = 8 << 20 // the workbook and relationship parts
	maxColumns  = 16384   // columns of a sheet (A to XFD)
	maxRows     = 1 << 20 // rows of a sheet (1,048,576)
)

// readXLSX reads the sheet asked for, or every sheet not hidden
// (readSheets): in each, the first row with a value is the header. Cells
// are read as stored, not as the workbook formats them for display: a date
// is its serial day number (ParseDate reads it), a number keeps its
// digits, a boolean is TRUE or FALSE. Rows are numbered as the sheet
// numbers them.
func readXLSX(t *Table, r io.ReaderAt, size int64, columns []string, opts Options) error {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return damagedWorkbook(t.File, err)
	}
	p := xlsxPackage{parts: map[string]*zip.File{}}
	for _, f := range zr.File {
		p.parts[strings.ToLower(strings.TrimPrefix(f.Name, "/"))] = f
	}
	wbPath := p.officeDocument()
	wb, err := p.workbook(wbPath)
	if err != nil {
		return damagedWorkbook(t.File, err)
	}
	t.Date1904 = wb.Date1904
	rels, err := p.relationships(wbPath)
	if err != nil {
		return damagedWorkbook(t.File, err)
	}
	sheets, err := chooseSheets(t.File, wb.Sheets, opts.Sheet)
	if err != nil {
		return err
	}
	var sst sharedStrings
	for _, rel := range rels {
		if strings.HasSuffix(rel.typ, "/sharedStrings") && p.parts[rel.target] != nil {
			if sst, err = p.sharedStrings(rel.target); err != nil {
				return damagedWorkbook(t.File, err)
			}
		}
	}
	if len(sheets) == 1 {
		return readSheet(t, &p, rels, sst, sheets[0], columns)
	}
	return readSheets(t, &p, rels, sst, sheets, columns)
}

// readSheet reads one sheet of a workbook into t.
func readSheet(t *Table, p *xlsxPackage, rels map[string]relation, sst sharedStrings, sheet xmlSheet, columns []string) error {
	sheetPath, ok := rels[sheet.RelID]
	if !ok || p.parts[sheetPath.target] == nil {
		return damagedWorkbook(t.File, fmt.Errorf("sheet %q has no part", sheet.Name))
	}
	rc, err := p.open(sheetPath.target, maxPart)
	if err != nil {
		return damagedWorkbook(t.File, err)
	}
	defer func() { _ = rc.Close() }()
	t.Sheets = []string{sheet.Name}
	sr := sheetReader{t: t, sst: sst, columns: columns, sheet: sheet.Name}
	if err := sr.read(newXMLScan(rc)); err != nil {
		var le *Error
		var les *Errors
		if errors.As(err, &le) || errors.As(err, &les) {
			return err
		}
		return damagedWorkbook(t.File, err)
	}
	return nil
}

// readSheets reads every sheet of sheets into t, one after the other: each
// has its header row, which must have the columns asked for; the rows are
// those of every sheet, in order, each knowing its sheet, and so does
// every problem. A sheet without any value is left out (t.Sheets names
// the sheets read); a workbook whose every sheet is empty is an error.
func readSheets(t *Table, p *xlsxPackage, rels map[string]relation, sst sharedStrings, sheets []xmlSheet, columns []string) error {
	var first error
	var probs Errors
	for _, sh := range sheets {
		st := &Table{File: t.File, Format: XLSX, Date1904: t.Date1904}
		err := readSheet(st, p, rels, sst, sh, columns)
		var empty *emptySheetError
		switch {
		case errors.As(err, &empty):
			if first == nil {
				first = err
			}
			continue
		case err != nil && st.Columns == nil:
			// The header is not a list's: one error, and how to leave
			// the sheet out.
			var le *Error
			if errors.As(err, &le) {
				le.Sheet = sh.Name
				le.Msg += fmt.Sprintf("; every sheet not hidden is read: name the one to read (sheet = %q), or remove this one", firstOther(sheets, sh.Name))
			}
			return err
		case err != nil && !addSheetErrors(&probs, err, sh.Name):
			return err
		case err != nil:
			continue
		}
		if t.Columns == nil {
			t.Header, t.Columns = st.Header, st.Columns
		}
		t.Sheets = append(t.Sheets, sh.Name)
		for _, r := range st.Rows {
			r.Sheet = sh.Name
			t.Rows = append(t.Rows, r)
		}
	}
	if err := probs.Err(); err != nil {
		return err
	}
	if len(t.Sheets) == 0 {
		return first
	}
	return nil
}

// firstOther is the name of the first of sheets other than name.
func firstOther(sheets []xmlSheet, name string) string {
	for _, s := range sheets {
		if s.Name != name {
			return s.Name
		}
	}
	return name
}

// addSheetErrors adds the problems of err (an *Error or *Errors) to probs,
// naming sheet; it reports false for any other error.
func addSheetErrors(probs *Errors, err error, sheet string) bool {
	var le *Error
	var les *Errors
	switch {
	case errors.As(err, &les):
		for _, e := range les.List {
			e.Sheet = sheet
			probs.Add(e)
		}
		probs.More += les.More
	case errors.As(err, &le):
		le.Sheet = sheet
		probs.Add(le)
	default:
		return false
	}
	return true
}

// damagedWorkbook words a workbook that cannot be read.
func damagedWorkbook(file string, err error) error {
	return &Error{File: file, Msg: "is not a readable XLSX workbook (" + err.Error() + "); open it in Excel and save it again"}
}

// xlsxPackage is the parts of a workbook by lower-case name.
type xlsxPackage struct {
	parts map[string]*zip.File
}

// limitedPart reads a part and fails when it unpacks to more than its
// limit.
type limitedPart struct {
	io.ReadCloser
	left int64
}

func (l *limitedPart) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("a part unpacks to more than %s bytes", textfmt.Thousands(maxPart))
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.ReadCloser.Read(p)
	l.left -= int64(n)
	return n, err
}

func (p *xlsxPackage) open(name string, limit int64) (io.ReadCloser, error) {
	f := p.parts[name]
	if f == nil {
		return nil, fmt.Errorf("no part %s", name)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	return &limitedPart{ReadCloser: rc, left: limit + 1}, nil
}

// readXML decodes a small part with encoding/xml.
func (p *xlsxPackage) readXML(name string, v any) error {
	rc, err := p.open(name, maxMetaPart)
	if err != nil {
		return err
	}
	defer func() { _ = rc.Close() }()
	return xml.NewDecoder(rc).Decode(v)
}

// officeDocument is the workbook part's name (from _rels/.rels; by
// default xl/workbook.xml).
func (p *xlsxPackage) officeDocument() string {
	var rels xmlRels
	if p.parts["_rels/.rels"] != nil && p.readXML("_rels/.rels", &rels) == nil {
		for _, r := range rels.Rels {
			if strings.HasSuffix(r.Type, "/officeDocument") {
				return resolvePart("", r.Target)
			}
		}
	}
	return "xl/workbook.xml"
}

type xmlRels struct {
	Rels []struct {
		ID     string `xml:"Id,attr"`
		Type   string `xml:"Type,attr"`
		Target string `xml:"Target,attr"`
	} `xml:"Relationship"`
}

type relation struct{ target, typ string }

// relationships are the relationships of a part, by ID, with their
// targets resolved to part names.
func (p *xlsxPackage) relationships(part string) (map[string]relation, error) {
	dir, file := path.Split(part)
	var rels xmlRels
	if err := p.readXML(dir+"_rels/"+file+".rels", &rels); err != nil {
		return nil, err
	}
	out := map[string]relation{}
	for _, r := range rels.Rels {
		out[r.ID] = relation{target: resolvePart(dir, r.Target), typ: r.Type}
	}
	return out, nil
}

// resolvePart resolves a relationship's target against the directory of
// its source part: a lower-case part name without a leading slash.
func resolvePart(dir, target string) string {
	if strings.HasPrefix(target, "/") {
		return strings.ToLower(strings.TrimPrefix(path.Clean(target), "/"))
	}
	return strings.ToLower(strings.TrimPrefix(path.Clean("/"+dir+target), "/"))
}

type xmlSheet struct {
	Name  string     `xml:"name,attr"`
	State string     `xml:"state,attr"`
	Attrs []xml.Attr `xml:",any,attr"`
	RelID string     `xml:"-"`
}

type xmlWorkbook struct {
	Pr struct {
		Date1904 string `xml:"date1904,attr"`
	} `xml:"workbookPr"`
	Sheets   []xmlSheet `xml:"sheets>sheet"`
	Date1904 bool       `xml:"-"`
}

func (p *xlsxPackage) workbook(name string) (*xmlWorkbook, error) {
	var wb xmlWorkbook
	if err := p.readXML(name, &wb); err != nil {
		return nil, err
	}
	wb.Date1904 = wb.Pr.Date1904 == "1" || wb.Pr.Date1904 == "true"
	for i := range wb.Sheets {
		// r:id, in the namespace of relationships (transitional or strict)
		for _, a := range wb.Sheets[i].Attrs {
			if a.Name.Local == "id" && strings.HasSuffix(a.Name.Space, "relationships") {
				wb.Sheets[i].RelID = a.Value
			}
		}
	}
	return &wb, nil
}

// chooseSheets picks the sheet named (by exact name, else ignoring case),
// or every sheet not hidden (the first sheet when all are hidden).
func chooseSheets(file string, sheets []xmlSheet, want string) ([]xmlSheet, error) {
	if len(sheets) == 0 {
		return nil, &Error{File: file, Msg: "is a workbook without sheets"}
	}
	if want == "" {
		var shown []xmlSheet
		for _, s := range sheets {
			if s.State == "" || s.State == "visible" {
				shown = append(shown, s)
			}
		}
		if len(shown) == 0 {
			return sheets[:1], nil
		}
		return shown, nil
	}
	for _, s := range sheets {
		if s.Name == want {
			return []xmlSheet{s}, nil
		}
	}
	for _, s := range sheets {
		if strings.EqualFold(s.Name, want) {
			return []xmlSheet{s}, nil
		}
	}
	names := make([]string, len(sheets))
	for i, s := range sheets {
		names[i] = s.Name
	}
	return nil, &NoSheetError{File: file, Sheet: want, Sheets: names}
}

// NoSheetError is the error of a sheet asked for (Options.Sheet) that the
// workbook does not have; Sheets are the sheets it has, in order.
type NoSheetError struct {
	File   string
	Sheet  string
	Sheets []string
}

func (e *NoSheetError) Error() string {
	return fmt.Sprintf("%s: has no sheet %q; its sheets are %s", e.File, e.Sheet, textfmt.QuoteList(e.Sheets, ", "))
}

// emptySheetError is the error of a sheet without a header row: an error
// when the sheet is the one read, a sheet left out when every sheet is.
type emptySheetError struct{ err *Error }

func (e *emptySheetError) Error() string { return e.err.Error() }

func (e *emptySheetError) Unwrap() error { return e.err }

// sharedStrings is a workbook's table of strings, packed: string i is
// data[off[i]:off[i+1]]. A table of a million strings costs their bytes
// and four bytes each, not a Go string each.
type sharedStrings struct {
	data []byte
	off  []uint32
}

func (s *sharedStrings) len() int { return max(len(s.off)-1, 0) }

func (s *sharedStrings) bytes(i int) []byte { return s.data[s.off[i]:s.off[i+1]] }

func (p *xlsxPackage) sharedStrings(name string) (sharedStrings, error) {
	rc, err := p.open(name, maxPart)
	if err != nil {
		return sharedStrings{}, err
	}
	defer func() { _ = rc.Close() }()
	// The text is at most the part's size: one allocation, not a doubling
	// slice's many (the size is the zip's word, so it is capped).
	s := sharedStrings{off: []uint32{0}, data: make([]byte, 0, min(p.parts[name].UncompressedSize64, 64<<20))}
	sc := newXMLScan(rc)
	for {
		if _, err := sc.text(); err == io.EOF {
			return s, nil
		} else if err != nil {
			return sharedStrings{}, err
		}
		t, err := sc.tag()
		if err != nil {
			return sharedStrings{}, err
		}
		if t.is(tagStart, "sst") {
			if v, ok := attr(t.attrs, "uniqueCount"); ok {
				if n, err := strconv.Atoi(v); err == nil && n > 0 {
					s.off = make([]uint32, 1, min(n, 1<<22)+1)
				}
			}
		}
		if !t.is(tagStart, "si") {
			continue
		}
		if !t.selfClose {
			if s.data, err = sc.richText("si", s.data); err != nil {
				return sharedStrings{}, err
			}
		}
		if len(s.data) > maxPart {
			return sharedStrings{}, errDamaged
		}
		s.off = append(s.off, uint32(len(s.data)))
	}
}

// sheetReader reads the rows of a sheet into a Table.
type sheetReader struct {
	t       *Table
	sst     sharedStrings
	columns []string
	sheet   string

	idx    []int          // the columns asked for, by index in the header; nil before the header
	slot   map[int]int    // column index -> position in idx
	probs  Errors         // row problems
	header map[int]string // the header row's cells while it is read
	buf    []byte         // the raw value of the cell being read
	endC   []byte         // the end tag of a cell, with the sheet's prefix
	rows   rowCollector   // the data rows
}

// read reads every row of the sheet.
func (r *sheetReader) read(sc *xmlScan) error {
	row := 0
	for {
		if _, err := sc.text(); err == io.EOF {
			break
		} else if err != nil {
			return err
		}
		t, err := sc.tag()
		if err != nil {
			return err
		}
		if t.is(tagEnd, "sheetData") {
			break
		}
		if !t.is(tagStart, "row") {
			continue
		}
		n := row + 1
		if v, ok := attrRaw(t.attrs, "r"); ok {
			if n, err = strconv.Atoi(string(v)); err != nil || n <= row || n > maxRows {
				return fmt.Errorf("row %q after row %d", v, row)
			}
		}
		row = n
		if t.selfClose {
			continue
		}
		if err := r.readRow(sc, row); err != nil {
			return err
		}
	}
	if r.idx == nil {
		return &emptySheetError{&Error{File: r.t.File, Msg: fmt.Sprintf("sheet %q is empty; a list starts with a header row naming its columns", r.sheet)}}
	}
	r.t.Rows = r.rows.rows()
	return r.probs.Err()
}

// readRow reads the cells of one row, whose start tag was read.
func (r *sheetReader) readRow(sc *xmlScan, row int) error {
	var cells []string
	if r.idx != nil {
		r.rows.width = len(r.idx)
		cells = r.rows.next()
	} else {
		r.header = map[int]string{}
	}
	col, empty, extra := -1, true, 0
	for {
		if _, err := sc.text(); err != nil {
			return damagedAtEOF(err)
		}
		t, err := sc.tag()
		if err != nil {
			return err
		}
		if t.is(tagEnd, "row") {
			break
		}
		if !t.is(tagStart, "c") {
			continue
		}
		col++
		if ref, ok := attrRaw(t.attrs, "r"); ok {
			if col, ok = columnOf(ref); !ok || col >= maxColumns {
				return fmt.Errorf("cell %q in row %d", ref, row)
			}
		}
		typ, _ := attrRaw(t.attrs, "t")
		typ = bytes.TrimSpace(typ)
		if t.selfClose {
			continue
		}
		slot, wanted := r.slot[col]
		if r.idx != nil && !wanted && col < len(r.t.Header) && string(typ) != "inlineStr" {
			// a cell nobody reads
			if r.endC == nil || !bytes.Equal(r.endC[2:len(r.endC)-2], t.prefix) {
				r.endC = endTag(&t)
			}
			if err := sc.skipTo(r.endC); err != nil {
				return err
			}
			continue
		}
		keep := r.idx == nil || wanted
		v, err := r.cellValue(sc, string(typ), keep)
		if err != nil {
			return fmt.Errorf("row %d: %w", row, err)
		}
		switch {
		case r.idx == nil:
			r.header[col] = strings.TrimSpace(v)
		case wanted:
			if !utf8.ValidString(v) {
				r.probs.Add(&Error{File: r.t.File, Row: row, Column: r.t.Columns[slot], Msg: "has " + invalidUTF8(v) + ": the workbook is damaged; open it in Excel and save it again"})
				continue
			}
			cells[slot] = v
			if empty && strings.TrimSpace(v) != "" {
				empty = false
			}
		case col >= len(r.t.Header) && v != "":
			extra++
		}
	}
	if r.idx == nil {
		return r.takeHeader(row)
	}
	if extra > 0 {
		r.probs.Add(&Error{File: r.t.File, Row: row, Msg: fmt.Sprintf("has %s right of the header's last column %s; give the column a header or clear it", textfmt.Plural(extra, "value"), ColumnLetter(len(r.t.Header)-1))})
		return nil
	}
	if !empty {
		r.rows.keep(row, cells)
	}
	return nil
}

// takeHeader makes the row just read the header, when it has a value.
func (r *sheetReader) takeHeader(row int) error {
	last := -1
	for c, v := range r.header {
		if v != "" && c > last {
			last = c
		}
	}
	if last < 0 {
		return nil
	}
	r.t.Header = make([]string, last+1)
	for c, v := range r.header {
		if c <= last {
			r.t.Header[c] = v
		}
	}
	idx, names, err := findColumns(r.t.File, row, r.t.Header, r.columns)
	if err != nil {
		return err
	}
	r.idx, r.t.Columns = idx, names
	r.slot = make(map[int]int, len(idx))
	for i, c := range idx {
		r.slot[c] = i
	}
	r.header = nil
	return nil
}

// cellValue reads a cell's content, whose start tag was read, up to its
// end tag, and returns its value as text when keep is set (else only
// whether it has one, as "x" or ""), by the cell's type.
func (r *sheetReader) cellValue(sc *xmlScan, typ string, keep bool) (string, error) {
	v := r.buf[:0]
	has := false
	for {
		if _, err := sc.text(); err != nil {
			return "", damagedAtEOF(err)
		}
		t, err := sc.tag()
		if err != nil {
			return "", err
		}
		switch {
		case t.is(tagEnd, "c"):
			r.buf = v[:0] // v, not what typed makes of it (a shared string's bytes)
			return r.typed(typ, v, has, keep)
		case t.selfClose:
		case t.is(tagStart, "v"):
			if v, err = sc.elementText(v[:0]); err != nil {
				return "", err
			}
			has = true
		case t.is(tagStart, "is"):
			if v, err = sc.richText("is", v[:0]); err != nil {
				return "", err
			}
			has = true
		case t.kind == tagStart:
			// a formula (<f>) or an extension: its text is not the value
			if err := skipElement(sc, string(t.name)); err != nil {
				return "", err
			}
		}
	}
}

// typed turns a cell's raw value into its text.
func (r *sheetReader) typed(typ string, v []byte, has, keep bool) (string, error) {
	if !has {
		return "", nil
	}
	switch typ {
	case "s":
		i, err := strconv.Atoi(string(bytes.TrimSpace(v)))
		if err != nil || i < 0 || i >= r.sst.len() {
			return "", fmt.Errorf("shared string %q of %d", v, r.sst.len())
		}
		v = r.sst.bytes(i)
	case "b":
		switch string(bytes.TrimSpace(v)) {
		case "1":
			return "TRUE", nil
		case "0":
			return "FALSE", nil
		}
	case "inlineStr":
	default:
		// numbers, dates (t="d"), errors, formula strings: as stored
		v = bytes.TrimSpace(v)
	}
	if !keep {
		if len(bytes.TrimSpace(v)) > 0 {
			return "x", nil
		}
		return "", nil
	}
	return string(v), nil
}

// skipElement reads past the end of an element whose start tag was read.
func skipElement(sc *xmlScan, name string) error {
	depth := 1
	for depth > 0 {
		if _, err := sc.text(); err != nil {
			return damagedAtEOF(err)
		}
		t, err := sc.tag()
		if err != nil {
			return err
		}
		switch {
		case t.kind == tagStart && !t.selfClose && string(t.name) == name:
			depth++
		case t.is(tagEnd, name):
			depth--
		}
	}
	return nil
}

// columnOf reads the column of a cell reference ("AB12" -> 27).
func columnOf(ref []byte) (int, bool) {
	col, i := 0, 0
	for ; i < len(ref); i++ {
		c := ref[i] | 0x20 // lower case
		if c < 'a' || c > 'z' {
			break
		}
		col = col*26 + int(c-'a'+1)
		if col > maxColumns {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	return col - 1, true
}

// excelEpoch is the day before serial day 1 of each of Excel's date
// systems, for the serials after the 1900 system's fictitious 29
// February 1900 (serial 60).
var (
	excelEpoch1900 = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC)
	excelEpoch1904 = time.Date(1904, 1, 1, 0, 0, 0, 0, time.UTC)
)

// excelDate converts a serial day number (with the time as its fraction)
// to a time, in the workbook's date system.
func excelDate(serial float64, date1904 bool) time.Time {
	epoch := excelEpoch1900
	if date1904 {
		epoch = excelEpoch1904
	} else if serial < 61 {
		epoch = epoch.AddDate(0, 0, 1) // before the fictitious 29 February 1900
	}
	days := int(serial)
	secs := int64((serial-float64(days))*86400 + 0.5)
	return epoch.AddDate(0, 0, days).Add(time.Duration(secs) * time.Second)
}
