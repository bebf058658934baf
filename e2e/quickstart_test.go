package e2e

// The quickstart gives a new user a workbook a person reads.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/cli"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestQuickstartWorkbook applies examples/quickstart against the built-in
// sandbox and checks the workbook a new user gets: headers a person reads,
// the CTO sheet with e-mails and working profile links, the CTOs enriched
// first. Then it renders the workbook with LibreOffice to PDF and PNG
// (skipped, with one line, when LibreOffice is not installed) and checks
// the pages are legible. LEADSYNC_RENDER_DIR=<dir> keeps the PDF and PNGs
// there to look at.
func TestQuickstartWorkbook(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(repoFile("examples", "quickstart", "main.leads.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	// The same calls and people, paced faster than the service's 1 call/s
	// so that the test takes a second, not ten.
	cfg := strings.Replace(string(src), "sandbox = true", "sandbox    = true\n  rate_limit = 20", 1)
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	ios, _, out, errOut := cli.TestStreams()
	f := &cli.Factory{IO: ios, Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now, Dir: dir}
	if code := cli.Run(context.Background(), f, []string{"apply", "--auto-approve"}); code != 0 {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	path := filepath.Join(dir, "out", "quickstart.xlsx")

	t.Run("cells", func(t *testing.T) {
		x, err := excelize.OpenFile(path)
		if err != nil {
			t.Fatal(err)
		}
		defer x.Close()
		if got := strings.Join(x.GetSheetList(), ","); got != "Summary,CTOs,All leads" {
			t.Errorf("sheets %s", got)
		}
		if got := x.GetActiveSheetIndex(); got != 1 {
			t.Errorf("the workbook opens on sheet %d, want 1: the CTOs, not the Summary", got)
		}
		rows, err := x.GetRows("CTOs")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(rows[0], "|"); got != "Full name|Title|Company|Location|E-mail|E-mail status|Company domain|Profile" {
			t.Errorf("CTOs header: %s", got)
		}
		if len(rows) < 4 {
			t.Fatalf("only %d CTOs", len(rows)-1)
		}
		emails := 0
		cto := regexp.MustCompile(`(?i)\bCTO\b|chief technology officer`)
		for i, r := range rows[1:] {
			for len(r) < 8 {
				r = append(r, "")
			}
			if r[4] != "" {
				emails++
			}
			// Real CTOs: the sandbox matches whole words, as the network
			// does, so a "Director" is not one.
			if !cto.MatchString(r[1]) {
				t.Errorf("CTO sheet lists %s, title %q", r[0], r[1])
			}
			if !strings.Contains(r[3], "Berlin") {
				t.Errorf("CTO sheet lists %s, located in %q", r[0], r[3])
			}
			cell, _ := excelize.CoordinatesToCellName(8, i+2)
			// A link is a HYPERLINK formula (it works in every reader)
			// whose cached value is the address.
			formula, err := x.GetCellFormula("CTOs", cell)
			if err != nil || formula != `HYPERLINK("`+r[7]+`")` || !strings.HasPrefix(r[7], "https://network.example/profile/") {
				t.Errorf("CTO %s: profile cell %q, formula %q (%v)", r[0], r[7], formula, err)
			}
		}
		// Enrichment goes to the CTOs first: every CTO with a company is
		// enriched, so most have an e-mail (some are "empty" at the service).
		if emails*2 < len(rows)-1 {
			t.Errorf("%d of %d CTOs have an e-mail", emails, len(rows)-1)
		}
	})

	t.Run("render", func(t *testing.T) {
		testenv.SkipIfShort(t, "the quickstart workbook was not rendered with LibreOffice")
		soffice, err := exec.LookPath("soffice")
		if err != nil {
			testenv.Skip(t, "LibreOffice (soffice) is not installed: the quickstart workbook was not rendered")
		}
		pdftoppm, err := exec.LookPath("pdftoppm")
		if err != nil {
			testenv.Skip(t, "poppler-utils (pdftoppm) is not installed: the quickstart workbook was not rendered")
		}
		pdftotext, err := exec.LookPath("pdftotext")
		if err != nil {
			testenv.Skip(t, "poppler-utils (pdftotext) is not installed: the rendered workbook's text was not read")
		}
		render := t.TempDir()
		if keep := os.Getenv("LEADSYNC_RENDER_DIR"); keep != "" {
			render = keep
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		run := func(name string, args ...string) {
			t.Helper()
			cmd := exec.CommandContext(ctx, name, args...)
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			if err := cmd.Run(); err != nil {
				t.Fatalf("%s: %v\n%s", filepath.Base(name), err, b.String())
			}
		}
		// A profile of its own, so that a LibreOffice already running for
		// someone else does not take the job.
		run(soffice, "-env:UserInstallation=file://"+filepath.Join(t.TempDir(), "lo-profile"),
			"--headless", "--convert-to", "pdf", "--outdir", render, path)
		pdf := filepath.Join(render, "quickstart.pdf")
		run(pdftoppm, "-r", "110", "-png", pdf, filepath.Join(render, "quickstart"))
		pngs, _ := filepath.Glob(filepath.Join(render, "quickstart-*.png"))
		// Landscape, fitted to the page width: one page per sheet.
		if len(pngs) != 3 {
			t.Errorf("%d pages, want 3 (Summary, CTOs, All leads, each one page wide): %v", len(pngs), pngs)
		}
		for _, p := range pngs {
			if fi, err := os.Stat(p); err != nil || fi.Size() < 10_000 {
				t.Errorf("%s: %v, %d bytes: a blank page?", p, err, fi.Size())
			}
		}
		// The text LibreOffice laid out: headers, links, no "###" of a
		// column too narrow for its dates.
		run(pdftotext, "-layout", pdf, filepath.Join(render, "quickstart.txt"))
		b, _ := os.ReadFile(filepath.Join(render, "quickstart.txt"))
		text := string(b)
		for _, want := range []string{"Full name", "E-mail status", "Company domain", "https://network.example/profile/", "Credits and quota"} {
			if !strings.Contains(text, want) {
				t.Errorf("the rendered workbook lacks %q", want)
			}
		}
		if regexp.MustCompile(`#{3,}`).MatchString(text) {
			t.Errorf("a column is too narrow for its value (###):\n%s", text)
		}
		t.Logf("rendered %d pages to %s", len(pngs), render)
	})
}
