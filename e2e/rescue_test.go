package e2e

// A paid answer survives a failed write: PostgreSQL restarted, stopped or
// its sessions ended, and a state folder on a full file system, each at
// seeded moments of an apply. For each, the credits the sandbox charged
// are the credits every output shows (apply --json, show, show --json,
// the Summary sheet), and the next apply makes none of the calls that
// were answered again.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/xuri/excelize/v2"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/testenv"
)

// faultRetry shortens the retries of a failed write of the state (about
// a minute in all, run.WriteRetryDelays) to about 3 s: long enough for a
// database restart, short enough that a database stopped until the apply
// ends sends its answers to the rescue file quickly.
const faultRetry = "100ms,200ms,400ms,800ms,1600ms"

// faultRetryStuck is faultRetry's five tries ten times sooner (0.3 s in
// all), for a fault that lasts until the apply ends (a database stopped
// till the end, a full state folder): no wait sees it end, and with
// faultRetry each answer of such a run waited 3 s for nothing before
// going to the rescue file (14 s a run).
const faultRetryStuck = "10ms,20ms,40ms,80ms,160ms"

// faultSeed seeds the moments of the faults; FAULT_SEED=n tries others.
func faultSeed(t *testing.T) uint64 {
	if s := os.Getenv("FAULT_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("FAULT_SEED=%q: %v", s, err)
		}
		return n
	}
	return 21
}

// moments are n distinct seeded moments of a run of faultConfig: the
// number of completed calls (of about 22) after which the fault strikes.
func moments(seed uint64, n int) []int {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	seen := map[int]bool{}
	var out []int
	for len(out) < n {
		k := 1 + rng.IntN(16)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}

// figures are what a faulted run and the one after it showed, against
// what the sandbox counted: the report of a fault test.
type figures struct {
	fault          string
	moment         int
	charged        int // credits the sandbox charged, both runs
	requests       int // requests of the monthly quota the sandbox counted
	applyCredits   int // apply --json of the faulted run
	applyUnknown   int
	kept           int // results the faulted run kept in its rescue file
	retries        int // writes the faulted run tried again
	showAfterFault int // show --json once the fault is over
	apply2Credits  int
	showText       string // show's "N credits spent in all runs"
	showJSON       int    // show --json at the end
	sheet          string // the Summary sheet's "Credits spent, all runs"
	repeated       int    // calls the sandbox saw twice for one search, profile or person
}

func (f figures) String() string {
	return fmt.Sprintf("%-22s after %2d calls: sandbox charged %d credits (%d requests); apply --json %d (+%d unknown; %d writes tried again, %d results kept), "+
		"show --json after the fault %d; next apply %d; show %q, show --json %d, Summary sheet %s; calls repeated: %d",
		f.fault, f.moment, f.charged, f.requests, f.applyCredits, f.applyUnknown, f.retries, f.kept, f.showAfterFault, f.apply2Credits,
		f.showText, f.showJSON, f.sheet, f.repeated)
}

// watchedApply is apply --json whose stderr is read line by line as it
// comes (the notes of writes tried again).
type watchedApply struct {
	*applyStream
	notes <-chan string
	// read is closed once every line of stderr is read: Wait closes the
	// pipe, and lines not read by then were lost (a loaded machine once
	// lost the answer an apply printed last).
	read <-chan struct{}
}

// wait is applyStream's, once stderr is read to its end.
func (w *watchedApply) wait() result {
	for range w.events {
	}
	<-w.read
	return w.applyStream.wait()
}

// startWatchedApply starts apply --auto-approve --json (with extra
// arguments: a saved plan) with its stderr piped: each line goes to notes
// (dropped when nobody reads) and to the stream's stderr.
func (h *harness) startWatchedApply(extra ...string) *watchedApply {
	h.t.Helper()
	s := &applyStream{h: h, args: append([]string{"apply", "--auto-approve", "--json"}, extra...)}
	s.cmd = h.command(s.args...)
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		h.t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	notes := make(chan string, 64)
	read := make(chan struct{})
	var mu sync.Mutex
	go func() {
		defer close(read)
		defer close(notes)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			s.stderr.WriteString(sc.Text() + "\n")
			mu.Unlock()
			select {
			case notes <- sc.Text():
			default:
			}
		}
	}()
	s.readEvents(stdout)
	return &watchedApply{applyStream: s, notes: notes, read: read}
}

// savedPlan saves the plan of the harness's folder (as leads.plan) while
// the gate lets reads through (the billing call), then arms it: an apply
// of that plan makes no billing call, and every read it makes is held.
func (h *harness) savedPlan(gate *answerGate) string {
	h.t.Helper()
	if r := h.run("plan", "--out", "leads.plan"); r.code != 0 {
		h.t.Fatalf("plan --out:\n%s", r)
	}
	gate.arm()
	return "leads.plan"
}

// runFaulted applies a saved plan with --json, the sandbox's reads held
// (gate) once the searches and at-3 reads are answered: `at` calls done.
// Then, with a read in flight and its answer waiting, it calls fault
// (with the watched apply, to wait for its notes; fault lets the answers
// come with gate.open, and they come back to the fault). It returns the
// run as applyJSON does.
func (h *harness) runFaulted(at int, gate *answerGate, fault func(w *watchedApply)) *applyRun {
	h.t.Helper()
	defer gate.open()
	plan := h.savedPlan(gate)
	gate.armAfter(max(0, at-3)) // the 3 searches are no reads
	w := h.startWatchedApply(plan)
	struck := make(chan bool)
	go func() {
		held := gate.holding()
		if held {
			fault(w)
		}
		gate.open()
		struck <- held
	}()
	ar := &applyRun{started: map[string]int{}, done: map[string]bool{}, pid: w.pid()}
	for ev := range w.events {
		ar.events = append(ar.events, ev)
		switch ev.MessageType {
		case "call_start":
			ar.started[ev.key()]++
		case "call_done":
			ar.done[ev.key()] = true
		case "call_error":
			ar.errors = append(ar.errors, ev)
		case "summary":
			e := ev
			ar.summary = &e
		}
	}
	ar.result = w.wait()
	if !<-struck {
		h.t.Fatalf("no read was in flight after %d calls: the fault never struck\n%s", at, ar.result)
	}
	return ar
}

// showJSON is what show --json says of the credits.
func (h *harness) showCredits() (spent, unknown int, out string) {
	h.t.Helper()
	r := h.run("show", "--json")
	if r.code != 0 {
		h.t.Fatalf("show --json:\n%s", r)
	}
	var sum struct {
		Usage struct {
			CreditsSpent   int `json:"credits_spent"`
			CreditsUnknown int `json:"credits_unknown"`
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
		h.t.Fatalf("show --json: %v\n%s", err, r)
	}
	return sum.Usage.CreditsSpent, sum.Usage.CreditsUnknown, r.output()
}

// sheetCredits is the Summary sheet's "Credits spent, all runs" of the
// workbook faultConfig writes.
func (h *harness) sheetCredits() string {
	h.t.Helper()
	x, err := excelize.OpenFile(filepath.Join(h.dir, "out", "leads.xlsx"))
	if err != nil {
		h.t.Fatalf("the workbook: %v", err)
	}
	defer x.Close()
	for _, name := range x.GetSheetList() {
		rows, _ := x.GetRows(name)
		for _, row := range rows {
			if len(row) > 1 && row[0] == "Credits spent, all runs" {
				return row[1]
			}
		}
	}
	h.t.Fatal("the workbook has no \"Credits spent, all runs\"")
	return ""
}

// repeatedCalls counts the calls the sandbox saw more than once for one
// search, profile read or person of faultConfig (3 searches, 1 profile).
func (h *harness) repeatedCalls() int {
	st := h.srv.Stats()
	n := max(0, st.ByOp[sandbox.OpSearch]-3) + max(0, st.ByOp[sandbox.OpPage]-1)
	for _, k := range st.Enriched {
		n += k - 1
	}
	return n
}

// rescueFiles lists the rescue files in the harness's cache directory.
func (h *harness) rescueFiles() []string {
	files, _ := filepath.Glob(filepath.Join(h.cache, "leadsync", "rescue", "*.rescue"))
	return files
}

// checkNothingLost checks a faulted run (ar) once its fault is over: the
// credits the sandbox charged are those apply --json and show report;
// then the next apply repeats nothing answered and every figure agrees
// with the sandbox. It returns the figures.
func checkNothingLost(t *testing.T, h *harness, fault string, at int, ar *applyRun) figures {
	t.Helper()
	f := figures{fault: fault, moment: at}
	if ar.summary == nil {
		t.Fatalf("the faulted run printed no summary:\n%s", ar.result)
	}
	noStackTrace(t, ar.result)
	charged1 := h.srv.Stats().CreditsSpent
	f.applyCredits, f.applyUnknown, f.kept = ar.summary.Credits, ar.summary.CreditsUnknown, len(ar.summary.Kept)
	f.retries = strings.Count(ar.stderr, "trying again in")
	if f.applyCredits != charged1 || f.applyUnknown != 0 {
		t.Errorf("apply --json reports %d credits (%d unknown); the sandbox charged %d", f.applyCredits, f.applyUnknown, charged1)
	}
	for _, fl := range ar.summary.Failures {
		if fl.Unrecorded {
			t.Errorf("%s %s was answered and is neither recorded nor kept:\n%s", fl.Kind, fl.Address, ar.result)
		}
	}
	var unknown int
	f.showAfterFault, unknown, _ = h.showCredits()
	if f.showAfterFault != charged1 || unknown != 0 {
		t.Errorf("show --json after the fault: %d credits spent (%d unknown); the sandbox charged %d", f.showAfterFault, unknown, charged1)
	}

	ar2 := h.applyJSON(nil)
	if ar2.code != 0 || ar2.summary == nil {
		t.Fatalf("the apply after the fault:\n%s", ar2.result)
	}
	st := h.srv.Stats()
	f.charged, f.requests = st.CreditsSpent, st.RequestsSpent
	f.apply2Credits = ar2.summary.Credits
	if f.apply2Credits != f.charged-charged1 {
		t.Errorf("the next apply reports %d credits; the sandbox charged %d", f.apply2Credits, f.charged-charged1)
	}
	for k := range ar2.started {
		if ar.done[k] {
			t.Errorf("%s was answered in the faulted run and called again", k)
		}
	}
	if f.repeated = h.repeatedCalls(); f.repeated != 0 {
		t.Errorf("the sandbox saw %d calls repeated (searches %d of 3, profiles %d of 1, people enriched twice %v)",
			f.repeated, st.ByOp[sandbox.OpSearch], st.ByOp[sandbox.OpPage], h.enrichedTwice())
	}
	var text string
	f.showJSON, unknown, text = h.showCredits()
	if f.showJSON != f.charged || unknown != 0 {
		t.Errorf("show --json: %d credits spent (%d unknown); the sandbox charged %d", f.showJSON, unknown, f.charged)
	}
	r := h.run("show")
	f.showText = fmt.Sprintf("%d credits spent in all runs", f.charged)
	if !strings.Contains(r.stdout, f.showText) {
		t.Errorf("show does not say %q:\n%s\n(show --json: %s)", f.showText, r, text)
		f.showText = "(differs)"
	}
	if f.sheet = h.sheetCredits(); f.sheet != strconv.Itoa(f.charged) {
		t.Errorf("the Summary sheet says %s credits spent in all runs; the sandbox charged %d", f.sheet, f.charged)
	}
	if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
		t.Errorf("work left after the apply that followed the fault:\n%s", r)
	}
	if left := h.rescueFiles(); len(left) != 0 {
		t.Errorf("rescue files left: %v", left)
	}
	return f
}

// ---- PostgreSQL restarted, stopped, its sessions ended

// TestPGFaultsLoseNothing runs apply against a PostgreSQL cluster of its
// own, and at seeded moments restarts it, stops it (until the apply
// tries a write again, or until the apply ends) and starts it again, or
// ends its sessions (pg_terminate_backend). What came back is recorded
// late (the write is tried again) or kept in the rescue file and folded
// in by the next command: see checkNothingLost. Each kind of fault has a
// cluster of its own, its moments one after the other on it; the kinds
// run side by side (their runs mostly wait for the retries of a write).
func TestPGFaultsLoseNothing(t *testing.T) {
	testenv.SkipIfShort(t, "restarts a PostgreSQL cluster of its own")
	t.Parallel()
	seed := faultSeed(t)
	waitNote := func(w *watchedApply) {
		// Down until the apply says it tries a write again (or ends).
		for note := range w.notes {
			if strings.Contains(note, "trying again") {
				return
			}
		}
	}
	faults := []struct {
		name    string
		moments int
		strike  func(t *testing.T, c *pgCluster, w *watchedApply, gate *answerGate)
		after   func(t *testing.T, c *pgCluster) // once the faulted apply ended
		retry   string                           // the waits before a write is tried again
	}{
		{name: "restarted", moments: 3, strike: func(t *testing.T, c *pgCluster, _ *watchedApply, _ *answerGate) { c.ctl(t, "restart", "-m", "fast") }},
		{name: "stopped, then started", moments: 2, strike: func(t *testing.T, c *pgCluster, w *watchedApply, gate *answerGate) {
			c.ctl(t, "stop", "-m", "fast")
			gate.open() // the answers come back to a stopped server
			waitNote(w)
			c.ctl(t, "start")
		}},
		{name: "stopped till the end", moments: 2,
			strike: func(t *testing.T, c *pgCluster, _ *watchedApply, _ *answerGate) { c.ctl(t, "stop", "-m", "fast") },
			after:  func(t *testing.T, c *pgCluster) { c.ctl(t, "start") }, retry: faultRetryStuck},
		{name: "sessions terminated", moments: 3, strike: func(t *testing.T, c *pgCluster, _ *watchedApply, _ *answerGate) { c.terminate(t) }},
	}
	var mu sync.Mutex
	var report []figures
	t.Cleanup(func() {
		for _, f := range report {
			t.Log(f)
		}
	})
	var names []string
	for _, fault := range faults {
		names = append(names, fault.name)
	}
	together(t, names, func(t *testing.T, i int) {
		fault := faults[i]
		retry := cmp.Or(fault.retry, faultRetry)
		c := ownPG(t)
		for _, at := range moments(seed+uint64(i), fault.moments) {
			t.Run(fmt.Sprintf("after %d calls", at), func(t *testing.T) {
				opts := sandbox.Options{Seed: 21}
				gate := holdReads(&opts)
				h := newHarness(t, opts, fmt.Sprintf(faultConfig, "60s"))
				h.pgConnStr, h.pgSchema = c.connStr, schemaName("fault_")
				h.env = append(h.env, "LEADSYNC_PG_CONN_STR="+c.connStr, testBackendEnv+"="+h.pgSchema, testWriteRetryEnv+"="+retry)
				ar := h.runFaulted(at, gate, func(w *watchedApply) { fault.strike(t, c, w, gate) })
				if fault.after != nil {
					fault.after(t, c)
				}
				c.waitReady(t)
				f := checkNothingLost(t, h, fault.name, at, ar)
				mu.Lock()
				report = append(report, f)
				mu.Unlock()
				if t.Failed() {
					t.Logf("the faulted run:\n%s", ar.result)
				}
			})
		}
	})
}

// TestClaimsSurvivePGRestart: PostgreSQL restarts while an apply's reads
// are in flight (the pg backend, an enrich block: the apply holds claims
// across the workspaces). The claims' holder connects again, as the
// state's writes do, and the apply goes on to its end: no halt, every
// planned call made, nothing left for the next apply.
func TestClaimsSurvivePGRestart(t *testing.T) {
	testenv.SkipIfShort(t, "restarts a PostgreSQL cluster of its own")
	t.Parallel()
	c := ownPG(t)
	for _, at := range moments(faultSeed(t)+100, 2) {
		t.Run(fmt.Sprintf("after %d calls", at), func(t *testing.T) {
			opts := sandbox.Options{Seed: 21}
			gate := holdReads(&opts)
			h := newHarness(t, opts, fmt.Sprintf(faultConfig, "60s"))
			h.pgConnStr, h.pgSchema = c.connStr, schemaName("restart_")
			h.env = append(h.env, "LEADSYNC_PG_CONN_STR="+c.connStr, testBackendEnv+"="+h.pgSchema, testWriteRetryEnv+"="+faultRetry)
			ar := h.runFaulted(at, gate, func(*watchedApply) { c.ctl(t, "restart", "-m", "fast") })
			c.waitReady(t)
			if ar.result.code != 0 || strings.Contains(ar.result.stdout+ar.result.stderr, "claims of the enrichments") {
				t.Errorf("the apply did not go on after PostgreSQL restarted:\n%s", ar.result)
			}
			if r := h.run("plan", "--detailed-exitcode"); r.code != 0 {
				t.Errorf("work left after the apply PostgreSQL restarted under:\n%s", r)
			}
		})
	}
}

// pgCluster is a PostgreSQL cluster a test starts, restarts and stops:
// never the shared server of LEADSYNC_TEST_PG.
type pgCluster struct {
	bindir, dir, port string
	runas             []string // runuser -u postgres -- when root
	connStr           string
}

// ownPG starts a cluster in a folder and on a port of its own, with the
// binaries .ci/pg-start finds, and stops it when the test ends. Without
// them the test skips, saying so; under CI=true it fails.
func ownPG(t *testing.T) *pgCluster {
	t.Helper()
	c := &pgCluster{}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			c.bindir = d
		}
	}
	if c.bindir == "" {
		if p, err := exec.LookPath("initdb"); err == nil {
			c.bindir = filepath.Dir(p)
		}
	}
	if c.bindir == "" {
		const why = "needs the PostgreSQL server binaries (initdb, pg_ctl; Debian: apt-get install postgresql) to run a cluster it may restart"
		testenv.Skip(t, why)
	}
	dir, err := os.MkdirTemp("", "leadsync-faultpg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c.dir = dir
	owner := "postgres"
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: as .ci/pg-start does, run it
		// as the user postgres.
		if out, err := addPostgresUser(); err != nil {
			testenv.Skipf(t, "running as root without a user postgres, and useradd failed: %v %s", err, out)
		}
		if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
			t.Fatalf("chown: %v %s", err, out)
		}
		c.runas = []string{"runuser", "-u", "postgres", "--"}
	} else {
		u, err := user.Current()
		if err != nil {
			t.Fatal(err)
		}
		owner = u.Username
	}
	c.port = freePort(t)
	template := clusterTemplate(t, c, owner)
	if out, err := exec.Command("cp", "-a", template, filepath.Join(dir, "data")).CombinedOutput(); err != nil {
		t.Fatalf("copying the cluster template: %v %s", err, out)
	}
	c.ctl(t, "start")
	t.Cleanup(func() { c.quiet("stop", "-m", "immediate") })
	c.connStr = fmt.Sprintf("postgres://%s@127.0.0.1:%s/leadsync_test?sslmode=disable", owner, c.port)
	return c
}

// pgTemplate is the data folder of a cluster never started, with the
// database leadsync_test, made once in a run of this package (the first
// ownPG makes it) and copied by every ownPG: one initdb instead of one a
// cluster (0.7-0.8 s CPU each, idle), and no createdb.
var pgTemplate struct {
	sync.Mutex
	dir    string // the parent folder, removed by removePGTemplate
	data   string // the data folder, once made
	failed string // why making it failed, once
}

// clusterTemplate returns the template's data folder, making it with c's
// binaries and owner the first time.
func clusterTemplate(t *testing.T, c *pgCluster, owner string) string {
	t.Helper()
	pgTemplate.Lock()
	defer pgTemplate.Unlock()
	if pgTemplate.data == "" && pgTemplate.failed == "" {
		pgTemplate.data, pgTemplate.failed = makeClusterTemplate(c, owner)
	}
	if pgTemplate.failed != "" {
		t.Fatal(pgTemplate.failed)
	}
	return pgTemplate.data
}

// makeClusterTemplate runs initdb and creates the database leadsync_test
// in single-user mode (no server, no port), in a folder owned as c's.
// --no-sync: the clusters run with fsync=off, so nothing they test needs
// their files on the disk. initdb took 25.9 s with its flush of 39 MB at
// load average 28, 6.6 s without it at 31.
func makeClusterTemplate(c *pgCluster, owner string) (data, failed string) {
	dir, err := os.MkdirTemp("", "leadsync-pgtemplate-")
	if err != nil {
		return "", err.Error()
	}
	pgTemplate.dir = dir
	if len(c.runas) > 0 {
		if out, err := exec.Command("chown", "postgres", dir).CombinedOutput(); err != nil {
			return "", fmt.Sprintf("chown: %v %s", err, out)
		}
	}
	data = filepath.Join(dir, "data")
	if out, err := c.command("initdb", "--no-sync", "-D", data, "-U", owner, "--auth=trust", "-E", "UTF8", "--no-locale").CombinedOutput(); err != nil {
		return "", fmt.Sprintf("initdb: %v\n%s", err, out)
	}
	single := c.command("postgres", "--single", "-D", data, "-c", "fsync=off", "postgres")
	single.Stdin = strings.NewReader("CREATE DATABASE leadsync_test;\n")
	if out, err := single.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("postgres --single (CREATE DATABASE): %v\n%s", err, out)
	}
	return data, ""
}

// removePGTemplate removes the template of the clusters, if one was made
// (at the end of the package's run).
func removePGTemplate() {
	pgTemplate.Lock()
	defer pgTemplate.Unlock()
	if pgTemplate.dir != "" {
		os.RemoveAll(pgTemplate.dir)
	}
}

// useraddMu makes one cluster at a time add the user postgres.
var useraddMu sync.Mutex

// addPostgresUser adds the system user postgres unless it exists: one
// cluster at a time, or the clusters of parallel tests would add it twice.
func addPostgresUser() ([]byte, error) {
	useraddMu.Lock()
	defer useraddMu.Unlock()
	if _, err := user.Lookup("postgres"); err == nil {
		return nil, nil
	}
	return exec.Command("useradd", "--system", "--no-create-home", "postgres").CombinedOutput()
}

// portsGiven are the ports freePort gave in this process.
var portsGiven sync.Map

// freePort is a TCP port of 127.0.0.1 free a moment ago, below the
// kernel's ephemeral range (32768 and up on Linux) and given once: a port
// the kernel gave to listen on :0 and took back went to another test's
// connection as its local port while clusters started together, and
// PostgreSQL could not bind it ("Address already in use").
func freePort(t *testing.T) string {
	for range 1000 {
		port := 20000 + rand.IntN(12000)
		if _, given := portsGiven.LoadOrStore(port, true); given {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue
		}
		l.Close()
		return strconv.Itoa(port)
	}
	t.Fatal("no free port of 127.0.0.1 between 20000 and 32000")
	return ""
}

// command is one of the cluster's programs, as its owner.
func (c *pgCluster) command(prog string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, c.runas...), filepath.Join(c.bindir, prog)), args...)
	return exec.Command(argv[0], argv[1:]...)
}

// ctl runs pg_ctl on the cluster (start waits until it accepts
// connections).
func (c *pgCluster) ctl(t *testing.T, action string, args ...string) {
	t.Helper()
	argv := []string{"-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60"}
	if action == "start" || action == "restart" {
		argv = append(argv, "-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %s -k %s -c fsync=off -c max_connections=100", c.port, c.dir))
	}
	argv = append(append(argv, action), args...)
	if out, err := c.command("pg_ctl", argv...).CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		t.Fatalf("pg_ctl %s: %v\n%s\n%s", action, err, out, log)
	}
}

// quiet runs pg_ctl and ignores what happens (cleanup).
func (c *pgCluster) quiet(action string, args ...string) {
	argv := append([]string{"-D", filepath.Join(c.dir, "data"), action}, args...)
	c.command("pg_ctl", argv...).Run()
}

// waitReady starts the cluster if it is stopped, and waits until it
// accepts connections.
func (c *pgCluster) waitReady(t *testing.T) {
	t.Helper()
	if err := c.command("pg_ctl", "-D", filepath.Join(c.dir, "data"), "status").Run(); err != nil {
		c.ctl(t, "start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		conn, err := pgx.Connect(ctx, c.connStr)
		if err == nil {
			conn.Close(ctx)
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the cluster does not accept connections: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// terminate ends every other session of the test database
// (pg_terminate_backend), the apply's lock and recording among them.
func (c *pgCluster) terminate(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.connStr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE pid <> pg_backend_pid() AND datname = current_database()`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Log("no session to terminate at that moment")
	}
}

// ---- A state folder on a full file system

// TestFullStateFolderLosesNothing puts the state folder on a tiny file
// system (tmpfs) and fills it at seeded moments of an apply: what came
// back is kept in the rescue file of the cache directory (another file
// system), and nothing is lost or paid twice (checkNothingLost). Without
// mounting (not root), internal/run's TestApplyOnAFullDiskLosesNothing
// does the same with an injected write error. The moments run side by
// side, each in a folder of its own.
func TestFullStateFolderLosesNothing(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes on a small file system")
	t.Parallel()
	var mu sync.Mutex
	var report []figures
	ats := moments(faultSeed(t), 3)
	var names []string
	for _, at := range ats {
		names = append(names, fmt.Sprintf("full after %d calls", at))
	}
	together(t, names, func(t *testing.T, i int) {
		at := ats[i]
		opts := sandbox.Options{Seed: 21}
		gate := holdReads(&opts)
		h := newHarness(t, opts, fmt.Sprintf(faultConfig, "60s"))
		h.env = append(h.env, testWriteRetryEnv+"="+faultRetryStuck)
		sdir := filepath.Join(h.dir, ".leadsync")
		testenv.MountTmpfs(t, sdir, stateFS)
		var ballast string
		ar := h.runFaulted(at, gate, func(*watchedApply) { ballast = fill(t, sdir) })
		// The full disk stops the run where it is first written: a
		// result kept in the rescue file, the next call not sent, or
		// the budget's ledger (in the same folder) not written, so no
		// more calls made.
		// Filled after the database's first checkpoint, the writes may
		// all find room: the log's frames written again from its start,
		// the ledger's lines in its last page (a file's last page is
		// not the ballast's to fill). Such a run (exit 0, no write
		// failed) must lose nothing all the same; one filled before it
		// always meets the full disk.
		stopped := strings.Contains(ar.summary.Stopped, "not sent") || strings.Contains(ar.summary.Stopped, "no more calls are made")
		roomy := at > firstCheckpoint && ar.code == 0 && !strings.Contains(ar.stderr, "trying again in")
		if !roomy && (ar.code != 1 || len(ar.summary.Kept) == 0 && !stopped) {
			t.Errorf("want exit 1, and results kept or the next call not sent:\n%s", ar.result)
		}
		if roomy {
			t.Logf("full after %d calls: every write found room, the run ended without meeting the full disk", at)
		}
		if err := os.Remove(ballast); err != nil {
			t.Fatal(err)
		}
		f := checkNothingLost(t, h, "state folder full", at, ar)
		mu.Lock()
		report = append(report, f)
		mu.Unlock()
	})
	for _, f := range report {
		t.Log(f)
	}
}

// firstCheckpoint: faultConfig's three searches (633 people) fill the
// state database's log past 128 pages, so it is first moved into the
// database, and then written again from its start, after the third call
// at the earliest (measured: 79 pages after two calls, 147 after five).
// A state folder full before that fails the next write.
const firstCheckpoint = 2

// TestNothingWritablePrintsTheAnswers: the state folder and the cache
// directory are both full: an answer that comes back can be neither
// recorded nor kept, and is printed on standard error (the person, the
// e-mail, its status and domain); the credits are counted all the same.
func TestNothingWritablePrintsTheAnswers(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes on a small file system")
	t.Parallel()
	// No rate limit: a 429 would keep one of the three calls from being
	// in flight when the disk fills (a loaded machine sends them closer
	// than the sandbox's window), and the run, stopping, sends it no more.
	opts := sandbox.Options{Seed: 21, RateLimit: -1}
	gate := holdReads(&opts)
	defer gate.open()
	h := newHarness(t, opts, jsonState(fmt.Sprintf(faultConfig, "10s")))
	h.env = append(h.env, testWriteRetryEnv+"=10ms")
	sdir := filepath.Join(h.dir, ".leadsync")
	testenv.MountTmpfs(t, sdir, stateFS)
	testenv.MountTmpfs(t, h.cache, 64<<10)
	var ballasts []string
	enrichments := 0
	// From a saved plan (planned before the gate holds reads: the plan's
	// billing call is one), so that apply makes no billing call.
	w := h.startWatchedApply(h.savedPlan(gate))
	var events []applyEvent
	for ev := range w.events {
		events = append(events, ev)
		// Full once the profile read and two enrichments are in flight
		// (parallelism 3), their answers held until then: the first
		// answer may still fit in the last page of the journal, the
		// others find no room.
		if ev.MessageType == "call_start" && ev.Call.Kind == "enrich" {
			if enrichments++; enrichments == 2 {
				ballasts = append(ballasts, fill(t, sdir), fill(t, h.cache))
				gate.open()
			}
		}
	}
	r := w.wait()
	var sum *applyEvent
	var lost []applyEvent
	for _, ev := range events {
		switch ev.MessageType {
		case "summary":
			e := ev
			sum = &e
		case "answer_not_recorded":
			lost = append(lost, ev)
		}
	}
	if sum == nil || r.code != 1 {
		t.Fatalf("want exit 1 and a summary:\n%s", r)
	}
	if sum.Credits != h.srv.Stats().CreditsSpent {
		t.Errorf("apply --json reports %d credits; the sandbox charged %d", sum.Credits, h.srv.Stats().CreditsSpent)
	}
	lostEnrichments := 0
	for _, ev := range lost {
		if ev.Call.Kind != "enrich" {
			continue
		}
		lostEnrichments++
		m, ok := h.srv.Member(ev.Call.Page)
		if !ok {
			t.Fatalf("the sandbox has no member %q", ev.Call.Page)
		}
		for _, want := range []string{"Paid for, but neither recorded", m.PageName, m.Email, m.EmailStatus} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("standard error does not show %q of the answer lost:\n%s", want, r.stderr)
			}
		}
	}
	if lostEnrichments == 0 {
		t.Fatalf("no enrichment reported lost although nothing could be written:\n%s", r)
	}
	if strings.Contains(r.stderr+r.stdout, h.srv.Key()) {
		t.Error("the output holds the API key")
	}
	if os.Getenv("HARDENING_LOG") != "" {
		t.Logf("the run with nothing writable:\n%s", r)
	}
	for _, b := range ballasts {
		os.Remove(b)
	}
	if r := h.run("apply", "--auto-approve"); r.code != 0 {
		t.Errorf("apply once there is room:\n%s", r)
	}
}

// TestRescueFileIsPrivate: a rescue file is 0600 in a 0700 folder, names
// where the state is, and never holds the API key.
func TestRescueFileIsPrivate(t *testing.T) {
	testenv.SkipIfShort(t, "runs real processes on a small file system")
	t.Parallel()
	opts := sandbox.Options{Seed: 21}
	gate := holdReads(&opts)
	defer gate.open()
	// The searches are held too, and the disk filled while the first one's
	// answer waits: a search of this config (126 to 300 people) never fits
	// in what is left of the journal's last page. An enrichment's answer
	// may: filled while the first enrichment was held, at load average
	// 15-30 no other call was then in flight, its answer fit in that page,
	// the claims' release could not be written, the run stopped with the
	// answer recorded, and no rescue file was needed (1 of 20 runs).
	opts.SearchLatency = opts.ReadLatency
	h := newHarness(t, opts, jsonState(fmt.Sprintf(faultConfig, "10s")))
	h.env = append(h.env, testWriteRetryEnv+"=10ms")
	sdir := filepath.Join(h.dir, ".leadsync")
	testenv.MountTmpfs(t, sdir, stateFS)
	var ballast string
	w := h.startWatchedApply(h.savedPlan(gate))
	for ev := range w.events {
		if ev.MessageType == "call_start" && ev.Call.Kind == "search" && ballast == "" {
			if !gate.holding() {
				t.Fatal("no search was held")
			}
			ballast = fill(t, sdir)
			gate.open()
		}
	}
	r := w.wait()
	files := h.rescueFiles()
	if len(files) != 1 {
		t.Fatalf("rescue files %v, want one:\n%s", files, r)
	}
	fi, err := os.Stat(files[0])
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("rescue file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	if di, err := os.Stat(filepath.Dir(files[0])); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("rescue folder mode %v (%v), want 0700", di.Mode().Perm(), err)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(h.srv.Key())) {
		t.Error("the rescue file holds the API key")
	}
	if !bytes.Contains(b, []byte("state.json")) {
		t.Errorf("the rescue file does not name the state:\n%.300s", b)
	}
	os.Remove(ballast)
	if r := h.run("show"); r.code != 0 || !strings.Contains(r.stderr, "included") {
		t.Errorf("show does not say it includes the rescue file:\n%s", r)
	}
	if _, err := os.Stat(files[0]); err != nil {
		t.Errorf("show (which takes no lock) removed the rescue file: %v", err)
	}
	if r := h.run("apply", "--auto-approve"); r.code != 0 {
		t.Fatalf("apply:\n%s", r)
	}
	if _, err := os.Stat(files[0]); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rescue file is still there after an apply wrote it in: %v", err)
	}
}
