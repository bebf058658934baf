package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// ListFile is what an exclude or import block says of its file: where it
// is and how to read it.
type ListFile struct {
	// File is the path as written, relative to Config.Dir (as file()
	// reads it).
	File string
	// Sheet is the sheet of a workbook to read; "" every sheet not hidden,
	// one after the other.
	Sheet string
	// Sheets are the sheets of a workbook read (the empty ones left out),
	// as the workbook names them; nil for a CSV file.
	Sheets []string
	// Encoding is the encoding of a CSV file without a byte order mark;
	// "" is UTF-8.
	Encoding listfile.Encoding
	// Rows is the number of data rows read (rows with every cell read
	// empty left out); Digest the listfile digest of what was read.
	Rows   int
	Digest string
	// FileRange is where file is set, for messages; SheetRange where
	// sheet is (the zero range without it).
	FileRange, SheetRange hcl.Range
}

// listAttrs are the attributes every block that reads a list file has.
var listAttrs = []hcl.AttributeSchema{{Name: "file"}, {Name: "sheet"}, {Name: "encoding"}}

// decodeListFile reads file, sheet and encoding of a block; ok is false
// when one is missing or wrong (reported).
func (l *loader) decodeListFile(b *hcl.Block, at hcl.Attributes, meant map[string]bool, what string) (ListFile, bool) {
	var lf ListFile
	a := at["file"]
	switch {
	case a == nil && meant["file"]:
		return lf, false // misspelt: that error is the one to fix
	case a == nil:
		l.errorf(b.DefRange.Ptr(), "Missing file", "%s needs file, the CSV or XLSX list to read (with a header row), like file = \"crm/customers.csv\"; the path is relative to the configuration folder.", what)
		return lf, false
	}
	good := true
	s, _, st := l.stringAttr(a, l.base, scope{}, false)
	switch {
	case st != ok:
		good = false
	case strings.TrimSpace(s) == "":
		l.errorf(a.Expr.Range().Ptr(), "Empty file", "file must name a CSV or XLSX file, like \"crm/customers.csv\".")
		good = false
	default:
		lf.File, lf.FileRange = s, a.Expr.Range()
	}
	if v, _, st := l.stringAttr(at["sheet"], l.base, scope{}, false); st == ok {
		lf.Sheet, lf.SheetRange = v, at["sheet"].Expr.Range()
		good = l.checkSheet(&lf) && good
	} else if st == bad {
		good = false
	}
	if v, _, st := l.stringAttr(at["encoding"], l.base, scope{}, false); st == ok {
		enc, known := listfile.ParseEncoding(v)
		if !known {
			l.errorf(at["encoding"].Expr.Range().Ptr(), "Unknown encoding", "encoding is one of %s (a file with a byte order mark, UTF-8 or UTF-16, is read as it says without it); got %q.", strings.Join(listfile.Encodings(), ", "), v)
			good = false
		}
		lf.Encoding = enc
	} else if st == bad {
		good = false
	}
	return lf, good
}

// checkSheet reports a sheet that cannot name one: empty, or given for a
// CSV file, which has none.
func (l *loader) checkSheet(lf *ListFile) bool {
	switch {
	case strings.TrimSpace(lf.Sheet) == "":
		l.errorf(lf.SheetRange.Ptr(), "Empty sheet", "sheet names the sheet of an XLSX workbook to read, like sheet = \"Customers\"; without it every sheet not hidden is read. Remove it, or name a sheet.")
		return false
	case lf.File != "" && strings.EqualFold(filepath.Ext(lf.File), ".csv"):
		l.errorf(lf.SheetRange.Ptr(), "Sheet of a CSV file", "%q is a CSV file, which has no sheets; sheet is for XLSX workbooks. Remove sheet.", lf.File)
		return false
	}
	return true
}

// readList reads the columns of a list file through the configuration
// folder's os.Root (as file() does: a path that leaves the folder, by
// ".." or by a symbolic link, is refused). Problems are diagnostics at
// the file attribute, with the file's rows and columns in the detail.
func (l *loader) readList(lf *ListFile, columns []string) (*listfile.Table, bool) {
	rng := lf.FileRange.Ptr()
	name, inside := resolveFile(l.opts.Dir, lf.File)
	if !inside || l.listFS == nil {
		l.errorf(rng, "List file outside the configuration folder", "%q is outside the configuration folder; a list file is read from inside it, like file() (copy the file in, or link the folder's files from elsewhere into it).", lf.File)
		return nil, false
	}
	t, err := listfile.Read(l.listFS, name, lf.File, columns, listfile.Options{Sheet: lf.Sheet, Encoding: lf.Encoding})
	var ns *listfile.NoSheetError
	if errors.As(err, &ns) {
		l.errorf(lf.SheetRange.Ptr(), "Unknown sheet", "%s has no sheet %q; its sheets are %s.%s", lf.File, ns.Sheet, textfmt.QuoteList(ns.Sheets, ", "), didYouMean(ns.Sheet, ns.Sheets))
		return nil, false
	}
	if err != nil {
		l.listError(rng, err)
		return nil, false
	}
	lf.Rows, lf.Digest, lf.Sheets = len(t.Rows), t.Digest, t.Sheets
	return t, true
}

// SheetsText says which sheets of a workbook a block read: "sheet
// \"Customers\"", "sheets \"A-M\", \"N-Z\"", "" for a CSV file.
func (lf *ListFile) SheetsText() string {
	switch len(lf.Sheets) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("sheet %q", lf.Sheets[0])
	}
	return "sheets " + textfmt.QuoteList(lf.Sheets, ", ")
}

// listError reports a problem of a list file: its rows and columns are in
// the message.
func (l *loader) listError(rng *hcl.Range, err error) {
	summary := "Cannot read the list file"
	var les *listfile.Errors
	if errors.As(err, &les) {
		summary = fmt.Sprintf("%d rows of the list file cannot be used", les.Len())
	}
	l.errorf(rng, summary, "%s", err.Error())
}
