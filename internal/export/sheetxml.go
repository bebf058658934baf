package export

import (
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The data rows of a worksheet are written here as SpreadsheetML, not with
// excelize's StreamWriter.SetRow: SetRow boxes every cell, escapes it with
// encoding/xml and allocates about eight times per cell, which made it the
// bulk of the time of a million-row sheet. The XML below is what SetRow
// writes for the same values (inline strings, numbers, booleans, formula
// cells with a cached value), built by appending to one reused buffer.

// xmlAttention marks the bytes that appendXMLText cannot copy as they are:
// control characters, the XML specials, '_' (which may start an _xHHHH_
// escape) and every byte of a multi-byte UTF-8 sequence.
var xmlAttention = func() (t [256]bool) {
	for b := range 0x20 {
		t[b] = true
	}
	for b := 0x80; b < 0x100; b++ {
		t[b] = true
	}
	t['&'], t['<'], t['>'], t['_'] = true, true, true, true
	return t
}()

// appendXMLText appends s as XML character data. &, < and > are escaped,
// and so are carriage return and tab (which XML readers would otherwise
// normalise). Characters that XML 1.0 cannot hold (most control characters,
// U+FFFE, U+FFFF) and bytes that are not UTF-8 become U+FFFD, as with
// encoding/xml. With bstr, a literal "_xHHHH_" gets its underscore written as
// "_x005F_", so that a reader does not decode it as an escaped character
// (ECMA-376 ST_Xstring, as excelize writes and reads it).
func appendXMLText(dst []byte, s string, bstr bool) []byte {
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if !xmlAttention[b] {
			i++
			continue
		}
		width := 1
		var esc string
		switch {
		case b >= utf8.RuneSelf:
			r, w := utf8.DecodeRuneInString(s[i:])
			if !(r == utf8.RuneError && w == 1) && r != 0xFFFE && r != 0xFFFF {
				i += w
				continue
			}
			width, esc = w, "\uFFFD"
		case b == '&':
			esc = "&amp;"
		case b == '<':
			esc = "&lt;"
		case b == '>':
			esc = "&gt;"
		case b == '\r':
			esc = "&#xD;"
		case b == '\t':
			esc = "&#x9;"
		case b == '\n':
			i++
			continue
		case b == '_':
			if !bstr || !bstrEscapeAt(s, i) {
				i++
				continue
			}
			esc = "_x005F_"
		default: // the other C0 controls
			esc = "\uFFFD"
		}
		dst = append(dst, s[start:i]...)
		dst = append(dst, esc...)
		i += width
		start = i
	}
	return append(dst, s[start:]...)
}

// bstrEscapeAt reports whether s[i:] starts with _xHHHH_ (H a hex digit).
func bstrEscapeAt(s string, i int) bool {
	if i+7 > len(s) || s[i] != '_' || s[i+1] != 'x' || s[i+6] != '_' {
		return false
	}
	for _, c := range []byte(s[i+2 : i+6]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// needsSpacePreserve reports whether a string needs xml:space="preserve" to
// keep its leading or trailing white space (the rule excelize applies).
func needsSpacePreserve(s string) bool {
	if s == "" {
		return false
	}
	isSpace := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }
	return isSpace(s[0]) || isSpace(s[len(s)-1])
}

// rowEncoder turns rows of a table into <row> elements.
type rowEncoder struct {
	kinds []cellKind
	// widths are the columns' widths in characters, to count the lines of
	// a cell that holds a line break (wrapped in a row tall enough).
	widths []float64
	wrap   []byte // ` s="N"` of text cells that hold a line break
	// plain and tall are the cells' styles of a row of one line and of a
	// taller row (every cell at the top, beside the wrapped lines, so that
	// nobody reads them as the row above's); cur is the row's.
	plain, tall cellStyles
	cur         *cellStyles
	cols        [][]byte // column letters, "A", "B", ...
	ref         []byte   // the row number being written
	cut         int      // cells cut at the cell limit so far
}

func newRowEncoder(styles xlsxStyles, kinds []cellKind, widths []float64) *rowEncoder {
	e := &rowEncoder{kinds: kinds, widths: widths, cols: make([][]byte, len(kinds))}
	for c := range kinds {
		e.cols[c] = []byte(colName(c))
	}
	attr := func(id int) []byte { return []byte(` s="` + strconv.Itoa(id) + `"`) }
	e.wrap = attr(styles.wrap)
	e.plain = cellStyles{date: attr(styles.date), link: attr(styles.link), num: attr(styles.number)}
	e.tall = cellStyles{text: attr(styles.top), date: attr(styles.topDate), link: attr(styles.topLink), num: attr(styles.topNumber)}
	e.cur = &e.plain
	return e
}

// cellStyles are the ` s="N"` attributes of cells by kind (nil: none).
type cellStyles struct{ text, date, link, num []byte }

// appendRow appends row r (1-based) of cells to dst. Empty cells are left
// out, as SetRow leaves out nil values.
func (e *rowEncoder) appendRow(dst []byte, r int, cells []cellValue) []byte {
	e.ref = strconv.AppendInt(e.ref[:0], int64(r), 10)
	dst = append(dst, `<row r="`...)
	dst = append(dst, e.ref...)
	e.cur = &e.plain
	if lines := e.lines(cells); lines > 1 {
		e.cur = &e.tall
		// A cell with a line break wraps, and its row is as tall as its
		// lines: left at the default height, LibreOffice draws the lines
		// over the rows below.
		dst = append(dst, `" ht="`...)
		dst = strconv.AppendInt(dst, int64(rowHeight(lines)), 10)
		dst = append(dst, `" customHeight="1`...)
	}
	dst = append(dst, `">`...)
	for c, cell := range cells {
		switch e.kinds[c] {
		case kindText:
			if cell.Text != "" {
				dst = e.appendText(dst, c, cell.Text)
			}
		case kindTime:
			if !cell.Empty && !cell.Time.IsZero() {
				dst = e.appendCellStart(dst, c, e.cur.date, "")
				dst = append(dst, `<v>`...)
				dst = strconv.AppendFloat(dst, excelTime(cell.Time), 'f', -1, 64)
				dst = append(dst, `</v></c>`...)
			}
		case kindBool:
			if !cell.Empty {
				dst = e.appendCellStart(dst, c, e.cur.text, "b")
				if cell.Bool {
					dst = append(dst, `<v>1</v></c>`...)
				} else {
					dst = append(dst, `<v>0</v></c>`...)
				}
			}
		case kindNumber:
			if !cell.Empty {
				dst = e.appendCellStart(dst, c, e.cur.num, "")
				dst = append(dst, `<v>`...)
				dst = strconv.AppendInt(dst, cell.Num, 10)
				dst = append(dst, `</v></c>`...)
			}
		case kindLink:
			if cell.Text == "" {
				continue
			}
			formula, ok := hyperlinkFormula(cell.Text)
			if !ok {
				dst = e.appendText(dst, c, cell.Text)
				continue
			}
			// The formula's only data is the URL, as a string literal with
			// its quotes doubled; the cached value is the URL itself.
			dst = e.appendCellStart(dst, c, e.cur.link, "str")
			dst = append(dst, `<f>`...)
			dst = appendXMLText(dst, formula, false)
			dst = append(dst, `</f><v>`...)
			dst = appendXMLText(dst, cell.Text, true)
			dst = append(dst, `</v></c>`...)
		}
	}
	return append(dst, `</row>`...)
}

// lines is how many lines the tallest cell of a row takes: a text cell
// with a line break, wrapped in its column's width; 1 when none has one.
func (e *rowEncoder) lines(cells []cellValue) int {
	n := 1
	for c, cell := range cells {
		if e.kinds[c] == kindText && strings.IndexByte(cell.Text, '\n') >= 0 {
			width := 60.0
			if c < len(e.widths) {
				width = e.widths[c]
			}
			n = max(n, wrappedLines(cell.Text, int(width)-1))
		}
	}
	return n
}

// maxRowHeight is the tallest row a worksheet holds, in points.
const maxRowHeight = 409

// rowHeight is the height of a row of lines lines of text, at most the
// 409 points a row can have (the cell then shows its first lines).
func rowHeight(lines int) int {
	return min(lines*sumLineHeight, maxRowHeight)
}

// appendCellStart appends <c r="REF" s=".." t=".."> for column c.
func (e *rowEncoder) appendCellStart(dst []byte, c int, style []byte, typ string) []byte {
	dst = append(dst, `<c r="`...)
	dst = append(dst, e.cols[c]...)
	dst = append(dst, e.ref...)
	dst = append(dst, '"')
	dst = append(dst, style...)
	if typ != "" {
		dst = append(dst, ` t="`...)
		dst = append(dst, typ...)
		dst = append(dst, '"')
	}
	return append(dst, '>')
}

// appendText appends an inline string cell: data is never a formula.
func (e *rowEncoder) appendText(dst []byte, c int, s string) []byte {
	s, cut := fitCell(s)
	if cut {
		e.cut++
	}
	style := e.cur.text
	if strings.IndexByte(s, '\n') >= 0 {
		style = e.wrap
	}
	dst = e.appendCellStart(dst, c, style, "inlineStr")
	if needsSpacePreserve(s) {
		dst = append(dst, `<is><t xml:space="preserve">`...)
	} else {
		dst = append(dst, `<is><t>`...)
	}
	dst = appendXMLText(dst, s, true)
	return append(dst, `</t></is></c>`...)
}

// sheetRowsXML is the XML of a worksheet's data rows, DEFLATE-compressed
// without a final block, ready to be spliced into the worksheet's zip entry.
type sheetRowsXML struct {
	data  *spillBuffer
	crc   uint32 // CRC-32 of the uncompressed XML
	size  int64  // uncompressed size
	cut   int    // cells cut at the cell limit
	level int
}

// flushAt is how much row XML is gathered before it goes to the compressor.
const flushAt = 64 << 10

// encodeRows writes rows [from, to) of t as <row> elements numbered from 2
// (under the header), compressed on every core as they are made.
func encodeRows(styles xlsxStyles, t *table, from, to int, widths []float64) (*sheetRowsXML, error) {
	out := &sheetRowsXML{data: &spillBuffer{}, level: zipLevel}
	z := newParallelDeflate(out.data, zipLevel)
	e := newRowEncoder(styles, t.kinds, widths)
	cells := make([]cellValue, len(t.kinds))
	buf := make([]byte, 0, flushAt+4096)
	put := func() {
		out.crc = crc32.Update(out.crc, crc32.IEEETable, buf)
		out.size += int64(len(buf))
		_, _ = z.Write(buf) // an error of the output comes back from closeOpen
		buf = buf[:0]
	}
	for i := from; i < to; i++ {
		t.fill(i, cells)
		buf = e.appendRow(buf, i-from+2, cells)
		if len(buf) >= flushAt {
			put()
			if err := t.haltErr(); err != nil {
				_ = z.closeOpen() // stopped: its output is dropped
				out.data.Close()  // and its spill file removed
				return nil, err
			}
		}
	}
	put()
	out.cut = e.cut
	if err := z.closeOpen(); err != nil {
		out.data.Close()
		return nil, err
	}
	return out, nil
}

// writeTo copies the compressed rows to w.
func (x *sheetRowsXML) writeTo(w io.Writer) error {
	r, err := x.data.reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, r)
	return err
}
