package e2e

// A Ctrl-C while the spreadsheets are written after a closed standard
// output: a real SIGINT to the real process.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// TestAnInterruptWhileTheSheetsAreWrittenAfterAClosedOutput: apply --json
// whose reader goes away while an enrichment is in flight stops as after
// a first Ctrl-C, saves the state and writes the spreadsheets, saying a
// Ctrl-C now skips them. A SIGINT while the writer is held at its first
// row (testHoldRowsEnv, never a sleep) skips them. The process exits 1
// with "Aborted." and "The state is saved", every answer the service
// gave in the state, no spreadsheet, no temporary file and no lock left.
func TestAnInterruptWhileTheSheetsAreWrittenAfterAClosedOutput(t *testing.T) {
	testenv.SkipIfShort(t, "runs a real process")
	t.Parallel()
	opts := sandbox.Options{Seed: 21}
	gate := holdReads(&opts)
	defer gate.open()
	// A timeout of a minute: at load average 40, with 10 s, searches were
	// sent again after answers that came too late, which the sandbox
	// counted and the state rightly did not hold (9 searches for 3).
	h := newHarness(t, opts, fmt.Sprintf(faultConfig, "60s"))
	tmp := t.TempDir() // the system temp folder of the process: the rows' spill file
	h.env = append(h.env, testHoldRowsEnv+"=1", "TMPDIR="+tmp)
	// A saved plan, made before the gate holds reads: the apply makes no
	// billing call, and its enrichments are held.
	if r := h.run("plan", "--out", "leads.plan"); r.code != 0 {
		t.Fatalf("plan --out:\n%s", r)
	}
	gate.arm()
	cmd := h.command("apply", "--auto-approve", "--json", "leads.plan")
	stdout, stderr := startPiped(t, cmd)
	closeAtAnEnrichment(t, stdout)
	gate.open() // the next event's write fails: the run stops

	errOut := bufio.NewReader(stderr)
	before, err := readUntil(errOut, heldRowsNote)
	if err != nil {
		t.Fatalf("the writer was not held (%v); stderr:\n%s", err, before)
	}
	if !strings.Contains(before, "a Ctrl-C now skips them") {
		t.Errorf("no note that a Ctrl-C skips the spreadsheets before they were written:\n%s", before)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(errOut)
	r := h.ended(cmd.Wait(), []string{"apply"}, "", before+string(rest))
	if r.code != 1 || !strings.Contains(r.stderr, "Aborted. The state is saved") {
		t.Errorf("a SIGINT while the spreadsheets were written: want exit 1 and \"Aborted. The state is saved\"\n%s", r)
	}
	wantAnswersInState(t, h)
	for _, dir := range []string{filepath.Join(h.dir, "out"), tmp} {
		if left := filesIn(t, dir); len(left) > 0 {
			t.Errorf("left in %s after the writer's stop: %v", dir, left)
		}
	}
	if id := h.lockID(); id != "" {
		t.Errorf("the lock %s was left", id)
	}
}

// startPiped starts cmd with its stdout and stderr read through pipes.
func startPiped(t *testing.T, cmd *exec.Cmd) (stdout, stderr io.ReadCloser) {
	t.Helper()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err = cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a test that failed midway
	return stdout, stderr
}

// closeAtAnEnrichment reads apply --json's events until an enrichment
// starts (its answer held by the gate), then closes stdout: the reader
// goes away, like head's.
func closeAtAnEnrichment(t *testing.T, stdout io.ReadCloser) {
	t.Helper()
	defer stdout.Close()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"message_type":"call_start"`) && strings.Contains(sc.Text(), `"kind":"enrich"`) {
			return
		}
	}
	t.Fatalf("no enrichment started (%v)", sc.Err())
}

// readUntil reads r's lines until one holds want, and returns those
// before it; an error when r ends first. What follows stays in r.
func readUntil(r *bufio.Reader, want string) (string, error) {
	var before strings.Builder
	for {
		line, err := r.ReadString('\n')
		if strings.Contains(line, want) {
			return before.String(), nil
		}
		before.WriteString(line)
		if err != nil {
			return before.String(), err
		}
	}
}

// wantAnswersInState fails the test unless the state holds every search
// and every enrichment the sandbox answered.
func wantAnswersInState(t *testing.T, h *harness) {
	t.Helper()
	st := h.loadState()
	stats := h.srv.Stats()
	if n := len(st.Searches); n != stats.ByOp[sandbox.OpSearch] {
		t.Errorf("%d searches in state, %d answered", n, stats.ByOp[sandbox.OpSearch])
	}
	enriched := map[string]bool{}
	for _, p := range st.People {
		if p.Enrichment != nil {
			enriched[p.Lead.PageName] = true
		}
	}
	for page := range stats.Enriched {
		if !enriched[page] {
			t.Errorf("the enrichment of %s was answered but is not in state", page)
		}
	}
	if len(stats.Enriched) == 0 {
		t.Error("no enrichment was answered")
	}
}

// filesIn lists the files of dir, none when it does not exist.
func filesIn(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
