package backendtest

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/api/apitest"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// wholeReads is a backend whose Base an apply does not open: it loads
// the state whole, as before partial states (its other abilities stay).
type wholeReads struct{ backend.Backend }

func (w wholeReads) Unwrap() backend.Backend  { return w.Backend }
func (wholeReads) ReadsPeopleOnRequest() bool { return false }

// loadCounter counts the loads of the state whole.
type loadCounter struct {
	backend.Backend
	loads int
}

func (l *loadCounter) Unwrap() backend.Backend { return l.Backend }
func (l *loadCounter) Load() (*state.State, error) {
	l.loads++
	return l.Backend.Load()
}

// applyView keeps the summary of the run and shows nothing.
type applyView struct {
	engine.NopProgress
	sum *engine.Summary
}

func (v *applyView) Plan(*plan.Plan)                          {}
func (v *applyView) Progress(func()) engine.Progress          { return v }
func (v *applyView) Interrupted()                             {}
func (v *applyView) WritingAfterStop(int)                     {}
func (v *applyView) Folded(int)                               {}
func (v *applyView) Exports(*config.Config, []export.Written) {}
func (v *applyView) Done(error)                               {}
func (v *applyView) Summary(sum *engine.Summary)              { v.sum = sum }

// partialApplySteps are the configurations applied one after the other
// (after the api block): a search and its copy (people shared), eleven
// searches (a partial state runs plans of any size), more and then fewer
// max_results (a trim) with a profile read of no one (a
// failure), a profile read of a person the searches found by their page
// name in other letters' case (PAGE is replaced; nothing else of the run
// reads them), then one search targeted, and a second profile block of
// the same page (its read shared), with a spreadsheet written after it;
// then the whole configuration with a workbook (its plan reads no person
// in bulk), the workbook targeted with a search it adds, and a saved plan
// of a new search.
var partialApplySteps = []struct {
	blocks  string
	targets []string
	// loads is how often the apply loads the state whole: once for a
	// state never written (no store yet).
	loads int
	// saved applies a plan saved by plan --out (with targets) instead.
	saved bool
}{
	{blocks: searchS(3), loads: 1},
	{blocks: searchS(6) + searchT},
	{blocks: searchS(6) + searchT + `search "m" {
  for_each    = toset(["Munich", "Cologne", "Frankfurt", "Stuttgart", "Leipzig", "Dresden", "Bremen", "Hanover", "Essen", "Dortmund", "Bonn"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 2
}
`, targets: []string{"search.m"}},
	{blocks: searchS(2) + searchT + `profile "nobody" {
  page_name = "no-such-member-anywhere"
}
`},
	{blocks: searchS(2) + searchT + profileP},
	{blocks: searchS(2) + profileP + `profile "q" {
  page_name = "PAGE"
}
search "u" {
  keywords    = "Engineer"
  city        = "Hamburg"
  max_results = 8
}
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s, search.u, profile.p]
  }
}
`, targets: []string{"search.u", "profile.q"}},
	{blocks: searchS(2) + profileP + searchU + searchV + exportBook(""), loads: 0},
	{blocks: searchS(2) + profileP + searchU + searchV + searchW + exportBook(", search.w"), targets: []string{"export.book"}},
	{blocks: searchS(2) + profileP + searchU + searchV + searchW + `search "x" {
  keywords    = "Manager"
  city        = "Berlin"
  max_results = 5
}
` + exportBook(", search.w"), targets: []string{"search.x"}, saved: true},
}

const searchW = `search "w" {
  keywords    = "Engineer"
  city        = "Cologne"
  max_results = 4
}
`

// searchU and searchV are searches of the steps that write a workbook
// (exportBook): search.u ran before, search.v did not.
const searchU = `search "u" {
  keywords    = "Engineer"
  city        = "Hamburg"
  max_results = 8
}
`

const searchV = `search "v" {
  keywords    = "Engineer"
  city        = "Munich"
  max_results = 5
}
`

// exportBook is export.book, a workbook of the people of the searches
// and profile.p (and of more), a sheet of their changes, and the CSV
// export.all: planned with the searches, it reads no person in bulk.
func exportBook(more string) string {
	return `export "book" {
  path = "out/book.xlsx"
  sheet "people" {
    from = [search.s, search.u, search.v, profile.p` + more + `]
  }
  sheet "changes" {
    changes = [search.s, search.u]
  }
}
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s, search.u, profile.p]
  }
}
`
}

func searchS(max int) string {
	return `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = ` + strconv.Itoa(max) + `
}
`
}

const searchT = `search "t" {
  keywords    = "Engineer"
  city        = "Berlin"
  max_results = 4
}
`

const profileP = `profile "p" {
  page_name = "PAGE"
}
`

// testPartialApply: an apply of searches and profile reads runs on a
// partial state on a backend that reads people on request (it loads
// nothing whole) and leaves the same stored state, shows the same
// summary and writes the same spreadsheet as the apply that loads the
// state whole, against the same sandbox.
func testPartialApply(t *testing.T, k Kind) {
	whole, part := partialPair(t, k)
	wholeDir, partDir := t.TempDir(), t.TempDir()
	page := ""
	for i, step := range partialApplySteps {
		text := "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 2\n}\n" + strings.ReplaceAll(step.blocks, "PAGE", page)
		wantSum, want, _ := partialApplyStep(t, whole, wholeDir, text, step.targets, step.saved, true)
		gotSum, got, loads := partialApplyStep(t, part, partDir, text, step.targets, step.saved, false)
		if loads != step.loads {
			t.Errorf("step %d: the apply loaded the state whole %d times, want %d", i, loads, step.loads)
		}
		if step.saved && (gotSum == nil || gotSum.Calls == 0) {
			t.Errorf("step %d: the saved plan made no call", i)
		}
		if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
			t.Errorf("step %d: the summaries differ (-whole +partial):\n%s", i, d)
		}
		same(t, want, got, fmt.Sprintf("step %d: the state after the apply differs (-whole +partial)", i))
		if last := i == len(partialApplySteps)-1; last && len(filesIn(t, partDir)) == 0 {
			t.Errorf("step %d: no spreadsheet written after the partial apply", i)
		}
		if d := cmp.Diff(filesIn(t, wholeDir), filesIn(t, partDir)); d != "" {
			t.Errorf("step %d: the spreadsheets differ (-whole +partial):\n%s", i, d)
		}
		if page == "" {
			page = pageOfSomeone(got)
		}
	}
}

// pageOfSomeone is the page name, in capitals, of a person of st whose
// page name is not.
func pageOfSomeone(st *state.State) string {
	for _, p := range st.People {
		if up := strings.ToUpper(p.Lead.PageName); p.Lead.PageName != "" && up != p.Lead.PageName {
			return up
		}
	}
	return ""
}

// partialApplyStep applies text from dir to the state open opens, read
// whole or not (a plan saved first when saved), and returns the run's
// summary, the state stored after it and the number of times the apply
// loaded the state whole.
func partialApplyStep(t *testing.T, open func(string, Who) backend.Backend, dir, text string, targets []string, saved, whole bool) (*engine.Summary, *state.State, int) {
	t.Helper()
	return partialApplyAt(t, open, dir, text, targets, saved, whole, At(60))
}

// partialApplyAt is partialApplyStep at the time at.
func partialApplyAt(t *testing.T, open func(string, Who) backend.Backend, dir, text string, targets []string, saved, whole bool, at time.Time) (*engine.Summary, *state.State, int) {
	t.Helper()
	return partialApplyFiles(t, open, dir, fstest.MapFS{"main.leads.hcl": {Data: []byte(text)}}, targets, saved, whole, at)
}

// partialApplyFiles is partialApplyAt of the configuration main.leads.hcl
// of fsys, with the files beside it (an import's).
func partialApplyFiles(t *testing.T, open func(string, Who) backend.Backend, dir string, fsys fstest.MapFS, targets []string, saved, whole bool, at time.Time) (*engine.Summary, *state.State, int) {
	t.Helper()
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fsys})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	lb := open("", Bob)
	defer backend.Close(lb)
	lc := &loadCounter{Backend: lb}
	var b backend.Backend = lc
	if whole {
		b = wholeReads{lc}
	}
	svc := sandboxClient(t)
	d := run.Deps{Backend: b, Service: func() (api.Service, error) { return svc, nil }, Now: func() time.Time { return at },
		Interrupt: make(chan os.Signal)}
	v := &applyView{}
	opts := run.ApplyOptions{Config: cfg, AutoApprove: true, Targets: targets}
	if saved {
		opts.PlanFile, opts.Targets = savedPlan(t, d, cfg, targets), nil
		lc.loads = 0 // the apply's loads alone
	}
	err := run.Apply(context.Background(), d, opts, v)
	if err != nil && !errors.Is(err, run.ErrFailed) {
		t.Fatalf("apply: %v", err)
	}
	st, err := loadOnce(open("", Alice))
	must(t, err, "load after the apply")
	return v.sum, st, lc.loads
}

// savedPlan is the plan of cfg and targets, saved as plan --out saves
// it, in a folder of its own (not among the spreadsheets).
func savedPlan(t *testing.T, d run.Deps, cfg *config.Config, targets []string) string {
	t.Helper()
	p, diags, err := run.Plan(context.Background(), d, run.PlanOptions{Config: cfg, Targets: targets})
	must(t, err, "plan")
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	path := filepath.Join(t.TempDir(), "saved.plan")
	must(t, plan.Save(path, p), "save the plan")
	return path
}

// sandboxClient is a client of an in-process sandbox (no network). Its
// pace (50 calls a second) runs on a fake clock: the sandbox limits no
// rate, and waiting for it in real time took a second of each
// PartialApply.
func sandboxClient(t *testing.T) api.Service {
	t.Helper()
	sb := sandbox.New(sandbox.Options{Seed: 5, RateLimit: -1, NoLatency: true})
	clock := apitest.NewAutoClock(Now)
	c, err := api.New(api.Options{
		Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
		HTTPClient: &http.Client{Transport: sb.Transport()}, RateLimit: 50, Parallelism: 2,
		Pacer: api.NewPacer(50, 2, clock), Clock: clock,
	})
	must(t, err, "sandbox client")
	return c
}

// summaryJSON is the summary of a run as JSON, its duration aside.
func summaryJSON(t *testing.T, sum *engine.Summary) string {
	t.Helper()
	if sum == nil {
		return "no summary"
	}
	c := *sum
	c.Duration = 0
	b, err := json.MarshalIndent(&c, "", " ")
	must(t, err, "summary")
	return string(b)
}

// filesIn are the spreadsheets written in dir/out, by name; a workbook
// by the names of its parts ("book.xlsx:xl/worksheets/sheet2.xml"), whose
// order in the ZIP file varies from one write to the next (as does the
// order of the content types: they are compared sorted).
func filesIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, "out", e.Name()))
		must(t, err, "read %s", e.Name())
		if filepath.Ext(e.Name()) != ".xlsx" {
			out[e.Name()] = string(b)
			continue
		}
		z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
		must(t, err, "open %s", e.Name())
		for _, f := range z.File {
			r, err := f.Open()
			must(t, err, "open %s in %s", f.Name, e.Name())
			part, err := io.ReadAll(r)
			must(t, err, "read %s in %s", f.Name, e.Name())
			text := string(part)
			if f.Name == "[Content_Types].xml" {
				// Its elements come in the order of a Go map.
				elems := strings.Split(text, "><")
				slices.Sort(elems)
				text = strings.Join(elems, "\n")
			}
			out[e.Name()+":"+f.Name] = text
		}
	}
	return out
}

// sandboxOneCallAtATime is the api block of the partial applies: one
// call at a time, as the sandbox's answers (an ID, the credit balance)
// follow the order of the calls.
const sandboxOneCallAtATime = "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 1\n}\n"

// sameApply checks step i's apply on a partial state against the apply of
// the state read whole: the loads of the whole state it made, its
// summary and the state it left.
func sameApply(t *testing.T, i, wantLoads, loads int, wantSum, gotSum *engine.Summary, want, got *state.State) {
	t.Helper()
	if loads != wantLoads {
		t.Errorf("step %d: the apply loaded the state whole %d times, want %d", i, loads, wantLoads)
	}
	if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
		t.Errorf("step %d: the summaries differ (-whole +partial):\n%s", i, d)
	}
	same(t, want, got, fmt.Sprintf("step %d: the state after the apply differs (-whole +partial)", i))
}

// partialPair makes two empty places of k, one for the apply that loads
// the state whole and one for the apply on a partial state, and skips
// the test on a backend that reads its state whole.
func partialPair(t *testing.T, k Kind) (whole, part func(ws string, w Who) backend.Backend) {
	whole, part = k.New(t), k.New(t)
	probe := part("", Alice)
	inPart := backend.ReadsInPart(probe)
	backend.Close(probe)
	if !inPart {
		t.Skip("the backend reads its state whole")
	}
	return whole, part
}
