package listfile

import (
	"archive/zip"
	"bytes"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// rawWorkbook zips the given parts into an .xlsx file, so that a test can
// write the XML other programs write, not only what excelize writes.
func rawWorkbook(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, content := range parts {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const (
	ns      = `xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	relsXML = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="/book/main.xml"/></Relationships>`
	bookRels = `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rA" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="sheets/hidden.xml"/>` +
		`<Relationship Id="rB" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="/book/sheets/data.xml"/>` +
		`<Relationship Id="rS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="strings.xml"/></Relationships>`
	bookXML = `<?xml version="1.0" encoding="UTF-8"?><x:workbook ` + ns + `><x:workbookPr date1904="1"/><x:sheets>` +
		`<x:sheet name="Old &amp; hidden" sheetId="1" state="hidden" r:id="rA"/><x:sheet name="Data" sheetId="2" r:id="rB"/></x:sheets></x:workbook>`
	stringsXML = `<?xml version="1.0"?><x:sst ` + ns + ` count="5" uniqueCount="5">` +
		`<x:si><x:t>Company</x:t></x:si>` +
		`<x:si><x:r><x:rPr><x:b/></x:rPr><x:t>Acme </x:t></x:r><x:r><x:t xml:space="preserve">&amp; Söhne</x:t></x:r>` +
		`<x:rPh sb="0" eb="1"><x:t>PHONETIC</x:t></x:rPh></x:si>` +
		`<x:si><x:t><![CDATA[Beta <AG>]]></x:t></x:si>` +
		`<x:si><x:t>line_x000D_break &#233;&#x263A;</x:t></x:si>` +
		`<x:si/></x:sst>`
	dataXML = `<?xml version="1.0"?><!-- written by hand --><x:worksheet ` + ns + `><x:sheetData>` +
		`<x:row r="2" spans="1:3"><x:c r="A2" t="s"><x:v>0</x:v></x:c><x:c r="C2" t="inlineStr"><x:is><x:t>Flag</x:t></x:is></x:c><x:c t="str"><x:f>"x"&amp;"y"</x:f><x:v>Result</x:v></x:c></x:row>` +
		`<x:row><x:c t="s"><x:v>1</x:v></x:c><x:c/><x:c t="b"><x:v>1</x:v></x:c><x:c><x:v>44848</x:v></x:c></x:row>` +
		`<x:row r="5"><x:c r="A5" t="s"><x:v>2</x:v></x:c><x:c r="C5" t="b"><x:v>0</x:v></x:c></x:row>` +
		`<x:row r="6"><x:c r="A6" t="s"><x:v>3</x:v></x:c><x:c r="D6" t="e"><x:v>#N/A</x:v></x:c></x:row>` +
		`<x:row r="7"><x:c r="A7" t="s"><x:v>4</x:v></x:c></x:row>` +
		`</x:sheetData></x:worksheet>`
)

func TestReadXLSXByHand(t *testing.T) {
	data := rawWorkbook(t, map[string]string{
		"_rels/.rels": relsXML, "book/main.xml": bookXML, "book/_rels/main.xml.rels": bookRels,
		"book/strings.xml": stringsXML, "book/sheets/data.xml": dataXML,
		"book/sheets/hidden.xml": `<worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>Wrong</t></is></c></row></sheetData></worksheet>`,
	})
	fsys := fstest.MapFS{"w.xlsx": {Data: data}}
	tab, err := Read(fsys, "w.xlsx", "w.xlsx", []string{"Company", "Flag", "Result"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Row 2 is the header (row 1 is missing); row 4 has no cell; row 7's
	// cell is an empty shared string.
	want := []string{"3|Acme & Söhne|TRUE|44848", "5|Beta <AG>|FALSE|", "6|line\rbreak é☺||#N/A"}
	if diff := cmp.Diff(want, cells(tab)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"Company", "", "Flag", "Result"}, tab.Header); diff != "" {
		t.Errorf("header: %s", diff)
	}
	if !tab.Date1904 {
		t.Error("date1904 not read")
	}
	if d, err := tab.ParseDate("44848"); err != nil || !d.Equal(time.Date(2026, 10, 15, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date: %v %v", d, err)
	}
	// The hidden sheet by its name, with the entity of its name decoded.
	tab, err = Read(fsys, "w.xlsx", "w.xlsx", []string{"Wrong"}, Options{Sheet: "old & HIDDEN"})
	if err != nil || len(tab.Rows) != 0 || tab.Columns[0] != "Wrong" {
		t.Errorf("hidden sheet: %v %v", tab, err)
	}
}

func TestReadXLSXDamaged(t *testing.T) {
	good := map[string]string{
		"_rels/.rels": relsXML, "book/main.xml": bookXML, "book/_rels/main.xml.rels": bookRels,
		"book/strings.xml": stringsXML, "book/sheets/data.xml": dataXML,
	}
	tests := []struct {
		name, part, content, want string
	}{
		{"rows out of order", "book/sheets/data.xml", `<worksheet><sheetData><row r="3"></row><row r="2"></row></sheetData></worksheet>`, `row "2" after row 3`},
		{"shared string out of range", "book/sheets/data.xml", `<worksheet><sheetData><row r="1"><c t="s"><v>99</v></c></row></sheetData></worksheet>`, `row 1: shared string "99" of 5`},
		{"cell reference beyond XFD", "book/sheets/data.xml", `<worksheet><sheetData><row r="1"><c r="XFE1"><v>1</v></c></row></sheetData></worksheet>`, `cell "XFE1" in row 1`},
		{"cut short", "book/sheets/data.xml", `<worksheet><sheetData><row r="1"><c t="inlineStr"><is><t>Comp`, `row 1: damaged XML`},
		{"no sheet part", "book/_rels/main.xml.rels", strings.Replace(bookRels, "/book/sheets/data.xml", "nowhere.xml", 1), `sheet "Data" has no part`},
		{"no workbook", "book/main.xml", ``, `EOF`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := map[string]string{}
			for k, v := range good {
				parts[k] = v
			}
			parts[tt.part] = tt.content
			data := rawWorkbook(t, parts)
			_, err := Read(fstest.MapFS{"w.xlsx": {Data: data}}, "w.xlsx", "w.xlsx", []string{"Company"}, Options{})
			want := "w.xlsx: is not a readable XLSX workbook (" + tt.want + "); open it in Excel and save it again"
			if err == nil || err.Error() != want {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}
