package listfile

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
	"unicode/utf16"

	"github.com/google/go-cmp/cmp"
	"github.com/xuri/excelize/v2"
)

// readString reads one CSV file given as a string.
func readString(t *testing.T, name, content string, cols []string, opts Options) (*Table, error) {
	t.Helper()
	fsys := fstest.MapFS{name: {Data: []byte(content)}}
	return Read(fsys, name, "lists/"+name, cols, opts)
}

// cells returns the rows of a table as line: cells, for comparison.
func cells(t *Table) []string {
	var out []string
	for _, r := range t.Rows {
		out = append(out, strings.Join(append([]string{strconv.Itoa(r.Line)}, r.Cells...), "|"))
	}
	return out
}

func utf16le(s string) string {
	var b []byte
	b = append(b, 0xFF, 0xFE)
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

func utf16be(s string) string {
	var b []byte
	b = append(b, 0xFE, 0xFF)
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u>>8), byte(u))
	}
	return string(b)
}

func TestReadCSV(t *testing.T) {
	tests := []struct {
		name    string
		content string
		cols    []string
		opts    Options
		delim   rune
		enc     Encoding
		want    []string // "line|cell|cell"
	}{
		{name: "comma", content: "Company,Email\nAcme GmbH,max@acme.de\nBeta AG,\n", cols: []string{"Company", "Email"},
			delim: ',', enc: UTF8, want: []string{"2|Acme GmbH|max@acme.de", "3|Beta AG|"}},
		{name: "semicolon of a European Excel", content: "Firma;E-Mail;Ort\r\nAcme GmbH;max@acme.de;Köln\r\n\"Beta; Gamma AG\";b@beta.de;Wien\r\n",
			cols: []string{"E-Mail", "Firma"}, delim: ';', enc: UTF8, want: []string{"2|max@acme.de|Acme GmbH", "3|b@beta.de|Beta; Gamma AG"}},
		{name: "tab", content: "Name\tCompany\nMax\tAcme, Inc.\n", cols: []string{"Company"}, delim: '\t', enc: UTF8, want: []string{"2|Acme, Inc."}},
		{name: "one column", content: "Company\nAcme GmbH\n\"Acme, Inc.\"\n", cols: []string{"Company"}, delim: ',', enc: UTF8, want: []string{"2|Acme GmbH", "3|Acme, Inc."}},
		{name: "delimiter inside quotes of the header does not count", content: "\"a,b\";c\n1;2\n", cols: []string{"c"}, delim: ';', enc: UTF8, want: []string{"2|2"}},
		{name: "sep line of Excel", content: "sep=;\nCompany;Email\nAcme, Inc.;a@acme.com\n", cols: []string{"Company"}, delim: ';', enc: UTF8, want: []string{"3|Acme, Inc."}},
		{name: "UTF-8 byte order mark", content: "\xEF\xBB\xBFCompany\nMüller GmbH\n", cols: []string{"Company"}, delim: ',', enc: UTF8, want: []string{"2|Müller GmbH"}},
		{name: "UTF-16LE with byte order mark", content: utf16le("Company\tEmail\r\nMüller GmbH\tm@müller.de\r\n"), cols: []string{"Email"}, delim: '\t', enc: UTF16LE, want: []string{"2|m@müller.de"}},
		{name: "UTF-16BE with byte order mark", content: utf16be("Company\nZoë 😀 Ltd\n"), cols: []string{"Company"}, delim: ',', enc: UTF16BE, want: []string{"2|Zoë 😀 Ltd"}},
		{name: "Windows-1252 when named", content: "Firma;Betrag\nM\xfcller GmbH;\x80 5\n", cols: []string{"Firma", "Betrag"}, opts: Options{Encoding: Windows1252},
			delim: ';', enc: Windows1252, want: []string{"2|Müller GmbH|€ 5"}},
		{name: "ISO-8859-1 when named", content: "Firma\nM\xfcller GmbH\n", cols: []string{"Firma"}, opts: Options{Encoding: Latin1}, delim: ',', enc: Latin1, want: []string{"2|Müller GmbH"}},
		{name: "a byte order mark wins over the encoding named", content: "\xEF\xBB\xBFFirma\nMüller\n", cols: []string{"Firma"}, opts: Options{Encoding: Windows1252}, delim: ',', enc: UTF8, want: []string{"2|Müller"}},
		{name: "column found ignoring case and spaces", content: " E-MAIL ,x\na@b.de,1\n", cols: []string{"e-mail"}, delim: ',', enc: UTF8, want: []string{"2|a@b.de"}},
		{name: "exact name wins over one differing in case", content: "email,Email\na,b\n", cols: []string{"Email"}, delim: ',', enc: UTF8, want: []string{"2|b"}},
		{name: "rows shorter than the header", content: "a,b,c\n1\n2,3\n", cols: []string{"c", "a"}, delim: ',', enc: UTF8, want: []string{"2||1", "3||2"}},
		{name: "empty values right of the header are fine", content: "a,b\n1,2,,\n", cols: []string{"b"}, delim: ',', enc: UTF8, want: []string{"2|2"}},
		{name: "blank and empty rows are left out; lines counted", content: "a,b\n\n1,\n,\n ,  \n\"multi\nline\",x\n3,y\n", cols: []string{"a"}, delim: ',', enc: UTF8,
			want: []string{"3|1", "6|multi\nline", "8|3"}},
		{name: "header only", content: "Company\n", cols: []string{"Company"}, delim: ',', enc: UTF8, want: nil},
		{name: "blank lines before the header", content: "\n\nCompany\nAcme\n", cols: []string{"Company"}, delim: ',', enc: UTF8, want: []string{"4|Acme"}},
		{name: "no final newline", content: "Company\nAcme", cols: []string{"Company"}, delim: ',', enc: UTF8, want: []string{"2|Acme"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, err := readString(t, "list.csv", tt.content, tt.cols, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if tab.Delimiter != tt.delim || tab.Encoding != tt.enc || tab.Format != CSV {
				t.Errorf("delimiter %q, encoding %s, format %s; want %q, %s, csv", tab.Delimiter, tab.Encoding, tab.Format, tt.delim, tt.enc)
			}
			if diff := cmp.Diff(tt.want, cells(tab)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			if len(tab.Digest) != 64 {
				t.Errorf("digest %q", tab.Digest)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		content string
		cols    []string
		opts    Options
		want    string
	}{
		{"empty file", "l.csv", "", []string{"a"}, Options{}, "lists/l.csv: is empty; a list file starts with a header row naming its columns"},
		{"only a byte order mark and blank lines", "l.csv", "\xEF\xBB\xBF\r\n \n", []string{"a"}, Options{}, "lists/l.csv: is empty; a list file starts with a header row naming its columns"},
		{"missing column lists the columns", "l.csv", "Firma;E-Mail;;Ort\nx;y;;z\n", []string{"Email"}, Options{},
			`lists/l.csv:1: has no column "Email"; its columns are "Firma", "E-Mail", (unnamed column C), "Ort"`},
		{"column named twice", "l.csv", "Email,Name,email\n", []string{"EMAIL"}, Options{}, `lists/l.csv:1: has 2 columns named "EMAIL" (columns A and C); rename all but one`},
		{"broken encoding names row, column and the fix", "l.csv", "Firma;Ort\nM\xfcller GmbH;K\xf6ln\nAcme;Bonn\n", []string{"Firma"}, Options{},
			`lists/l.csv:2: column "Firma": has byte 0xFC at position 2 ("ü" in Windows-1252): the file is not UTF-8 text; in Excel, save it as "CSV UTF-8 (Comma delimited)", or name its encoding in the block (encoding = "windows-1252")`},
		{"broken encoding in the header", "l.csv", "Stra\xdfe\nx\n", []string{"x"}, Options{},
			`lists/l.csv:1: the header row has byte 0xDF at position 5 ("ß" in Windows-1252): the file is not UTF-8 text; in Excel, save it as "CSV UTF-8 (Comma delimited)", or name its encoding in the block (encoding = "windows-1252")`},
		{"UTF-16 without byte order mark", "l.csv", "C\x00o\x00m\x00\n\x00", []string{"Com"}, Options{},
			"lists/l.csv: contains NUL bytes: it is UTF-16 text without a byte order mark, or not text at all; save it as CSV UTF-8"},
		{"more values than columns", "l.csv", "a;b\n1;2\n3;4;5\n6;7\n", []string{"a"}, Options{},
			"lists/l.csv:3: has 3 values, but the header row names 2 columns; a value that contains a semicolon must be in double quotes"},
		{"bare quote", "l.csv", "Company\nAcme \"Best\" GmbH\n", []string{"Company"}, Options{},
			`lists/l.csv:2: has a double quote inside a value that does not start with one; put the whole value in double quotes and double the quote inside ("Acme ""Best"" GmbH"), or remove it`},
		{"quote never closed", "l.csv", "Company\n\"Acme\nBeta\nGamma\n", []string{"Company"}, Options{},
			"lists/l.csv:2: starts a value in double quotes that runs to line 4 without being closed; a value in double quotes must end with one"},
		{"several rows at once", "l.csv", "a;b\n1;2;3\n4;5;6\n", []string{"a"}, Options{},
			"lists/l.csv:2: has 3 values, but the header row names 2 columns; a value that contains a semicolon must be in double quotes\n" +
				"lists/l.csv:3: has 3 values, but the header row names 2 columns; a value that contains a semicolon must be in double quotes"},
		{"a workbook named .csv", "l.csv", "PK\x03\x04rest", []string{"a"}, Options{}, "lists/l.csv: is a workbook or another zip archive, not CSV text; name it .xlsx if it is a workbook, or save it as CSV UTF-8"},
		{"an old workbook named .csv", "l.csv", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1....", []string{"a"}, Options{}, "lists/l.csv: is an Excel 97-2003 workbook (.xls), not CSV text; save it as CSV UTF-8 or as .xlsx"},
		{"text named .xlsx", "l.xlsx", "Company\nAcme\n", []string{"a"}, Options{}, "lists/l.xlsx: is not an XLSX workbook (an .xlsx file is a zip archive); if it is CSV text, name it .csv"},
		{"password-protected workbook", "l.xlsx", "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1....", []string{"a"}, Options{},
			"lists/l.xlsx: is a password-protected workbook or an Excel 97-2003 (.xls) file renamed .xlsx; save it without a password as .xlsx, or as CSV UTF-8"},
		{"a damaged workbook", "l.xlsx", "PK\x03\x04 not really a zip", []string{"a"}, Options{}, "lists/l.xlsx: is not a readable XLSX workbook"},
		{"not a list file", "l.txt", "a\n", []string{"a"}, Options{}, `lists/l.txt: has the extension ".txt"; a list file is a .csv or an .xlsx file with a header row`},
		{"no extension", "list", "a\n", []string{"a"}, Options{}, "lists/list: has no extension; a list file is a .csv or an .xlsx file with a header row"},
		{"xls", "l.xls", "x", []string{"a"}, Options{}, "lists/l.xls: is an Excel 97-2003 workbook (.xls); open it in Excel and save it as .xlsx or as CSV UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readString(t, tt.file, tt.content, tt.cols, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("got  %s\nwant %s", err, tt.want)
			}
			var le *Error
			var les *Errors
			if !errors.As(err, &le) && !errors.As(err, &les) {
				t.Errorf("%T is neither *Error nor *Errors", err)
			}
		})
	}
}

func TestReadMissingFile(t *testing.T) {
	_, err := Read(fstest.MapFS{}, "crm/customers.csv", "crm/customers.csv", []string{"a"}, Options{})
	want := "crm/customers.csv: does not exist; the path is relative to the configuration folder"
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestErrorsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("a;b\n")
	for range 25 {
		b.WriteString("1;2;3\n")
	}
	_, err := readString(t, "l.csv", b.String(), []string{"a"}, Options{})
	var es *Errors
	if !errors.As(err, &es) {
		t.Fatalf("got %T %v", err, err)
	}
	if len(es.List) != maxListed || es.More != 15 || es.Len() != 25 {
		t.Errorf("listed %d, more %d", len(es.List), es.More)
	}
	if !strings.HasSuffix(err.Error(), "\n... and 15 more rows like these") {
		t.Errorf("error ends %q", err.Error()[len(err.Error())-60:])
	}
}

// workbook builds an XLSX file of the given sheets (rows of cells; a
// time.Time becomes a date cell).
func workbook(t testing.TB, sheets map[string][][]any, order ...string) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer func() { _ = f.Close() }()
	for i, name := range order {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", name); err != nil {
				t.Fatal(err)
			}
		} else if _, err := f.NewSheet(name); err != nil {
			t.Fatal(err)
		}
		for r, row := range sheets[name] {
			for c, v := range row {
				if v == nil {
					continue
				}
				cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
				if err := f.SetCellValue(name, cell, v); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadXLSX(t *testing.T) {
	when := time.Date(2026, 10, 15, 9, 30, 0, 0, time.UTC)
	data := workbook(t, map[string][][]any{
		"Notes": {{"just a note"}},
		"Customers": {
			nil,
			{nil, "Company", "Email", "Exported", "Id"},
			{nil, "Acme GmbH", "max@acme.de", when, "123456789012345678"},
			nil,
			{nil, "Beta AG", nil, "2026-10-01", 42},
		},
	}, "Notes", "Customers")
	fsys := fstest.MapFS{"c.xlsx": {Data: data}}
	tab, err := Read(fsys, "c.xlsx", "c.xlsx", []string{"company", "Email", "Exported", "Id"}, Options{Sheet: "customers"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3|Acme GmbH|max@acme.de|" + tab.Rows[0].Cells[2] + "|123456789012345678", "5|Beta AG||2026-10-01|42"}
	if diff := cmp.Diff(want, cells(tab)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", "Company", "Email", "Exported", "Id"}, tab.Header); diff != "" {
		t.Errorf("header: %s", diff)
	}
	for i, c := range []string{tab.Rows[0].Cells[2], tab.Rows[1].Cells[2]} {
		d, err := tab.ParseDate(c)
		if err != nil {
			t.Fatal(err)
		}
		wantD := []time.Time{when, time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)}[i]
		if !d.Equal(wantD) {
			t.Errorf("date %q = %v, want %v", c, d, wantD)
		}
	}

	// Every sheet when none is named: one that is no list is an error
	// that says how to leave it out; a missing sheet lists them.
	if _, err := Read(fsys, "c.xlsx", "c.xlsx", []string{"Company"}, Options{}); err == nil ||
		err.Error() != `c.xlsx (sheet "Notes"):1: has no column "Company"; its columns are "just a note"; every sheet not hidden is read: name the one to read (sheet = "Customers"), or remove this one` {
		t.Errorf("every sheet: %v", err)
	}
	if _, err := Read(fsys, "c.xlsx", "c.xlsx", []string{"Company"}, Options{Sheet: "Leads"}); err == nil ||
		err.Error() != `c.xlsx: has no sheet "Leads"; its sheets are "Notes", "Customers"` {
		t.Errorf("missing sheet: %v", err)
	}
}

func TestReadXLSXErrors(t *testing.T) {
	tests := []struct {
		name  string
		sheet [][]any
		want  string
	}{
		{"empty sheet", nil, `w.xlsx: sheet "S" is empty; a list starts with a header row naming its columns`},
		{"values right of the header", [][]any{{"Company"}, {"Acme"}, {"Beta", "stray"}}, `w.xlsx:3: has 1 value right of the header's last column A; give the column a header or clear it`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := workbook(t, map[string][][]any{"S": tt.sheet}, "S")
			_, err := Read(fstest.MapFS{"w.xlsx": {Data: data}}, "w.xlsx", "w.xlsx", []string{"Company"}, Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got  %v\nwant %s", err, tt.want)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	a, err := readString(t, "l.csv", "Company,Other\nAcme,1\nBeta,2\n", []string{"Company"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Another column, another delimiter and another encoding read the same.
	b, err := readString(t, "l.csv", "\xEF\xBB\xBFOther;Company\r\n9;Acme\r\n8;Beta\r\n", []string{"Company"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := readString(t, "l.csv", "Company\nAcme\nBeta GmbH\n", []string{"Company"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest {
		t.Errorf("same content, digests %s and %s", a.Digest, b.Digest)
	}
	if a.Digest == c.Digest {
		t.Errorf("another value, same digest")
	}
}

func TestParseDate(t *testing.T) {
	csv := &Table{Format: CSV}
	utc := func(y int, m time.Month, d, hh, mm int) time.Time { return time.Date(y, m, d, hh, mm, 0, 0, time.UTC) }
	tests := []struct {
		in   string
		want time.Time
		err  string
	}{
		{"2026-10-15", utc(2026, 10, 15, 0, 0), ""},
		{" 2026-10-15T09:30:00Z ", utc(2026, 10, 15, 9, 30), ""},
		{"2026-10-15T11:30:00+02:00", utc(2026, 10, 15, 9, 30), ""},
		{"2026-10-15 09:30", utc(2026, 10, 15, 9, 30), ""},
		{"15.10.2026", utc(2026, 10, 15, 0, 0), ""},
		{"5.3.2026", utc(2026, 3, 5, 0, 0), ""},
		{"15.10.2026 09:30", utc(2026, 10, 15, 9, 30), ""},
		{"15/10/2026", utc(2026, 10, 15, 0, 0), ""},
		{"10/15/2026", utc(2026, 10, 15, 0, 0), ""},
		{"10/15/2026 09:30", utc(2026, 10, 15, 9, 30), ""},
		{"04/04/2026", utc(2026, 4, 4, 0, 0), ""},
		{"03/04/2026", time.Time{}, `the date "03/04/2026" could be read day first or month first; write it as YYYY-MM-DD`},
		{"46310", time.Time{}, `expected a date such as 2026-10-15`},
		{"yesterday", time.Time{}, `expected a date such as 2026-10-15`},
		{"31/02/2026", time.Time{}, `expected a date such as 2026-10-15`},
	}
	for _, tt := range tests {
		got, err := csv.ParseDate(tt.in)
		if tt.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !got.Equal(tt.want) {
			t.Errorf("%q = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	// A workbook's serial day numbers, in both of Excel's date systems.
	x := &Table{Format: XLSX}
	if d, err := x.ParseDate("46310"); err != nil || !d.Equal(utc(2026, 10, 15, 0, 0)) {
		t.Errorf("serial: %v %v", d, err)
	}
	x.Date1904 = true
	if d, err := x.ParseDate("44848"); err != nil || !d.Equal(utc(2026, 10, 15, 0, 0)) {
		t.Errorf("1904 serial: %v %v", d, err)
	}
}

// TestISODayAgrees checks the fast path for YYYY-MM-DD against time.Parse,
// every day of a leap and a common year and the impossible ones around them.
func TestISODayAgrees(t *testing.T) {
	for _, y := range []int{2024, 2026} {
		for m := 0; m <= 13; m++ {
			for d := 0; d <= 32; d++ {
				s := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
				want, werr := time.Parse("2006-01-02", s)
				got, ok := isoDay(s)
				if ok != (werr == nil) || ok && !got.Equal(want) {
					t.Errorf("%s: isoDay %v %v, time.Parse %v %v", s, got, ok, want, werr)
				}
			}
		}
	}
	for _, s := range []string{"2026-1-015", "20261-0-15", "2026-+1-15", "abcd-10-15"} {
		if _, ok := isoDay(s); ok {
			t.Errorf("%s read", s)
		}
	}
}

// TestReadXLSXEverySheet: a workbook read without a sheet named is read
// sheet after sheet (a list split over two sheets is read whole): each
// sheet has its header, spelt as it likes, the rows know their sheet, an
// empty sheet and a hidden one are left out, and a row's problem names its
// sheet. A sheet named is read alone.
func TestReadXLSXEverySheet(t *testing.T) {
	data := workbook(t, map[string][][]any{
		"A-M":   {{"E-mail"}, {"anna@acme.de"}, {"ben@beta.de"}},
		"Empty": nil,
		"N-Z":   {{"Name", "e-mail"}, {"Nora", "nora@nord.de"}, nil, {"Zoe", "zoe@zeta.de"}, {"Olaf", "olaf@ost.de"}},
	}, "A-M", "Empty", "N-Z")
	fsys := fstest.MapFS{"x.xlsx": {Data: data}}
	tab, err := Read(fsys, "x.xlsx", "x.xlsx", []string{"E-mail"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"2|anna@acme.de", "3|ben@beta.de", "2|nora@nord.de", "4|zoe@zeta.de", "5|olaf@ost.de"}
	if diff := cmp.Diff(want, cells(tab)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"A-M", "N-Z"}, tab.Sheets); diff != "" {
		t.Errorf("sheets read (-want +got):\n%s", diff)
	}
	if tab.Rows[0].Sheet != "A-M" || tab.Rows[4].Sheet != "N-Z" {
		t.Errorf("the rows' sheets: %q, %q", tab.Rows[0].Sheet, tab.Rows[4].Sheet)
	}
	one, err := Read(fsys, "x.xlsx", "x.xlsx", []string{"E-mail"}, Options{Sheet: "n-z"})
	if err != nil {
		t.Fatal(err)
	}
	if len(one.Rows) != 3 || one.Rows[0].Sheet != "" || !slices.Equal(one.Sheets, []string{"N-Z"}) {
		t.Errorf("sheet n-z: %d rows, sheets %q", len(one.Rows), one.Sheets)
	}
	var ns *NoSheetError
	if _, err := Read(fsys, "x.xlsx", "x.xlsx", []string{"E-mail"}, Options{Sheet: "A-Z"}); !errors.As(err, &ns) ||
		!slices.Equal(ns.Sheets, []string{"A-M", "Empty", "N-Z"}) {
		t.Errorf("a sheet the workbook lacks: %v", err)
	}

	// A hidden sheet is left out; a problem names its sheet.
	f, err := excelize.OpenReader(bytes.NewReader(workbook(t, map[string][][]any{
		"Old": {{"E-mail"}, {"old@x.de"}}, "Now": {{"E-mail"}, {"now@x.de"}}, "Bad": {{"E-mail"}, {"a@x.de", "stray"}},
	}, "Now", "Old", "Bad")))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.SetSheetVisible("Old", false); err != nil {
		t.Fatal(err)
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	fsys["h.xlsx"] = &fstest.MapFile{Data: buf.Bytes()}
	_, err = Read(fsys, "h.xlsx", "h.xlsx", []string{"E-mail"}, Options{})
	if err == nil || err.Error() != `h.xlsx (sheet "Bad"):2: has 1 value right of the header's last column A; give the column a header or clear it` {
		t.Errorf("a problem of the third sheet: %v", err)
	}
	f.DeleteSheet("Bad")
	buf, err = f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	fsys["h.xlsx"] = &fstest.MapFile{Data: buf.Bytes()}
	tab, err = Read(fsys, "h.xlsx", "h.xlsx", []string{"E-mail"}, Options{})
	if err != nil || !slices.Equal(tab.Sheets, []string{"Now"}) || len(tab.Rows) != 1 {
		t.Errorf("hidden sheet Old: %v, sheets %q", err, tab.Sheets)
	}
}
