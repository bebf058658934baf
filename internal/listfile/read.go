package listfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/leadsync/leadsync/internal/textfmt"
)

// Format is the kind of a list file.
type Format int

// The formats Read accepts.
const (
	CSV Format = iota + 1
	XLSX
)

// String names the format as a file extension does: "csv", "xlsx".
func (f Format) String() string {
	switch f {
	case CSV:
		return "csv"
	case XLSX:
		return "xlsx"
	}
	return "unknown"
}

// maxSize bounds a list file: a list of a million rows of a wide CRM
// export fits; a file larger than this is a mistake.
const maxSize = 1 << 30

// Options are how a file is read beyond what Read can tell by itself.
type Options struct {
	// Sheet is the sheet of an XLSX workbook to read; "" reads every sheet
	// not hidden, one after the other.
	Sheet string
	// Encoding is the text encoding of a CSV file without a byte order
	// mark; the zero value is UTF-8. A byte order mark (UTF-8, UTF-16)
	// always wins: it says what the file is.
	Encoding Encoding
}

// Table is what Read returns: the columns asked for, row by row.
type Table struct {
	File      string   // the file, as the caller named it
	Format    Format   // CSV or XLSX
	Header    []string // every column of the header row, trimmed
	Columns   []string // the columns asked for, as the header spells them
	Rows      []Row    // the data rows, in file order; rows with every cell empty are left out
	Delimiter rune     // the delimiter of a CSV file
	Encoding  Encoding // the encoding a CSV file was read in
	Date1904  bool     // a workbook counts its date cells from 1904 (old Excel for Mac)
	// Sheets are the sheets of a workbook read, in order (the empty ones
	// left out); nil for a CSV file.
	Sheets []string
	// Digest is a hex SHA-256 of what was read: the columns asked for and
	// their cells, in order. Re-saving a workbook, or changing a column
	// nobody reads, leaves it as it was.
	Digest string
}

// Row is one data row: the cells of the columns asked for, in the order
// asked, and where the row is.
type Row struct {
	Line  int // the line of a CSV file (where the record starts) or the row of the sheet
	Cells []string
	// Sheet is the row's sheet when a workbook's every sheet was read and
	// it has several; "" otherwise.
	Sheet string
}

// Read reads the file name of fsys (a CSV or an XLSX workbook, told by its
// extension and checked against its content) and returns the columns
// asked for. file is how messages name the file (the path as the
// configuration wrote it). Every problem is an *Error or *Errors naming
// the file, and the row and column where there is one.
func Read(fsys fs.FS, name, file string, columns []string, opts Options) (*Table, error) {
	format, err := formatOf(name, file)
	if err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, openError(file, err)
	}
	defer func() { _ = f.Close() }()
	fi, err := f.Stat()
	if err != nil {
		return nil, openError(file, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: file, Msg: "is not a regular file"}
	}
	if fi.Size() > maxSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("is %s bytes; a list file may have at most %s", textfmt.Thousands(int(fi.Size())), textfmt.Thousands(maxSize))}
	}
	if ra, ok := f.(io.ReaderAt); ok && format == XLSX {
		// A workbook is read in place, not copied into memory.
		magic := make([]byte, 8)
		n, _ := ra.ReadAt(magic, 0)
		if err := checkMagic(magic[:n], file, format); err != nil {
			return nil, err
		}
		t := &Table{File: file, Format: XLSX}
		return finish(t, readXLSX(t, ra, fi.Size(), columns, opts))
	}
	return ReadFrom(f, file, format, columns, opts)
}

// ReadFrom reads a list file of the given format from r; see Read.
func ReadFrom(r io.Reader, file string, format Format, columns []string, opts Options) (*Table, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	magic, _ := br.Peek(8)
	if err := checkMagic(magic, file, format); err != nil {
		return nil, err
	}
	t := &Table{File: file, Format: format}
	if format == CSV {
		return finish(t, readCSV(t, br, columns, opts))
	}
	data, err := io.ReadAll(io.LimitReader(br, maxSize+1))
	if err == nil && len(data) > maxSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("is larger than %s bytes, the most a list file may have", textfmt.Thousands(maxSize))}
	}
	if err != nil {
		return finish(t, err)
	}
	return finish(t, readXLSX(t, bytes.NewReader(data), int64(len(data)), columns, opts))
}

// finish returns the table read, with its digest, or the error of reading
// it, as an *Error or *Errors naming the file.
func finish(t *Table, err error) (*Table, error) {
	if err != nil {
		var le *Error
		var les *Errors
		var ns *NoSheetError
		if !errors.As(err, &le) && !errors.As(err, &les) && !errors.As(err, &ns) {
			err = &Error{File: t.File, Msg: "cannot be read: " + err.Error()}
		}
		return nil, err
	}
	t.Digest = digest(t)
	return t, nil
}

// formatOf tells the format from the file's extension.
func formatOf(name, file string) (Format, error) {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".csv":
		return CSV, nil
	case ".xlsx":
		return XLSX, nil
	case ".xls":
		return 0, &Error{File: file, Msg: "is an Excel 97-2003 workbook (.xls); open it in Excel and save it as .xlsx or as CSV UTF-8"}
	default:
		what := "has no extension"
		if ext != "" {
			what = fmt.Sprintf("has the extension %q", ext)
		}
		return 0, &Error{File: file, Msg: what + "; a list file is a .csv or an .xlsx file with a header row"}
	}
}

// checkMagic compares the first bytes of a file with its extension: a
// workbook renamed .csv, or a text file renamed .xlsx, is told as such
// rather than read as garbage.
func checkMagic(magic []byte, file string, format Format) error {
	zip := bytes.HasPrefix(magic, []byte("PK\x03\x04"))
	ole := bytes.HasPrefix(magic, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1})
	switch {
	case ole && format == XLSX:
		return &Error{File: file, Msg: "is a password-protected workbook or an Excel 97-2003 (.xls) file renamed .xlsx; save it without a password as .xlsx, or as CSV UTF-8"}
	case ole:
		return &Error{File: file, Msg: "is an Excel 97-2003 workbook (.xls), not CSV text; save it as CSV UTF-8 or as .xlsx"}
	case zip && format == CSV:
		return &Error{File: file, Msg: "is a workbook or another zip archive, not CSV text; name it .xlsx if it is a workbook, or save it as CSV UTF-8"}
	case !zip && format == XLSX && len(magic) > 0:
		return &Error{File: file, Msg: "is not an XLSX workbook (an .xlsx file is a zip archive); if it is CSV text, name it .csv"}
	}
	return nil
}

// openError words a failure to open a list file.
func openError(file string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Error{File: file, Msg: "does not exist; the path is relative to the configuration folder"}
	case errors.Is(err, fs.ErrPermission):
		return &Error{File: file, Msg: "cannot be read: permission denied"}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{File: file, Msg: "cannot be read: " + err.Error()}
}

// findColumns returns the index in header of each wanted column: the
// column of that exact (trimmed) name, else the one column whose name
// differs only in case. A wanted column that is missing, or named twice,
// is an error listing the columns there are.
func findColumns(file string, row int, header, want []string) ([]int, []string, error) {
	idx := make([]int, len(want))
	names := make([]string, len(want))
	for i, w := range want {
		w = strings.TrimSpace(w)
		var exact, folded []int
		for j, h := range header {
			switch {
			case h == w:
				exact = append(exact, j)
			case strings.EqualFold(h, w):
				folded = append(folded, j)
			}
		}
		cand := exact
		if len(cand) == 0 {
			cand = folded
		}
		switch len(cand) {
		case 1:
			idx[i], names[i] = cand[0], header[cand[0]]
		case 0:
			return nil, nil, &Error{File: file, Row: row, Msg: fmt.Sprintf("has no column %q; its columns are %s", w, columnList(header))}
		default:
			return nil, nil, &Error{File: file, Row: row, Msg: fmt.Sprintf("has %d columns named %q (columns %s); rename all but one", len(cand), w, columnLetters(cand))}
		}
	}
	return idx, names, nil
}

// columnList quotes the names of the columns, the unnamed ones by letter.
func columnList(header []string) string {
	if len(header) == 0 {
		return "none"
	}
	q := make([]string, len(header))
	for i, h := range header {
		if h == "" {
			q[i] = "(unnamed column " + ColumnLetter(i) + ")"
			continue
		}
		q[i] = fmt.Sprintf("%q", h)
	}
	return strings.Join(q, ", ")
}

func columnLetters(idx []int) string {
	l := make([]string, len(idx))
	for i, j := range idx {
		l[i] = ColumnLetter(j)
	}
	return strings.Join(l, " and ")
}

// ColumnLetter names a zero-based column index as a spreadsheet does:
// 0 -> A, 25 -> Z, 26 -> AA.
func ColumnLetter(i int) string {
	var b []byte
	for i++; i > 0; i = (i - 1) / 26 {
		b = append([]byte{byte('A' + (i-1)%26)}, b...)
	}
	return string(b)
}

// digest is a hash of the columns read and their cells: each string
// length-prefixed, so that no two tables share one.
func digest(t *Table) string {
	h := sha256.New()
	buf := make([]byte, 0, 256)
	put := func(s string) {
		buf = append(binary.AppendUvarint(buf[:0], uint64(len(s))), s...)
		h.Write(buf)
	}
	for _, c := range t.Columns {
		put(c)
	}
	for _, r := range t.Rows {
		for _, c := range r.Cells {
			put(c)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// emptyFile is the error of a file without a header row.
func emptyFile(file string) error {
	return &Error{File: file, Msg: "is empty; a list file starts with a header row naming its columns"}
}

// rowCollector gathers a table's rows: their cells cut from blocks of
// strings, and the rows in blocks copied into one slice at the end, so that
// a file of 100,000 rows is not appended into a slice grown again and
// again.
type rowCollector struct {
	width  int
	cells  []string // the free part of the current block of cells
	blocks [][]Row
	cur    []Row
	n      int
}

// next returns the empty cells of the row to read; they are the row's if
// keep is called, the next row's otherwise.
func (c *rowCollector) next() []string {
	if len(c.cells) < c.width {
		c.cells = make([]string, c.width*1024)
	}
	cells := c.cells[:c.width:c.width]
	clear(cells)
	return cells
}

// keep adds the row whose cells next returned.
func (c *rowCollector) keep(line int, cells []string) {
	c.cells = c.cells[c.width:]
	if len(c.cur) == cap(c.cur) {
		if c.cur != nil {
			c.blocks = append(c.blocks, c.cur)
		}
		c.cur = make([]Row, 0, 4096)
	}
	c.cur = append(c.cur, Row{Line: line, Cells: cells})
	c.n++
}

// rows returns the rows kept, in order; nil when there are none.
func (c *rowCollector) rows() []Row {
	if c.n == 0 {
		return nil
	}
	if len(c.blocks) == 0 {
		return c.cur
	}
	out := make([]Row, 0, c.n)
	for _, b := range c.blocks {
		out = append(out, b...)
	}
	return append(out, c.cur...)
}
