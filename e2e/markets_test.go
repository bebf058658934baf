package e2e

// The markets example (a persona module for two markets) and the
// refactoring it records: its first, flat version applied, then the
// module configuration with its moved blocks, on either backend. The
// moves make no call; the next plan makes none at all.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/sandbox"
)

// examplesAPI is the examples' api block, and what a test puts in its
// place: the harness's sandbox, faster than the built-in one's 1 call/s.
const (
	examplesAPI = "api {\n  sandbox = true\n}\n"
	harnessAPI  = "variable \"sandbox_url\" {\n  type = string\n}\n\napi {\n  base_url   = var.sandbox_url\n  rate_limit = 20\n}\n"
)

// copyExample copies the files of examples/<name> (the *.leads.hcl of the
// folder and of its subfolders in sub) into dir, with the harness's api
// block.
func copyExample(t *testing.T, name, dir string, sub ...string) {
	t.Helper()
	for _, folder := range append([]string{""}, sub...) {
		files, err := filepath.Glob(repoFile("examples", name, folder, "*.leads.hcl"))
		if err != nil || len(files) == 0 {
			t.Fatalf("examples/%s/%s: %v", name, folder, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			src := strings.Replace(string(b), examplesAPI, harnessAPI, 1)
			writeFile(t, filepath.Join(dir, folder, filepath.Base(f)), src)
		}
	}
}

func TestMarketsExampleRefactor(t *testing.T) {
	t.Parallel()
	onBothBackends(t, func(t *testing.T, backend string) {
		h := newHarness(t, sandbox.Options{}, "")
		if backend == "pg" {
			h.env = append(h.env, testBackendEnv+"="+h.usePG())
		}
		// The first version: flat, the DACH market only.
		copyExample(t, filepath.Join("markets", "before"), h.dir)
		if r := h.run("apply", "--auto-approve"); r.code != 0 {
			t.Fatalf("apply of the flat version: %s", r)
		}
		dach := h.srv.Stats()

		// The example as it is: the module for both markets, with the
		// moved blocks of the refactoring.
		copyExample(t, "markets", h.dir, "personas/cto")
		r := h.run("plan")
		if r.code != 0 {
			t.Fatalf("plan: %s", r)
		}
		for _, want := range []string{
			`~ module.dach.search.cto["Berlin"]`, `from search.cto["Berlin"]; no call`,
			`~ module.dach.enrich.contacts`, `from enrich.contacts; no call`,
			`+ module.uk.search.cto["London"]`, "3 moves",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("plan does not say %q:\n%s", want, r.stdout)
			}
		}
		if strings.Contains(r.stdout, `+ module.dach.search`) {
			t.Errorf("the DACH searches would run again:\n%s", r.stdout)
		}
		if r := h.run("apply", "--auto-approve"); r.code != 0 {
			t.Fatalf("apply of the modules: %s", r)
		}
		st := h.srv.Stats()
		searches := st.ByOp[sandbox.OpSearch] - dach.ByOp[sandbox.OpSearch]
		if searches != 2 {
			t.Errorf("the apply with moves made %d searches; want 2 (the UK market's)", searches)
		}
		for id, n := range st.Enriched {
			if n > 1 {
				t.Errorf("%s was enriched %d times", id, n)
			}
		}

		// The next plan makes no call: the moves are done, and the
		// moved blocks now move nothing.
		before := h.srv.Stats()
		r = h.run("plan", "--detailed-exitcode")
		if r.code != 0 || !strings.Contains(r.stdout, "No changes") {
			t.Errorf("the plan after the refactoring: %s", r)
		}
		after := h.srv.Stats()
		if n := after.ByOp[sandbox.OpSearch] + after.ByOp[sandbox.OpEnrich] - before.ByOp[sandbox.OpSearch] - before.ByOp[sandbox.OpEnrich]; n != 0 {
			t.Errorf("the plan after the refactoring made %d calls", n)
		}
		if !strings.Contains(r.stdout, "module.dach.enrich.contacts") {
			t.Errorf("plan: %s", r.stdout)
		}
	})
}
