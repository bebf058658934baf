package listfile

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkRead holds for any file: no panic; an error names the file; a
// table has one cell per column asked for in every row, rows in file
// order, every cell valid UTF-8.
func checkRead(t *testing.T, tab *Table, err error, cols []string) {
	t.Helper()
	if err != nil {
		if !strings.HasPrefix(err.Error(), "f.") {
			t.Fatalf("error does not name the file: %v", err)
		}
		return
	}
	if len(tab.Columns) != len(cols) || len(tab.Digest) != 64 {
		t.Fatalf("columns %q for %q, digest %q", tab.Columns, cols, tab.Digest)
	}
	last, sheet := 0, ""
	for _, r := range tab.Rows {
		if r.Sheet != sheet {
			last, sheet = 0, r.Sheet // the rows of the next sheet
		}
		if len(r.Cells) != len(cols) || r.Line <= last {
			t.Fatalf("row %+v after line %d", r, last)
		}
		last = r.Line
		for _, c := range r.Cells {
			if !utf8.ValidString(c) {
				t.Fatalf("cell %q is not UTF-8", c)
			}
		}
	}
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("Company;Email\nAcme GmbH;max@acme.de\n"), uint8(0))
	f.Add([]byte("\xEF\xBB\xBFa,b\n\"x\ny\",2\n"), uint8(0))
	f.Add([]byte(utf16le("a\tb\r\n1\t2\r\n")), uint8(0))
	f.Add([]byte("sep=;\na;b\n1;2;3\n"), uint8(1))
	f.Add([]byte("a\nM\xfcller\n"), uint8(2))
	f.Add([]byte("a,b\n\"unclosed\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, enc uint8) {
		encs := []Encoding{"", Windows1252, Latin1}
		opts := Options{Encoding: encs[int(enc)%len(encs)]}
		cols := []string{"a"}
		tab, err := ReadFrom(bytes.NewReader(data), "f.csv", CSV, cols, opts)
		checkRead(t, tab, err, cols)
	})
}

func FuzzReadXLSX(f *testing.F) {
	f.Add(workbook(f, map[string][][]any{"S": {{"a", "b"}, {"1", 2}, nil, {"x"}}}, "S"))
	f.Add([]byte("PK\x03\x04"))
	f.Add(rawWorkbook(f, map[string]string{"_rels/.rels": relsXML, "book/main.xml": bookXML, "book/_rels/main.xml.rels": bookRels,
		"book/strings.xml": stringsXML, "book/sheets/data.xml": dataXML}))
	f.Fuzz(func(t *testing.T, data []byte) {
		cols := []string{"a"}
		tab, err := ReadFrom(bytes.NewReader(data), "f.xlsx", XLSX, cols, Options{})
		checkRead(t, tab, err, cols)
	})
}

// FuzzKeys checks every normaliser: no panic, a key has no surrounding
// white space and is its own key (normalising twice changes nothing; a
// profile URL's key is a page name, whose key it is).
func FuzzKeys(f *testing.F) {
	for _, s := range []string{"Acme GmbH & Co. KG", "S.à r.l.", "www.Acme.co.uk", "Max <MAX@müller.de>",
		"https://network.example/de/profile/Max_Mustermann/cv?x=1", "12345.ABCDEF", "ｇｍｂｈ", "a.b.c", "xn--", "@@", "/in/",
		"The The Acme", "T\u0308", "T\u0344", "\xf3\u0677"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, k := range []Kind{Company, Domain, Email, ProfileURL, PageName, NetworkID} {
			key, err := k.Key(v)
			if err != nil || key == "" {
				continue
			}
			if strings.TrimSpace(key) != key {
				t.Fatalf("%s %q: key %q has white space around it", k, v, key)
			}
			again := k
			if k == ProfileURL {
				again = PageName
			}
			if k2, err := again.Key(key); err != nil || k2 != key {
				t.Fatalf("%s %q: key %q, its key %q (%v)", k, v, key, k2, err)
			}
		}
	})
}

// FuzzXLSXParts fuzzes the XML of a sheet and of the shared strings inside
// a well-formed package (mutations of a zip mostly break its checksums).
func FuzzXLSXParts(f *testing.F) {
	f.Add(dataXML, stringsXML)
	f.Add(`<worksheet><sheetData><row><c t="inlineStr"><is><t>a</t></is></c></row><row><c t="s"><v>1</v></c></row></sheetData></worksheet>`,
		`<sst><si><t>a</t></si><si><r><t>x</t></r><rPh><t>y</t></rPh></si></sst>`)
	f.Add(`<row r="1"><c r="A1" t="inlineStr"><is><t a=">">a</t></is></c></row><!-- x -->`, `<si><t><![CDATA[a]]></t></si>`)
	f.Fuzz(func(t *testing.T, sheet, sst string) {
		data := rawWorkbook(t, map[string]string{"_rels/.rels": relsXML, "book/main.xml": bookXML,
			"book/_rels/main.xml.rels": bookRels, "book/strings.xml": sst, "book/sheets/data.xml": sheet})
		cols := []string{"a"}
		tab, err := ReadFrom(bytes.NewReader(data), "f.xlsx", XLSX, cols, Options{})
		checkRead(t, tab, err, cols)
		// The same sheet twice, both shown: read one after the other.
		data = rawWorkbook(t, map[string]string{"_rels/.rels": relsXML, "book/main.xml": strings.Replace(bookXML, ` state="hidden"`, "", 1),
			"book/_rels/main.xml.rels": bookRels, "book/strings.xml": sst, "book/sheets/data.xml": sheet, "book/sheets/hidden.xml": sheet})
		tab, err = ReadFrom(bytes.NewReader(data), "f.xlsx", XLSX, cols, Options{})
		checkRead(t, tab, err, cols)
	})
}
