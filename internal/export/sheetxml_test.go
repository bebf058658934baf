package export

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/testenv"
)

func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	cuts := []int{0, 1, 7, 8, 9, 4096, 65_537, 99_999, 100_000}
	for range 20 {
		cuts = append(cuts, rng.IntN(len(data)+1))
	}
	for _, cut := range cuts {
		a, b := data[:cut], data[cut:]
		got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b)))
		if want := crc32.ChecksumIEEE(data); got != want {
			t.Errorf("cut at %d: combined %08x, want %08x", cut, got, want)
		}
	}
}

func TestAppendXMLText(t *testing.T) {
	tests := []struct {
		in         string
		bstr       bool
		want       string
		wantNoBstr string
	}{
		{in: "", want: ""},
		{in: "plain Jürgen 🚀 مريم", want: "plain Jürgen 🚀 مريم"},
		{in: `a & b < c > d "e" 'f'`, want: `a &amp; b &lt; c &gt; d "e" 'f'`},
		{in: "tab\tcr\rlf\n", want: "tab&#x9;cr&#xD;lf\n"},
		{in: "nul\x00bell\x07vt\x0bus\x1f", want: "nul\uFFFDbell\uFFFDvt\uFFFDus\uFFFD"},
		{in: "bad \xff utf8 \xe2\x82", want: "bad \uFFFD utf8 \uFFFD\uFFFD"},
		{in: "nonchars \uFFFE\uFFFF kept \uFFFD", want: "nonchars \uFFFD\uFFFD kept \uFFFD"},
		{in: "_x0041_", want: "_x005F_x0041_", wantNoBstr: "_x0041_"},
		{in: "_x0041_x0042_", want: "_x005F_x0041_x005F_x0042_", wantNoBstr: "_x0041_x0042_"},
		{in: "_x005F_", want: "_x005F_x005F_", wantNoBstr: "_x005F_"},
		{in: "_xZZZZ_ _x123_ snake_case _x", want: "_xZZZZ_ _x123_ snake_case _x"},
	}
	for _, tt := range tests {
		if got := string(appendXMLText(nil, tt.in, true)); got != tt.want {
			t.Errorf("appendXMLText(%q, bstr) = %q, want %q", tt.in, got, tt.want)
		}
		want := tt.wantNoBstr
		if want == "" {
			want = tt.want
		}
		if got := string(appendXMLText(nil, tt.in, false)); got != want {
			t.Errorf("appendXMLText(%q) = %q, want %q", tt.in, got, want)
		}
	}
}

func TestAppendXMLTextAllocates(t *testing.T) {
	buf := make([]byte, 0, 1024)
	s := "Zoë 🚀 & <O'Reilly> _x0041_ \x01"
	if n := testing.AllocsPerRun(100, func() { buf = appendXMLText(buf[:0], s, true) }); n != 0 {
		t.Errorf("%v allocations per call, want 0", n)
	}
}

// bstrDecode reads _xHHHH_ escapes as a spreadsheet reader does.
var bstrRe = regexp.MustCompile(`_x[0-9a-fA-F]{4}_`)

func bstrDecode(s string) string {
	return bstrRe.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.ParseUint(m[2:6], 16, 32)
		return string(rune(n))
	})
}

// xmlSafe is s as XML 1.0 can hold it: other characters become U+FFFD.
func xmlSafe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1, r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xFFFE, r == 0xFFFF:
			b.WriteRune('\uFFFD')
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}

// FuzzAppendXMLText: the output is well-formed XML whose text, with the
// _xHHHH_ escapes read back, is the input (characters XML cannot hold
// replaced).
func FuzzAppendXMLText(f *testing.F) {
	for _, s := range []string{"", "a&b<c>d", "\r\n\t\x00", "_x0041_", "_x005F_x0041_", "\xff\uFFFE", "🚀 مريم"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, bstr := range []bool{true, false} {
			doc := "<t>" + string(appendXMLText(nil, s, bstr)) + "</t>"
			var v struct {
				Text string `xml:",chardata"`
			}
			if err := xml.Unmarshal([]byte(doc), &v); err != nil {
				t.Fatalf("appendXMLText(%q, %v) is not XML: %v\n%s", s, bstr, err, doc)
			}
			got, want := v.Text, xmlSafe(s)
			if bstr {
				got = bstrDecode(got)
			}
			if got != want {
				t.Fatalf("appendXMLText(%q, %v) reads back as %q, want %q", s, bstr, got, want)
			}
		}
	})
}

// TestXLSXAwkwardContent writes cells with awkward content, reads them back
// with excelize and, where LibreOffice is installed, converts the workbook
// headless and checks what it shows.
func TestXLSXAwkwardContent(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"fullName", "title", "company", "location", "description", "profileUrl", "premiumProfile", "firstSeen", "highlights", "contactsCount"}
	sheets := []*config.Sheet{{Name: "Awkward", From: []string{"search.cto", founder}, Dedupe: true, Columns: cols}}
	cfg, st := fixture("awkward.xlsx", sheets...)
	cfg.Dir = dir
	cfg.Settings.ProfileURLTemplate = ""
	ppl := st.People
	ppl["n-1"].Lead.FullName = `Tom & Jerry <b>"quoted"</b> 'single' ]]>`
	ppl["n-1"].Lead.Location = "  leading and trailing  "
	ppl["n-2"].Lead.FullName = "ctrl\x01\x02\x1f tab\there\r\nCRLF"
	ppl["n-2"].Lead.Location = "bad \xff utf8 \uFFFE"
	ppl["n-6"].Lead.FullName = "_x0041_ and _x005F_ and _xZZZZ_"
	ppl["n-6"].Profile.Description = strings.Repeat("ä🚀", 20_000) // 60,000 UTF-16 units
	ppl["n-6"].Profile.NetworkURL = `https://network.example/p?a="b"&c=<d>'e'`
	ppl["n-1"].Raw = []byte(`{"node": {"highlight": {"haves": ["**C#** & <F#>"]}, "contactsCount": {"count": 1234}}}`)
	ppl["n-3"].Raw = []byte(`{"node": {"highlight": {"=cmd": ["**x**"]}, "contactsCount": {"count": 0}}}`)
	got, err := writeExports(cfg, st, Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if w := got[0].Warnings; len(w) != 1 || !strings.Contains(w[0], "1 cell was longer than the 32,767 characters an Excel cell holds and was cut; it ends in") {
		t.Errorf("warnings = %q", w)
	}
	path := filepath.Join(dir, "awkward.xlsx")

	cut := strings.Repeat("ä🚀", 20_000)
	cut = truncUTF16(cut, maxCellChars-utf16Len(truncMarker)) + truncMarker
	// Rows: n-1, n-2, n-3, n-4 (Berlin), n-5 (Hamburg), n-6 (founder).
	want := [][]string{
		{"Full name", "Title", "Company", "Location", "Description", "Profile", "Premium profile", "First seen", "Search highlights", "Contacts"},
		{`Tom & Jerry <b>"quoted"</b> 'single' ]]>`, "CTO", "Bäckerei Größe GmbH", "  leading and trailing  ", "", "", "", "2026-03-01 09:30", "Skills: C# & <F#>", "1,234"},
		{"ctrl\uFFFD\uFFFD\uFFFD tab\there\r\nCRLF", "Head of 'Engineering'", "O'Reilly & Sons", "bad \uFFFD utf8 \uFFFD", "", "", "", "2026-03-01 09:30", "", ""},
		{"@SUM(A1:A9)", "-2+3", "=1+1", "", "", "", "", "2026-03-01 09:30", "=cmd: x", "0"},
		{"مريم العربي", "מנהלת טכנולוגיה", "شركة", "", "", "", "", "2026-03-01 09:30", "", ""},
		{"Zoë 🚀 Smith 👩‍💻", "CTO 🦄", "", "", "", "", "", "2026-03-01 09:30", "", ""},
		{"_x0041_ and _x005F_ and _xZZZZ_", "", "", "", cut, `https://network.example/p?a="b"&c=<d>'e'`, "TRUE", "2026-03-01 09:30", "", ""},
	}
	f := openXLSX(t, path)
	r := rows(t, f, "Awkward")
	for i := range want {
		for len(r) > i && len(r[i]) < len(want[i]) {
			r[i] = append(r[i], "")
		}
	}
	if len(r) != len(want) {
		t.Fatalf("%d rows, want %d: %q", len(r), len(want), r)
	}
	for i := range want {
		for c := range want[i] {
			if r[i][c] != want[i][c] {
				g, w := r[i][c], want[i][c]
				if len(g) > 80 || len(w) > 80 {
					g, w = g[len(g)-60:], w[len(w)-60:]
				}
				t.Errorf("row %d, %s: %q, want %q", i+1, cols[c], g, w)
			}
		}
	}
	for _, ref := range []string{"A4", "C4", "B4", "I4"} {
		if fm, _ := f.GetCellFormula("Awkward", ref); fm != "" {
			t.Errorf("%s is the formula %q: data must never be a formula", ref, fm)
		}
	}
	if got := linkTarget(t, f, "Awkward", "F7"); got != ppl["n-6"].Profile.NetworkURL {
		t.Errorf("F7 links to %q", got)
	}

	// What follows opens the workbook in LibreOffice: the checks above ran
	// whatever happens here.
	testenv.SkipIfShort(t, "the workbook was checked with excelize, not opened in LibreOffice")
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		testenv.Skip(t, "LibreOffice (soffice) is not installed (Debian: apt-get install libreoffice-calc-nogui): the workbook was checked with excelize only")
	}
	out := filepath.Join(dir, "csv")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// LibreOffice exits 77 when it cannot set up its user profile or find
	// a UI language (a busy or minimal machine): that is the environment,
	// not the workbook. It is tried again with a fresh profile and an
	// explicit locale; if it never starts, the LibreOffice check is
	// skipped (the content was checked with excelize above).
	var combined bytes.Buffer
	for attempt := 1; ; attempt++ {
		// A profile of its own, so that a LibreOffice already running for
		// someone else does not take the job.
		profile := filepath.Join(dir, fmt.Sprintf("lo-profile-%d", attempt))
		cmd := exec.CommandContext(ctx, soffice, "-env:UserInstallation=file://"+profile,
			"--headless", "--convert-to", "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1",
			"--outdir", out, path)
		cmd.Env = append(os.Environ(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME="+dir)
		combined.Reset()
		cmd.Stdout, cmd.Stderr = &combined, &combined
		err := cmd.Run()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() == 77 {
			if attempt < 3 {
				continue
			}
			testenv.Skipf(t, "LibreOffice could not start here (exit 77: no user profile or UI language, %d tries); the content was checked with excelize only\n%s", attempt, combined.String())
		}
		if err != nil {
			t.Fatalf("soffice: %v\n%s", err, combined.String())
		}
		break
	}
	b, err := os.ReadFile(filepath.Join(out, "awkward-Awkward.csv"))
	if err != nil {
		entries, _ := os.ReadDir(out)
		t.Fatalf("LibreOffice did not convert the sheet: %v (made %v)\n%s", err, entries, combined.String())
	}
	lo, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatalf("LibreOffice's CSV: %v", err)
	}
	if len(lo) != len(want) {
		t.Fatalf("LibreOffice shows %d rows, want %d", len(lo), len(want))
	}
	// LibreOffice writes line ends in cells as LF.
	lf := strings.NewReplacer("\r\n", "\n")
	for i := range want {
		for c := range want[i] {
			if c >= len(lo[i]) {
				t.Errorf("LibreOffice row %d has %d columns", i+1, len(lo[i]))
				break
			}
			if g, w := lf.Replace(lo[i][c]), lf.Replace(want[i][c]); g != w {
				if len(g) > 80 || len(w) > 80 {
					g, w = g[max(len(g)-60, 0):], w[len(w)-60:]
				}
				t.Errorf("LibreOffice row %d, %s: %q, want %q", i+1, cols[c], g, w)
			}
		}
	}
}
