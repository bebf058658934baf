package run

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// wholeReads is a backend whose Base the apply does not open: it loads
// the state whole, as before partial states.
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

// summaryOf keeps the run's summary.
type summaryOf struct {
	engine.NopProgress
	sum *engine.Summary
}

func (s *summaryOf) Summary(sum *engine.Summary) { s.sum = sum }

// partialApplySteps are the configurations applied one after the other:
// a search and its copy (people shared), more and then fewer
// max_results (a trim) with a profile read of no one (a failure), a
// profile read of a person the searches found, by their page name in
// other letters' case (PAGE is replaced; nothing else of the run reads
// them), then one search targeted, with a spreadsheet written after it.
var partialApplySteps = []struct {
	config  string
	targets []string
}{
	{config: `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}`},
	{config: `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 6
}
search "t" {
  keywords    = "Engineer"
  city        = "Berlin"
  max_results = 4
}`},
	{config: `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 2
}
search "t" {
  keywords    = "Engineer"
  city        = "Berlin"
  max_results = 4
}
profile "nobody" {
  page_name = "no-such-member-anywhere"
}`},
	{config: `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 2
}
search "t" {
  keywords    = "Engineer"
  city        = "Berlin"
  max_results = 4
}
profile "p" {
  page_name = "PAGE"
}`},
	{config: `search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 2
}
search "u" {
  keywords    = "Engineer"
  city        = "Hamburg"
  max_results = 8
}
profile "p" {
  page_name = "PAGE"
}
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s, search.u, profile.p]
  }
}`, targets: []string{`search.u`}},
}

// TestPartialApplyIsTheWholeApply: an apply of searches and profile
// reads runs on a partial state of a state database (it loads nothing
// whole) and leaves the same stored state, and shows the same summary,
// as the apply that loads the state whole.
func TestPartialApplyIsTheWholeApply(t *testing.T) {
	whole, part := t.TempDir(), t.TempDir()
	page := ""
	for i, step := range partialApplySteps {
		text := "api {\n  sandbox = true\n  rate_limit = 50\n  parallelism = 2\n}\n" + strings.ReplaceAll(step.config, "PAGE", page)
		wantSum, want, _ := partialApplyStep(t, whole, text, step.targets, true)
		gotSum, got, loads := partialApplyStep(t, part, text, step.targets, false)
		if i > 0 && loads != 0 {
			t.Errorf("step %d: the apply loaded the state whole %d times, want a partial state", i, loads)
		}
		if d := cmp.Diff(summaryJSON(t, wantSum), summaryJSON(t, gotSum)); d != "" {
			t.Errorf("step %d: the summaries differ (-whole +partial):\n%s", i, d)
		}
		if d := cmp.Diff(canonState(t, want), canonState(t, got)); d != "" {
			t.Fatalf("step %d: the states differ (-whole +partial):\n%s", i, d)
		}
		if last := i == len(partialApplySteps)-1; last && len(filesIn(t, part)) == 0 {
			t.Errorf("step %d: no spreadsheet written after the partial apply", i)
		}
		if d := cmp.Diff(filesIn(t, whole), filesIn(t, part)); d != "" {
			t.Errorf("step %d: the spreadsheets differ (-whole +partial):\n%s", i, d)
		}
		if page == "" {
			for _, p := range got.People {
				if p.Lead.PageName != "" && strings.ToUpper(p.Lead.PageName) != p.Lead.PageName {
					page = strings.ToUpper(p.Lead.PageName)
					break
				}
			}
		}
	}
}

// partialApplyStep applies text in dir, the state read whole or not, and
// returns the run's summary, the state stored after it and the number
// of times the apply loaded the state whole.
func partialApplyStep(t *testing.T, dir, text string, targets []string, whole bool) (*engine.Summary, *state.State, int) {
	t.Helper()
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(text)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	lb := local.Open(filepath.Join(dir, ".leadsync", "state.db"))
	defer backend.Close(lb)
	lc := &loadCounter{Backend: lb}
	var b backend.Backend = lc
	if whole {
		b = wholeReads{lc}
	}
	svc, _ := sandboxService(t)
	d := Deps{Backend: b, Service: func() (api.Service, error) { return svc, nil }, Now: func() time.Time { return t0 },
		Interrupt: make(chan os.Signal)}
	prog := &summaryOf{}
	err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true, Targets: targets}, &recView{progress: prog})
	if err != nil && err != ErrFailed {
		t.Fatalf("apply: %v", err)
	}
	loads := lc.loads
	st, lerr := lb.Load()
	if lerr != nil {
		t.Fatal(lerr)
	}
	return prog.sum, st, loads
}

// canonState is st as JSON, without what differs between two stores of
// the same state: its lineage, serial and version.
func canonState(t *testing.T, st *state.State) string {
	t.Helper()
	c := *st
	c.Serial, c.LeadsyncVersion, c.Journal, c.Lineage = 0, "", nil, "x"
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
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
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// filesIn are the spreadsheets written in dir/out, by name.
func filesIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(filepath.Join(dir, "out"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, "out", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
