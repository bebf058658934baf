package e2e

// Disk and permission faults keep the last good state and spreadsheets: a
// state folder that cannot be written, a disk that fills up mid-run or
// under the spreadsheet, an export folder that is a file.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// snapshot is the content of the files a failed command must not change.
type snapshot map[string][]byte

// snapshot reads the files rel of the harness's folder, which must exist.
func (h *harness) snapshot(rel ...string) snapshot {
	h.t.Helper()
	s := snapshot{}
	for _, r := range rel {
		b, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil {
			h.t.Fatalf("snapshot: %v", err)
		}
		s[r] = b
	}
	return s
}

// unchanged fails the test when a file of s changed.
func (h *harness) unchanged(s snapshot) {
	h.t.Helper()
	for r, want := range s {
		got, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil {
			h.t.Errorf("%s: %v (it was there before)", r, err)
			continue
		}
		if !bytes.Equal(got, want) {
			h.t.Errorf("%s changed", r)
		}
	}
}

// callsSince is the number of calls the sandbox saw since stats0.
func (h *harness) callsSince(s0 sandbox.Stats) int { return h.srv.Stats().Calls - s0.Calls }

// fill writes zeros to a new file in dir until the file system is full.
// stateFS is the size of the small file system a test mounts on the state
// folder before it fills it: room for the SQLite database of a few
// searches with its write-ahead log (up to about 600 KB before it is moved
// into the database) and shared memory, which a 256 KB one, enough for
// the JSON state file, is not.
const stateFS = 2 << 20

func fill(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "ballast")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	for {
		if _, err := f.Write(buf); err != nil {
			break
		}
	}
	// Fill the last partial block too, byte-sized.
	for {
		if _, err := f.Write(buf[:1]); err != nil {
			return path
		}
	}
}

// TestStateFolderNotWritable: apply on a state folder it cannot write stops
// before any call with an error naming the file and saying what to do, and
// changes nothing.
func TestStateFolderNotWritable(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Run("read-only folder", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, sandbox.Options{Seed: 4}, fmt.Sprintf(faultConfig, "10s"))
		if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
			t.Fatalf("first apply:\n%s", r)
		}
		snap := h.snapshot(".leadsync/state.db", "out/leads.xlsx")
		sdir := filepath.Join(h.dir, ".leadsync")
		testenv.ReadOnly(t, sdir)
		s0 := h.srv.Stats()
		r := h.run("apply", "--auto-approve")
		if r.code != 1 {
			t.Fatalf("want exit 1:\n%s", r)
		}
		for _, want := range []string{"state.db.lock", "make the folder writable"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the error does not say %q:\n%s", want, r)
			}
		}
		if n := h.callsSince(s0); n != 0 {
			t.Errorf("%d calls made although no result could be kept", n)
		}
		h.unchanged(snap)
	})
	t.Run("state folder is a file", func(t *testing.T) {
		t.Parallel()
		cfg := strings.Replace(fmt.Sprintf(faultConfig, "10s"), "api {", "leadsync {\n  state_path = \"blocked/state.db\"\n}\n\napi {", 1)
		h := newHarness(t, sandbox.Options{Seed: 4}, cfg)
		writeFile(t, filepath.Join(h.dir, "blocked"), "a file where the state folder should be\n")
		s0 := h.srv.Stats()
		r := h.run("apply", "--auto-approve")
		if r.code != 1 || !strings.Contains(r.stderr, filepath.Join("blocked", "state.db")) || !strings.Contains(r.stderr, "not a directory") {
			t.Errorf("want exit 1 and an error naming blocked/state.db:\n%s", r)
		}
		if n := h.callsSince(s0); n != 0 {
			t.Errorf("%d calls made although no result could be kept", n)
		}
	})
}

// TestDiskFullMidRun fills the state's file system in the middle of an
// apply: the run stops at the first result it cannot record (keeping it in
// the rescue file), says the disk is full, keeps the last good state and
// spreadsheet; after space is freed the next apply finishes without
// repeating any call it reported done.
func TestDiskFullMidRun(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 6}, fmt.Sprintf(faultConfig, "10s"))
	h.env = append(h.env, testWriteRetryEnv+"="+faultRetryStuck) // a full disk stays full
	sdir := filepath.Join(h.dir, ".leadsync")
	testenv.MountTmpfs(t, sdir, stateFS)
	if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
		t.Fatalf("first apply:\n%s", r)
	}
	// The state database takes each completed call in a transaction of
	// its own: it changes call by call, and must load afterwards with
	// every call reported done (checkDoneInState below).
	snap := h.snapshot("out/leads.xlsx")
	var ballast string
	done := 0
	ar := h.applyJSON(func(ev applyEvent) {
		if ev.MessageType == "call_done" {
			if done++; done == 2 {
				ballast = fill(t, sdir)
			}
		}
	})
	if ar.code != 1 {
		t.Fatalf("want exit 1 when the disk is full:\n%s", ar.result)
	}
	for _, want := range []string{"the disk is full", "free some space", "state.db"} {
		if !strings.Contains(ar.stderr+ar.stdout, want) {
			t.Errorf("the output does not say %q:\n%s", want, ar.result)
		}
	}
	noStackTrace(t, ar.result)
	h.unchanged(snap)
	if len(ar.done) >= 22 {
		t.Fatalf("every call completed; the disk never filled:\n%s", ar.result)
	}
	callsAddUp(t, ar)
	// A call that completed but could be neither recorded nor kept (in the
	// rescue file) is named in the summary: the next apply makes it again.
	unrecorded := map[string]bool{}
	for _, f := range ar.summary.Failures {
		if f.Unrecorded {
			unrecorded[f.Kind+" "+f.Address] = true
		}
	}

	// Free the space: everything reported done is kept (the journal, or
	// the rescue file the next command writes into the state), the rest
	// is done now.
	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	ar2 := h.applyJSON(nil)
	if ar2.code != 0 {
		t.Fatalf("apply after freeing space:\n%s", ar2.result)
	}
	h.checkDoneInState(ar)
	for k := range ar2.started {
		if ar.done[k] {
			t.Errorf("%s was reported done before the disk filled and was called again", k)
		}
		if ar.started[k] > 0 && !strings.HasPrefix(k, "enrich ") && !unrecorded[k] && !failedIn(ar, k) {
			t.Errorf("%s was made in the run that filled the disk and again, but that run did not name it as made again:\n%s", k, ar.result)
		}
	}
	if twice := h.enrichedTwice(); len(twice) > 1 {
		// At most the one enrichment whose result could not be recorded.
		t.Errorf("charged twice: %v", twice)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Errorf("work left after the second apply:\n%s", r)
	}
}

// failedIn reports whether the call k had a call_error in ar.
func failedIn(ar *applyRun, k string) bool {
	for _, e := range ar.errors {
		if e.key() == k {
			return true
		}
	}
	return false
}

// TestDiskFullExport fills the spreadsheet's file system: apply keeps every
// result in state, says which spreadsheet it could not write and why, and
// the previous spreadsheet stays whole; once space is freed, export writes
// it without any call.
func TestDiskFullExport(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 8}, fmt.Sprintf(faultConfig, "10s"))
	out := filepath.Join(h.dir, "out")
	testenv.MountTmpfs(t, out, 128<<10)
	if r := h.run("apply", "--auto-approve", "--target", `search.eng["Berlin"]`); r.code != 0 {
		t.Fatalf("first apply:\n%s", r)
	}
	snap := h.snapshot("out/leads.xlsx")
	ballast := fill(t, out)
	ar := h.applyJSON(nil)
	if ar.code != 1 {
		t.Fatalf("want exit 1 when the spreadsheet cannot be written:\n%s", ar.result)
	}
	if !strings.Contains(ar.stderr, "leads.xlsx") || !strings.Contains(ar.stderr, "no space left") {
		t.Errorf("the error does not name the spreadsheet and the full disk:\n%s", ar.result)
	}
	h.unchanged(snap)
	h.checkDoneInState(ar)
	if ar.summary == nil || ar.summary.Failed != 0 || ar.summary.Succeeded == 0 {
		t.Errorf("the calls should all have succeeded:\n%s", ar.result)
	}
	os.Remove(ballast)
	s0 := h.srv.Stats()
	if r := h.run("export"); r.code != 0 {
		t.Fatalf("export after freeing space:\n%s", r)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Errorf("work left:\n%s", r)
	}
	if st := h.srv.Stats(); st.ByOp[sandbox.OpSearch]+st.ByOp[sandbox.OpEnrich]+st.ByOp[sandbox.OpPage] != s0.ByOp[sandbox.OpSearch]+s0.ByOp[sandbox.OpEnrich]+s0.ByOp[sandbox.OpPage] {
		t.Errorf("export or plan made a paid call")
	}
	h.unchangedNot(snap)
}

// unchangedNot fails when a file of s is still as it was.
func (h *harness) unchangedNot(s snapshot) {
	h.t.Helper()
	for r, old := range s {
		got, err := os.ReadFile(filepath.Join(h.dir, r))
		if err != nil || bytes.Equal(got, old) {
			h.t.Errorf("%s was not rewritten (%v)", r, err)
		}
	}
}

// TestExportPathBlocked: an export whose folder is a file fails with an
// error naming it, after every result is safe in state; fixing the path and
// running export writes it with no call.
func TestExportPathBlocked(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes against a sandbox")
	t.Parallel()
	h := newHarness(t, sandbox.Options{Seed: 8}, fmt.Sprintf(faultConfig, "10s"))
	writeFile(t, filepath.Join(h.dir, "out"), "a file where the export folder should be\n")
	ar := h.applyJSON(nil)
	if ar.code != 1 || !strings.Contains(ar.stderr, filepath.Join("out", "leads.xlsx")) {
		t.Fatalf("want exit 1 and an error naming out/leads.xlsx:\n%s", ar.result)
	}
	h.checkDoneInState(ar)
	os.Remove(filepath.Join(h.dir, "out"))
	s0 := h.srv.Stats()
	if r := h.run("export"); r.code != 0 {
		t.Fatalf("export:\n%s", r)
	}
	if r := h.run("apply", "--auto-approve"); r.code != 0 || !strings.Contains(r.stdout, "No changes") {
		t.Errorf("apply after the export was fixed should have nothing to do:\n%s", r)
	}
	if st := h.srv.Stats(); st.ByOp[sandbox.OpEnrich] != s0.ByOp[sandbox.OpEnrich] || st.ByOp[sandbox.OpSearch] != s0.ByOp[sandbox.OpSearch] {
		t.Errorf("calls were repeated after a failed export")
	}
}
