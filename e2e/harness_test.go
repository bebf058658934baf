package e2e

// The harness: everything the end-to-end tests share, and nothing else.
// A helper used by one test file stays in that file.
//
//   - leadsync: TestMain, leadsyncBinary, processEnv (the real CLI as a
//     process of its own, in a scrubbed environment), holdRows (its
//     spreadsheets' writer held until the test's interrupt); together and
//     onBothBackends (a test's long cases started at once);
//   - the sandbox: e2eRate, e2eServerRate, scriptRate, scriptServerRate,
//     serveSandbox, holdReads (an answerGate: reads answered when the
//     test says);
//   - a project: harness, newProject, newHarness, workingCopy and their
//     run, command, startApply, applyJSON, applyKilled (one folder, its
//     sandbox and its processes), result;
//   - what a run left: loadState, checkDoneInState, enrichedTwice, lockID,
//     lockLeft;
//   - PostgreSQL: pgConnStr, freshSchema, schemaName, migrateSchema, usePG;
//   - fixtures: faultConfig, writeFile, repoFile, and the split search
//     comparison of splitSets, setDiff and sample.

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/leadsync/leadsync/internal/cli"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
	"github.com/leadsync/leadsync/internal/testenv"
)

// ---- leadsync, the program under test

// mainEnv makes the test binary behave as leadsync itself (see TestMain).
const mainEnv = "LEADSYNC_TEST_RUN_MAIN"

// TestMain makes this test binary leadsync, two ways, so that no test
// builds the program again:
//   - with mainEnv=1 in its environment it runs cli.Main and exits: the Go
//     tests start leadsyncBinary so, in processEnv, to kill it, fill its
//     disk, race two of it, or read its output as it comes;
//   - testscript re-executes it as the command leadsync of the scripts of
//     testdata/script (see TestScripts).
//
// Otherwise it runs the tests, e2eParallel of them at a time.
func TestMain(m *testing.M) {
	if os.Getenv(mainEnv) == "1" {
		os.Exit(runLeadsync())
	}
	testscript.Main(parallelM{m}, map[string]func(){
		"leadsync": func() { os.Exit(runLeadsync()) },
	})
}

// runLeadsync is leadsync's main with the settings only tests make,
// read from this test binary's environment (the program itself reads no
// such variable): testBackendEnv runs a configuration without a backend
// block on pg, testWriteRetryEnv shortens the waits before a failed
// state write is tried again, and testHoldRowsEnv holds the spreadsheets'
// writer at its first row (holdRows).
func runLeadsync() int {
	// Each command is a short process over small states, garbage at its
	// exit: its collector runs less often (testenv.CollectLess), as the
	// test binaries' do. The scripts' 1,000 commands then took 2-3 s less
	// CPU; nothing here measures a command's memory.
	testenv.CollectLess()
	f := cli.NewSystemFactory()
	if schema := os.Getenv(testBackendEnv); schema != "" {
		f.DefaultBackend = &backend.Block{Type: "pg", Attrs: map[string]*backend.Attr{"schema_name": {Value: schema, Known: true}}}
	}
	if v := os.Getenv(testWriteRetryEnv); v != "" {
		for _, s := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(s))
			if err != nil || d < 0 {
				fmt.Fprintf(os.Stderr, "%s=%q: not a list of durations\n", testWriteRetryEnv, v)
				return 2
			}
			f.WriteRetryDelays = append(f.WriteRetryDelays, d)
		}
	}
	if os.Getenv(testHoldRowsEnv) != "" {
		export.HoldRows = holdRows
	}
	return cli.Run(context.Background(), f, os.Args[1:])
}

// e2eParallel is how many tests of this package run at once unless go
// test's -parallel says otherwise. Its default, the number of cores, suits
// tests that compute; these mostly wait (for a rate limit, a retry, a
// process, PostgreSQL), so on two cores eight at a time take about a third
// of the time, and nothing they check depends on the machine's speed.
const e2eParallel = 8

// parallelM runs the tests with -parallel e2eParallel when the command
// line does not set it, their temporary folders (the workspaces, states
// and clusters of every test and script) in memory (testenv.RunInMemory).
// The collector of the tests' own process (the sandboxes, the harness,
// not the leadsync processes) runs less often (testenv.CollectLess).
type parallelM struct{ m *testing.M }

func (p parallelM) Run() int {
	testenv.CollectLess()
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(e2eParallel))
	}
	defer removePGTemplate()
	return testenv.RunInMemory(p.m)
}

// together runs the subtests named names, fn(t, i) for the i-th, all at
// once within the slot of the test t, and returns when they have ended.
// A test whose cases wait long (a PostgreSQL cluster restarted, writes
// tried again, an apply killed) uses it rather than t.Parallel in its
// cases: a parallel case waits for a slot behind every case queued before
// it, the scripts' 130 among them, so the longest cases started last and
// the package ended with one of them running alone for 20 s.
func together(t *testing.T, names []string, fn func(t *testing.T, i int)) {
	t.Helper()
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.Run(name, func(t *testing.T) { fn(t, i) })
		}()
	}
	wg.Wait()
}

// onBothBackends runs fn(t, "local") and fn(t, "pg") as the subtests
// local and pg, together.
func onBothBackends(t *testing.T, fn func(t *testing.T, backend string)) {
	t.Helper()
	backends := []string{"local", "pg"}
	together(t, backends, func(t *testing.T, i int) { fn(t, backends[i]) })
}

// leadsyncBinary is the program a test runs as leadsync: this test binary,
// which is leadsync when started with processEnv.
func leadsyncBinary(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

// processEnv is the environment of every leadsync process a Go test
// starts: this process's own without any LEADSYNC_ variable (a developer's
// key, workspace, connection string or log level must not change what a
// test sees), plus mainEnv=1, NO_COLOR=1, LEADSYNC_LOG from HARDENING_LOG
// (HARDENING_LOG=debug shows every call in the failures' output). A test
// appends its own; a later variable of the same name wins.
func processEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LEADSYNC_") {
			env = append(env, kv)
		}
	}
	env = append(env, mainEnv+"=1", "NO_COLOR=1")
	if lvl := os.Getenv("HARDENING_LOG"); lvl != "" {
		env = append(env, "LEADSYNC_LOG="+lvl)
	}
	return env
}

// testBackendEnv names a pg schema that commands use, with
// LEADSYNC_PG_CONN_STR, for a configuration without a backend block: the
// end-to-end tests and scripts run against pg this way (read by
// runLeadsync, in this test binary only).
const testBackendEnv = "LEADSYNC_TEST_PG_SCHEMA"

// testWriteRetryEnv sets the waits before each new try of a failed write
// of the state, as Go durations separated by commas ("50ms,100ms"): the
// fault tests shorten run.WriteRetryDelays (about a minute) this way (read
// by runLeadsync, in this test binary only).
const testWriteRetryEnv = "LEADSYNC_TEST_WRITE_RETRY"

// testHoldRowsEnv, set to anything, makes a leadsync process hold the
// spreadsheets' writer at the first row of each sheet (holdRows; read by
// runLeadsync, in this test binary only).
const testHoldRowsEnv = "LEADSYNC_TEST_HOLD_ROWS"

// heldRowsNote is what a leadsync process with testHoldRowsEnv says on
// stderr when its writer is held.
const heldRowsNote = "test: the spreadsheets' writer is held at its first row"

// holdRows is export.HoldRows in a process with testHoldRowsEnv: it says
// heldRowsNote, then waits for the writer's stop (an interrupt the test
// sends), a minute at most: a stop that never comes lets the writer end
// its files, which the test sees.
func holdRows(stop context.Context) {
	fmt.Fprintln(os.Stderr, heldRowsNote)
	if stop == nil {
		return
	}
	select {
	case <-stop.Done():
	case <-time.After(time.Minute):
	}
}

// ---- The sandbox

// e2eRate is the rate limit of the Go tests' configurations (faultConfig
// and others): the service's rules with time compressed, so that the
// suite stays fast.
const e2eRate = 20

// e2eServerRate is the rate the end-to-end sandboxes enforce: four times
// the configured one. Compressed 20 times, the pacer's 2% margin is 1 ms,
// which a loaded machine's scheduling delays exceed (a request that leaves
// late arrives close to the next one), and the 429s then eat the retries
// that a test of 500s or drops relies on. Twice the rate (a window of
// 25 ms) was not enough at load average 12: a request 25 ms late got a
// 429 in TestNothingWritablePrintsTheAnswers. The pace itself is measured
// by the benchmarks; here a client faster than four times its limit still
// fails.
const e2eServerRate = 4 * e2eRate

// scriptRate is the rate limit of the scripts' configurations
// (testdata/script): five times e2eRate. No script is about the pace (the
// Go tests of pace_test.go are, at their own rates), and at 20 calls a
// second the scripts' 2,400 calls on both backends took about two minutes
// of their slots' time waiting for the pacer.
const scriptRate = 100

// scriptServerRate and scriptServerWindow are the limit the scripts'
// sandboxes enforce: four times scriptRate, over a sliding window of 25 ms
// (10 calls). A client faster than four times its limit still fails; a
// request a loaded machine delays is not refused for arriving a few
// milliseconds close to the next, as with a window of one call (2.5 ms
// at this rate), whose 429 would cost the script a second of backoff.
const (
	scriptServerRate   = 4 * scriptRate
	scriptServerWindow = 25 * time.Millisecond
)

// serveSandbox serves a sandbox of opts on a loopback port until the
// function given to cleanup runs (t.Cleanup, or a script's env.Defer), and
// returns it and its URL.
func serveSandbox(opts sandbox.Options, cleanup func(func())) (*sandbox.Server, string) {
	srv := sandbox.New(opts)
	hs := httptest.NewServer(srv)
	cleanup(hs.Close)
	return srv, hs.URL
}

// heldLatency marks the reads (billing, profiles, enrichments) of a
// sandbox whose answers wait for an answerGate.
const heldLatency = 777 * time.Millisecond

// answerGate holds the answers of a sandbox's reads (profile reads and
// enrichments; billing too, so arm it after the plan is made) from when it
// is armed (and the reads it lets pass are answered) until it is opened,
// so that a test acts while a call is in flight (fills a disk, stops the
// database, runs plan and show) without racing its answer. Searches keep
// their latency; reads before it is armed answer at once.
type answerGate struct {
	armed atomic.Bool
	pass  atomic.Int64 // reads still answered once armed
	ch    chan struct{}
	once  sync.Once
	// held receives a value each time a read starts to wait.
	held chan struct{}
}

// holdReads makes the reads of a sandbox of opts wait for a new gate.
func holdReads(opts *sandbox.Options) *answerGate {
	g := &answerGate{ch: make(chan struct{}), held: make(chan struct{}, 64)}
	opts.ReadLatency = [2]time.Duration{heldLatency, heldLatency}
	opts.Sleep = func(ctx context.Context, d time.Duration) error {
		if d == heldLatency {
			if !g.armed.Load() || g.pass.Add(-1) >= 0 {
				return nil
			}
			select {
			case g.held <- struct{}{}:
			default:
			}
			select {
			case <-g.ch:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return g
}

// arm holds the reads from now on (once a plan is made: its billing call
// is a read).
func (g *answerGate) arm() { g.armAfter(0) }

// armAfter holds the reads from now on but the next n.
func (g *answerGate) armAfter(n int) {
	g.pass.Store(int64(n))
	g.armed.Store(true)
}

// holding waits until a read is held by the gate: a call is then in
// flight, its answer paid for and waiting. It reports false after a
// minute without one (the run has no read left to make).
func (g *answerGate) holding() bool {
	select {
	case <-g.held:
		return true
	case <-time.After(time.Minute):
		return false
	}
}

// open lets every read answer, now and from then on.
func (g *answerGate) open() { g.once.Do(func() { close(g.ch) }) }

// ---- A project: one folder, its sandbox, its leadsync processes

// harness is one project folder and the sandbox it talks to, driven through
// real leadsync processes (leadsyncBinary).
type harness struct {
	t   *testing.T
	srv *sandbox.Server // nil for newProject
	dir string
	env []string
	// pgConnStr and pgSchema are where the state is, when usePG was called.
	pgConnStr, pgSchema string
	// cache is the user's cache directory of its processes
	// (XDG_CACHE_HOME): the rescue files of an apply that could not write
	// the state go there, never into the developer's own.
	cache string
}

// newProject is a project folder with config as its main.leads.hcl (none
// when config is empty) and processEnv (with a cache directory of its
// own), without a sandbox: for
// configurations that use the built-in one (api { sandbox = true }) or
// reach no service.
func newProject(t *testing.T, config string) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir(), env: processEnv(), cache: t.TempDir()}
	h.env = append(h.env, "XDG_CACHE_HOME="+h.cache)
	if config != "" {
		h.writeConfig(config)
	}
	return h
}

// newHarness is newProject with a sandbox of opts served on loopback: the
// configuration reaches it as var.sandbox_url, with the sandbox's key in
// LEADSYNC_API_KEY. Options left zero get e2eServerRate and the short
// latencies of a quick service (sandbox.New's own defaults otherwise).
func newHarness(t *testing.T, opts sandbox.Options, config string) *harness {
	t.Helper()
	if opts.RateLimit == 0 {
		opts.RateLimit, opts.RateWindow = e2eServerRate, time.Second/e2eServerRate
	}
	if opts.SearchLatency == [2]time.Duration{} {
		opts.SearchLatency = [2]time.Duration{5 * time.Millisecond, 30 * time.Millisecond}
	}
	if opts.ReadLatency == [2]time.Duration{} {
		opts.ReadLatency = [2]time.Duration{2 * time.Millisecond, 10 * time.Millisecond}
	}
	h := newProject(t, config)
	var url string
	h.srv, url = serveSandbox(opts, t.Cleanup)
	h.env = append(h.env, "LEADSYNC_VAR_sandbox_url="+url, "LEADSYNC_API_KEY="+h.srv.Key())
	return h
}

// workingCopy is another folder of the same project (a teammate's clone):
// the same sandbox, environment and state backend, with config written
// to it (none when config is empty).
func (h *harness) workingCopy(config string) *harness {
	h.t.Helper()
	c := *h
	c.env = append([]string(nil), h.env...)
	c.dir = h.t.TempDir()
	if config != "" {
		c.writeConfig(config)
	}
	return &c
}

// writeConfig writes config as the folder's main.leads.hcl.
func (h *harness) writeConfig(config string) {
	h.t.Helper()
	writeFile(h.t, filepath.Join(h.dir, "main.leads.hcl"), config)
}

// result is what one leadsync process did.
type result struct {
	args   []string
	stdout string
	stderr string
	code   int
}

func (r result) String() string {
	return fmt.Sprintf("leadsync %s: exit %d\n--- stdout\n%s--- stderr\n%s", strings.Join(r.args, " "), r.code, r.stdout, r.stderr)
}

// output is stdout and stderr together, for a test that looks for a
// message wherever it was printed.
func (r result) output() string { return r.stdout + r.stderr }

// command builds a leadsync process in the harness's folder (--chdir too).
func (h *harness) command(args ...string) *exec.Cmd {
	cmd := exec.Command(leadsyncBinary(h.t), append(append([]string{}, args...), "--chdir", h.dir)...)
	cmd.Env = h.env
	cmd.Dir = h.dir
	return cmd
}

// run runs leadsync to the end; a process that could not run, or a Go
// stack trace in its output, fails the test.
func (h *harness) run(args ...string) result {
	h.t.Helper()
	cmd := h.command(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return h.ended(cmd.Run(), args, out.String(), errb.String())
}

// ended is the result of a process that ended with err.
func (h *harness) ended(err error, args []string, stdout, stderr string) result {
	h.t.Helper()
	r := result{args: args, stdout: stdout, stderr: stderr}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		h.t.Fatalf("leadsync %v: %v", args, err)
	}
	noStackTrace(h.t, r)
	return r
}

// noStackTrace fails the test when a Go panic or stack trace reached the user.
func noStackTrace(t *testing.T, r result) {
	t.Helper()
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "goroutine ") || strings.Contains(s, "panic:") {
			t.Fatalf("a stack trace reached the user:\n%s", r)
		}
	}
}

// applyEvent is one line of apply --json (the fields the tests read).
type applyEvent struct {
	MessageType string `json:"message_type"`
	Call        struct {
		Kind    string `json:"kind"`
		Address string `json:"address"`
		Person  string `json:"person"`
		Page    string `json:"page_name"`
		// SubSearch names a split's sub-search (its added filters).
		SubSearch string `json:"sub_search"`
	} `json:"call"`
	Error     string `json:"error"`
	ErrorKind string `json:"error_kind"`
	Hint      string `json:"hint"`
	Status    int    `json:"status"`
	Reason    string `json:"reason"`
	// summary
	Calls          int `json:"calls"`
	CallsMax       int `json:"calls_max"`
	Credits        int `json:"credits"`
	CreditsUnknown int `json:"credits_unknown"`
	CreditsMax     int `json:"credits_max"`
	// Kept are the results kept in the rescue file KeptIn.
	Kept      []struct{ Kind, Address string } `json:"kept"`
	KeptIn    string                           `json:"kept_in"`
	Succeeded int                              `json:"succeeded"`
	Failed    int                              `json:"failed"`
	Stopped   string                           `json:"stopped"`
	Failures  []struct {
		Address    string `json:"address"`
		Kind       string `json:"kind"`
		Unrecorded bool   `json:"unrecorded"`
	} `json:"failures"`
}

// key identifies a call across runs: searches and profiles by address,
// enrichments by person.
func (e applyEvent) key() string {
	if e.Call.Kind == "enrich" {
		return "enrich " + e.Call.Page
	}
	return e.Call.Kind + " " + e.Call.Address
}

// applyStream is an apply --json running in a process of its own: its
// events as they come, so that a test can act mid-run (kill it, change
// the sandbox, start another command).
type applyStream struct {
	h    *harness
	cmd  *exec.Cmd
	args []string
	// events delivers each line of stdout that is an event; it is closed
	// when stdout ends. A test reads it to the end before wait.
	events <-chan applyEvent
	stdout strings.Builder // every line; read only after events is closed
	stderr bytes.Buffer
}

// startApply starts apply --auto-approve --json with extra arguments.
func (h *harness) startApply(extra ...string) *applyStream {
	h.t.Helper()
	s := &applyStream{h: h, args: append([]string{"apply", "--auto-approve", "--json"}, extra...)}
	s.cmd = h.command(s.args...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	s.readEvents(stdout)
	return s
}

// readEvents reads stdout in the background: every line into s.stdout,
// each that is an event onto s.events, closed when stdout ends.
func (s *applyStream) readEvents(stdout io.Reader) {
	ch := make(chan applyEvent, 1024)
	s.events = ch
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			s.stdout.Write(sc.Bytes())
			s.stdout.WriteByte('\n')
			var ev applyEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				ch <- ev
			}
		}
	}()
}

// pid is the process ID of the apply.
func (s *applyStream) pid() int { return s.cmd.Process.Pid }

// kill sends the apply SIGKILL: a crash, a power cut, an OOM kill.
func (s *applyStream) kill() { _ = s.cmd.Process.Signal(syscall.SIGKILL) }

// waitFor reads events until one of type typ; the stream ending first
// fails the test.
func (s *applyStream) waitFor(typ string) {
	s.h.t.Helper()
	for ev := range s.events {
		if ev.MessageType == typ {
			return
		}
	}
	s.h.t.Fatalf("no %s event", typ)
}

// wait reads what is left of the events, waits for the process to end and
// returns what it did (a kill is exit code -1).
func (s *applyStream) wait() result {
	s.h.t.Helper()
	for range s.events {
	}
	err := s.cmd.Wait()
	return s.h.ended(err, s.args, s.stdout.String(), s.stderr.String())
}

// applyRun is an apply --json run, parsed.
type applyRun struct {
	result
	events   []applyEvent
	started  map[string]int // call key -> call_start count
	done     map[string]bool
	errors   []applyEvent
	summary  *applyEvent
	stopping []string
	pid      int
}

// applyJSON runs apply --auto-approve --json to the end; each parsed event
// is passed to during (if not nil) as it arrives, so that a test can
// change the sandbox mid-run.
func (h *harness) applyJSON(during func(applyEvent), extra ...string) *applyRun {
	h.t.Helper()
	s := h.startApply(extra...)
	ar := &applyRun{started: map[string]int{}, done: map[string]bool{}, pid: s.pid()}
	for ev := range s.events {
		ar.events = append(ar.events, ev)
		switch ev.MessageType {
		case "call_start":
			ar.started[ev.key()]++
		case "call_done":
			ar.done[ev.key()] = true
		case "call_error":
			ar.errors = append(ar.errors, ev)
		case "stopping":
			ar.stopping = append(ar.stopping, ev.Reason)
		case "summary":
			e := ev
			ar.summary = &e
		}
		if during != nil {
			during(ev)
		}
	}
	ar.result = s.wait()
	return ar
}

// applyKilled starts apply --json and kills it with SIGKILL after n calls
// completed.
func (h *harness) applyKilled(n int) {
	h.t.Helper()
	s := h.startApply()
	done := 0
	for ev := range s.events {
		if ev.MessageType == "call_done" {
			if done++; done == n {
				s.kill()
			}
		}
	}
	s.wait()
	if done < n {
		h.t.Fatalf("apply ended after %d calls, before the kill", done)
	}
}

// ---- What a run left

// statePath is the local state (the SQLite database) of the harness's
// folder.
func (h *harness) statePath() string { return filepath.Join(h.dir, ".leadsync", "state.db") }

// loadState reads a project's state as leadsync would, replaying its
// recorded calls: the local database .leadsync/state.db under dir or, when schema
// is set, that schema of the database at connStr.
func loadState(dir, connStr, schema string) (*state.State, error) {
	if schema == "" {
		store := local.NewStore(filepath.Join(dir, ".leadsync", "state.db"))
		defer store.Close()
		return store.Load()
	}
	b, err := pg.New(pg.Options{ConnStr: connStr, Schema: schema})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	return b.Load()
}

// loadState loads the harness's state (the local file, or the pg schema of
// usePG) and fails the test if it does not load.
func (h *harness) loadState() *state.State {
	h.t.Helper()
	st, err := loadState(h.dir, h.pgConnStr, h.pgSchema)
	if err != nil {
		h.t.Fatalf("state does not load: %v", err)
	}
	return st
}

// checkDoneInState checks that every call the run reported done is in state.
func (h *harness) checkDoneInState(ar *applyRun) {
	h.t.Helper()
	st := h.loadState()
	byPage := map[string]*state.Person{}
	for _, p := range st.People {
		byPage[p.Lead.PageName] = p
	}
	for _, ev := range ar.events {
		if ev.MessageType != "call_done" {
			continue
		}
		switch ev.Call.Kind {
		case "search":
			if st.Searches[ev.Call.Address] == nil {
				h.t.Errorf("%s completed but is not in state", ev.Call.Address)
			}
		case "profile":
			if st.Profiles[ev.Call.Address] == nil {
				h.t.Errorf("%s completed but is not in state", ev.Call.Address)
			}
		case "enrich":
			p := byPage[ev.Call.Page]
			if p == nil || p.Enrichment == nil {
				h.t.Errorf("enrichment of %s completed but is not in state", ev.Call.Page)
			}
		}
	}
}

// enrichedTwice lists the page names the sandbox charged more than once.
func (h *harness) enrichedTwice() []string {
	var twice []string
	for page, n := range h.srv.Stats().Enriched {
		if n > 1 {
			twice = append(twice, page)
		}
	}
	sort.Strings(twice)
	return twice
}

// lockID is the ID of the lock a run left on the local state ("" when
// there is no lock file); an unreadable lock fails the test.
func (h *harness) lockID() string {
	h.t.Helper()
	b, err := os.ReadFile(h.statePath() + ".lock")
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		h.t.Fatal(err)
	}
	var info struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &info); err != nil || info.ID == "" {
		h.t.Fatalf("unreadable lock: %v\n%s", err, b)
	}
	return info.ID
}

// lockLeft is the ID of the lock a killed run left; none fails the test.
func (h *harness) lockLeft() string {
	h.t.Helper()
	id := h.lockID()
	if id == "" {
		h.t.Fatal("no lock after a killed apply")
	}
	return id
}

// ---- PostgreSQL

// pgConnStr returns the test database's connection string. Without
// LEADSYNC_TEST_PG the test skips, saying how to run it; under CI
// (CI=true) it fails instead, so that a missing server is never a pass.
// Its sessions commit without waiting for the disk (testenv.LazyCommits):
// the tests that stop or kill a server run clusters of their own.
func pgConnStr(t *testing.T) string {
	t.Helper()
	cs := os.Getenv("LEADSYNC_TEST_PG")
	if cs == "" {
		const how = "needs PostgreSQL: run `source .ci/pg-start` (it sets LEADSYNC_TEST_PG) and go test again"
		testenv.Skip(t, "LEADSYNC_TEST_PG is not set: "+how)
	}
	return testenv.LazyCommits(cs)
}

// schemaName is a new schema name, prefix and random hex, so that tests
// and scripts running at once never share one.
func schemaName(prefix string) string {
	var b [6]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// migrateSchema creates schema name at the current version, as a
// command's first write would: taking the workspace's lock migrates it.
func migrateSchema(cs, name string) error {
	b, err := pg.New(pg.Options{ConnStr: cs, Schema: name})
	if err != nil {
		return err
	}
	defer b.Close()
	l, err := b.Lock("migrate")
	if err != nil {
		return err
	}
	return l.Unlock()
}

// freshSchema returns a schema name of its own for one test, dropped at
// its end.
func freshSchema(t *testing.T, cs string) string {
	t.Helper()
	name := schemaName("e2e_")
	t.Cleanup(func() {
		if err := testenv.DropSchema(cs, name); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return name
}

// usePG puts the harness's state in a fresh schema of the test database
// (skipping the test without one, see pgConnStr): LEADSYNC_PG_CONN_STR is
// set, and loadState reads that schema. It returns the schema, for a
// configuration's backend block; one without a block reaches it through
// testBackendEnv.
func (h *harness) usePG() string {
	h.t.Helper()
	h.pgConnStr = pgConnStr(h.t)
	h.pgSchema = freshSchema(h.t, h.pgConnStr)
	h.env = append(h.env, "LEADSYNC_PG_CONN_STR="+h.pgConnStr)
	return h.pgSchema
}

// ---- Fixtures

// faultConfig has 3 searches of up to 6 results, one profile read and an
// enrichment of everyone found: about 22 calls, small enough that every row
// of the fault matrix runs in a second or two, large enough that a share of
// 5 or 10 % of calls hits several of them. The timeout (%s) is short in the
// row where answers are slow, so that they time out quickly.
// jsonState makes cfg keep its local state in the JSON state file of
// earlier versions (leadsync { state_path }): the tests of the rescue file
// use it, as a full disk stops that file's every write, while the SQLite
// database may go on writing into the space its write-ahead log holds.
func jsonState(cfg string) string {
	return "leadsync {\n  state_path = \".leadsync/state.json\"\n}\n" + cfg
}

const faultConfig = `
variable "sandbox_url" {
  type = string
}

api {
  base_url    = var.sandbox_url
  rate_limit  = 20
  parallelism = 3
  timeout     = "%s"
}

search "eng" {
  for_each    = toset(["Berlin", "Hamburg", "Köln"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 6
}

profile "founder" {
  page_name = "Max_Mustermann"
}

enrich "all" {
  from = [search.eng, profile.founder]
}

export "out" {
  path = "out/leads.xlsx"
  sheet "All" {
    from = [search.eng, profile.founder]
  }
}
`

// writeFile writes content to path, making its folders.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoFile is a path of the repository (its root when elem is empty): the
// tests run in e2e/, one folder below it.
func repoFile(elem ...string) string {
	return filepath.Join(append([]string{".."}, elem...)...)
}

// splitSets returns the network IDs of the people a split search's record
// holds and of the sandbox's members matching its request.
func splitSets(st *state.State, rec *state.Search, ms []*sandbox.Member) (found, truth map[string]bool, err error) {
	truth = make(map[string]bool, len(ms))
	for _, m := range ms {
		truth[m.NetworkID] = true
	}
	found = make(map[string]bool, len(rec.LeadIDs))
	for _, id := range rec.LeadIDs {
		p := st.People[id]
		if p == nil || p.Lead.NetworkID == "" {
			return nil, nil, fmt.Errorf("%s: person %q has no network ID in state", rec.Address, id)
		}
		found[p.Lead.NetworkID] = true
	}
	return found, truth, nil
}

// setDiff returns the keys of a not in b, sorted.
func setDiff(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// sample joins the first ten of ids, with "..." when there are more.
func sample(ids []string) string {
	if len(ids) > 10 {
		return strings.Join(ids[:10], " ") + " ..."
	}
	return strings.Join(ids, " ")
}
