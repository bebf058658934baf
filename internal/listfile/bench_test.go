package listfile

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/cputime"
)

// benchRows is the size of the list files of the benchmarks: the issue's
// figure is 100,000 rows read, normalised and matched in under 1 s and
// under 100 MB.
const benchRows = 100_000

// benchValue is row i's value of a column of the given kind; every other
// row repeats an earlier company, as customer lists do.
func benchValue(kind Kind, i int) string {
	switch kind {
	case Company:
		forms := []string{"GmbH", "AG", "Inc.", "S.A.", "GmbH & Co. KG", "Ltd"}
		return fmt.Sprintf("Company %d %s", i/2, forms[i%len(forms)])
	case Domain:
		return fmt.Sprintf("www.company-%d.de", i/2)
	case Email:
		return fmt.Sprintf("Person.%d@Company-%d.de", i, i/2)
	case ProfileURL:
		return fmt.Sprintf("https://www.network.example/profile/Person_%d?sc_o=x", i)
	case PageName:
		return fmt.Sprintf("Person_%d", i)
	case NetworkID:
		return fmt.Sprintf("%d.%x", 10_000_000+i, i*7919)
	}
	return ""
}

var benchKinds = []Kind{Company, Domain, Email, ProfileURL, NetworkID}

// writeBenchCSV writes a list of benchRows rows with a column per kind and
// two columns nobody reads, as a CRM export has.
func writeBenchCSV(tb testing.TB, dir string) string {
	var b strings.Builder
	b.WriteString("Company;Domain;Email;Profile;Network ID;Phone;Notes\n")
	for i := range benchRows {
		for _, k := range benchKinds {
			b.WriteString(benchValue(k, i))
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "+49 30 %07d;\"met at a fair; follow up\"\n", i)
	}
	p := filepath.Join(dir, "list.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

// writeBenchXLSX writes the same list as a workbook the way Excel writes
// one: every text in the shared strings, cells referring to them.
func writeBenchXLSX(tb testing.TB, dir string) string {
	var sheet, sst strings.Builder
	n := 0
	str := func(v string) string {
		sst.WriteString("<si><t>")
		xml.EscapeText(&sst, []byte(v))
		sst.WriteString("</t></si>")
		n++
		return strconv.Itoa(n - 1)
	}
	row := func(r int, vals []string) {
		fmt.Fprintf(&sheet, `<row r="%d" spans="1:%d">`, r, len(vals))
		for c, v := range vals {
			fmt.Fprintf(&sheet, `<c r="%s%d" s="1" t="s"><v>%s</v></c>`, ColumnLetter(c), r, str(v))
		}
		sheet.WriteString("</row>")
	}
	row(1, []string{"Company", "Domain", "Email", "Profile", "Network ID", "Phone"})
	for i := range benchRows {
		vals := make([]string, 0, 6)
		for _, k := range benchKinds {
			vals = append(vals, benchValue(k, i))
		}
		row(i+2, append(vals, fmt.Sprintf("+49 30 %07d", i)))
	}
	data := rawWorkbook(tb, map[string]string{
		"_rels/.rels": relsXML, "book/main.xml": bookXML, "book/_rels/main.xml.rels": bookRels,
		"book/sheets/hidden.xml": `<worksheet/>`,
		"book/strings.xml":       `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><sst count="` + strconv.Itoa(n) + `" uniqueCount="` + strconv.Itoa(n) + `">` + sst.String() + `</sst>`,
		"book/sheets/data.xml":   `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet><sheetData>` + sheet.String() + `</sheetData></worksheet>`,
	})
	p := filepath.Join(dir, "list.xlsx")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	return p
}

var benchColumns = map[Kind]string{Company: "Company", Domain: "Domain", Email: "Email", ProfileURL: "Profile", NetworkID: "Network ID"}

// BenchmarkList reads a list of 100,000 rows, builds the keys of one
// column and matches 100,000 people's values against them (half of them
// in the list), per format and kind. live-MB is the heap the table and
// the keys hold after a collection; B/op is everything allocated, a bound
// of the peak; cpu-ms/op the CPU time (user and system, all threads,
// the collector's too), which a busy machine does not inflate as it does
// the wall time.
func BenchmarkList(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{"csv": writeBenchCSV(b, dir), "xlsx": writeBenchXLSX(b, dir)}
	people := map[Kind][]string{}
	for _, k := range benchKinds {
		for i := range benchRows {
			people[k] = append(people[k], benchValue(k, i+benchRows/2))
		}
	}
	for _, format := range []string{"csv", "xlsx"} {
		for _, k := range benchKinds {
			b.Run(format+"/"+k.String(), func(b *testing.B) {
				fsys := os.DirFS(dir)
				name := filepath.Base(files[format])
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				b.ReportAllocs()
				cpu0 := cputime.Self()
				var tab *Table
				var set *Set
				matched := 0
				for b.Loop() {
					var err error
					tab, err = Read(fsys, name, name, []string{benchColumns[k]}, Options{})
					if err != nil {
						b.Fatal(err)
					}
					set, err = KeySet(tab, 0, k)
					if err != nil {
						b.Fatal(err)
					}
					matched = 0
					for _, v := range people[k] {
						if set.Has(v) {
							matched++
						}
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
				runtime.GC()
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20), "live-MB")
				if len(tab.Rows) != benchRows || matched < benchRows/2 {
					b.Fatalf("%d rows, %d matched", len(tab.Rows), matched)
				}
				runtime.KeepAlive(set)
			})
		}
	}
}
