package listfile

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// delimiters are the delimiters a CSV file may use, in the order a tie
// is broken: "," (RFC 4180), ";" (Excel where the decimal mark is a comma)
// and tab.
var delimiters = []rune{',', ';', '\t'}

// readCSV reads a CSV file: encoding, delimiter, header row, then the
// wanted cells of every row. Problems of rows are gathered and reported
// together; nothing is returned with them.
func readCSV(t *Table, br *bufio.Reader, columns []string, opts Options) error {
	text, skipped, err := csvText(t, br, opts)
	if err != nil {
		return err
	}
	delim := t.Delimiter
	r := csv.NewReader(text)
	r.Comma = delim
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	var probs Errors
	header, err := r.Read()
	if err == io.EOF {
		return emptyFile(t.File)
	}
	if err != nil {
		return csvError(t.File, err, skipped)
	}
	headerLine, _ := r.FieldPos(0)
	headerLine += skipped
	t.Header = make([]string, len(header))
	for i, h := range header {
		if !utf8.ValidString(h) {
			return &Error{File: t.File, Row: headerLine, Msg: "the header row has " + invalidUTF8(h) + ": " + encodingHint}
		}
		t.Header[i] = strings.TrimSpace(strings.TrimPrefix(h, "\uFEFF"))
	}
	idx, names, err := findColumns(t.File, headerLine, t.Header, columns)
	if err != nil {
		return err
	}
	t.Columns = names
	rows := rowCollector{width: len(idx)}
	defer func() { t.Rows = rows.rows() }()
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return &Error{File: t.File, Msg: "cannot be read: " + err.Error()}
			}
			probs.Add(csvError(t.File, err, skipped))
			continue
		}
		line, _ := r.FieldPos(0)
		line += skipped
		if extra := extraValues(rec, len(header)); extra > 0 {
			probs.Add(&Error{File: t.File, Row: line, Msg: fmt.Sprintf("has %d values, but the header row names %d columns; a value that contains %s must be in double quotes", len(rec), len(header), delimName(delim))})
			continue
		}
		keepRecord(&rows, rec, idx, names, t.File, line, &probs)
	}
	return probs.Err()
}

// csvText is the text of a CSV file, decoded, past Excel's "sep=" line
// (skipped lines), with t's encoding and delimiter set; or the error of a
// file that is empty or not text.
func csvText(t *Table, br *bufio.Reader, opts Options) (text *bufio.Reader, skipped int, err error) {
	dec, enc := decoder(br, opts.Encoding)
	t.Encoding = enc
	text, ok := dec.(*bufio.Reader)
	if !ok {
		text = bufio.NewReaderSize(dec, 64<<10)
	}
	head, _ := text.Peek(4 << 10)
	if bytes.IndexByte(head, 0) >= 0 {
		return nil, 0, &Error{File: t.File, Msg: "contains NUL bytes: it is UTF-16 text without a byte order mark, or not text at all; save it as CSV UTF-8"}
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, 0, emptyFile(t.File)
	}
	skipped, delim := sepLine(text)
	if delim == 0 {
		first, _ := text.Peek(64 << 10)
		delim = sniffDelimiter(firstLine(first))
	}
	t.Delimiter = delim
	return text, skipped, nil
}

// keepRecord keeps the wanted cells (idx, named names) of a record read
// at line, unless all are empty; a cell that is not UTF-8 is a problem of
// its row.
func keepRecord(rows *rowCollector, rec []string, idx []int, names []string, file string, line int, probs *Errors) {
	cells := rows.next()
	empty := true
	size := 0
	for i, j := range idx {
		if j >= len(rec) {
			continue
		}
		c := rec[j]
		if !utf8.ValidString(c) {
			probs.Add(&Error{File: file, Row: line, Column: names[i], Msg: "has " + invalidUTF8(c) + ": " + encodingHint})
			continue
		}
		cells[i] = c
		size += len(c)
		if empty && strings.TrimSpace(c) != "" {
			empty = false
		}
	}
	if empty {
		return
	}
	// The record's fields are reused by the next Read: the row's cells are
	// copied into one string and cut out of it.
	var b strings.Builder
	b.Grow(size)
	for _, c := range cells {
		b.WriteString(c)
	}
	all := b.String()
	for i, c := range cells {
		cells[i], all = all[:len(c)], all[len(c):]
	}
	rows.keep(line, cells)
}

// sepLine reads Excel's optional first line "sep=;" that names the
// delimiter; it returns the lines consumed and the delimiter, or 0, 0.
func sepLine(text *bufio.Reader) (int, rune) {
	head, _ := text.Peek(8)
	s := string(head)
	if len(s) < 5 || !strings.EqualFold(s[:4], "sep=") {
		return 0, 0
	}
	d, size := utf8.DecodeRuneInString(s[4:])
	rest := s[4+size:]
	if !strings.HasPrefix(rest, "\n") && !strings.HasPrefix(rest, "\r\n") {
		return 0, 0
	}
	if d == utf8.RuneError || d == '"' || d == '\r' || d == '\n' {
		return 0, 0
	}
	_, _ = text.Discard(4 + size + strings.Index(rest, "\n") + 1)
	return 1, d
}

// firstLine returns the first non-blank line of b (a quoted value may
// span lines; the sniffer's count outside quotes does not mind).
func firstLine(b []byte) []byte {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			return line
		}
	}
	return nil
}

// sniffDelimiter picks the delimiter the header line uses most, outside
// double quotes; a header of one column (no delimiter at all) is read
// with ",".
func sniffDelimiter(line []byte) rune {
	counts := map[rune]int{}
	quoted := false
	for _, c := range string(line) {
		if c == '"' {
			quoted = !quoted
			continue
		}
		if !quoted {
			counts[c]++
		}
	}
	best := ','
	for _, d := range delimiters {
		if counts[d] > counts[best] {
			best = d
		}
	}
	return best
}

// extraValues counts the values of rec beyond the header's columns that
// are not empty; Excel writes empty ones when a cell right of the table
// was ever touched.
func extraValues(rec []string, columns int) int {
	n := 0
	for _, v := range rec[min(columns, len(rec)):] {
		if strings.TrimSpace(v) != "" {
			n++
		}
	}
	return n
}

func delimName(d rune) string {
	switch d {
	case '\t':
		return "a tab"
	case ',':
		return "a comma"
	case ';':
		return "a semicolon"
	}
	return fmt.Sprintf("%q", string(d))
}

// csvError words a parse error of encoding/csv with the file and line.
func csvError(file string, err error, skipped int) *Error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &Error{File: file, Msg: "cannot be read: " + err.Error()}
	}
	line := pe.StartLine + skipped
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return &Error{File: file, Row: line, Msg: `has a double quote inside a value that does not start with one; put the whole value in double quotes and double the quote inside ("Acme ""Best"" GmbH"), or remove it`}
	case errors.Is(pe.Err, csv.ErrQuote) && pe.Line > pe.StartLine:
		return &Error{File: file, Row: line, Msg: fmt.Sprintf("starts a value in double quotes that runs to line %d without being closed; a value in double quotes must end with one", pe.Line+skipped)}
	case errors.Is(pe.Err, csv.ErrQuote):
		return &Error{File: file, Row: line, Msg: `has a quoted value followed by other characters before the delimiter; a double quote inside a quoted value is written twice ("")`}
	}
	return &Error{File: file, Row: line, Msg: pe.Err.Error()}
}
