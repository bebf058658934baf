package cli

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a running
// apply and the test reading it.
type syncBuffer struct {
	mu      sync.Mutex
	b       bytes.Buffer
	written *sync.Cond // broadcast at every write, once someone waits
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written != nil {
		s.written.Broadcast()
	}
	return s.b.Write(p)
}

// waitFor blocks until the buffer holds text: it waits for the write, an
// event, with no clock. A run that never writes it hangs the test until go
// test's -timeout, which prints where every goroutine waits.
func (s *syncBuffer) waitFor(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written == nil {
		s.written = sync.NewCond(&s.mu)
	}
	for !strings.Contains(s.b.String(), text) {
		s.written.Wait()
	}
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// gate holds every search of a sandbox "in flight" until released: the
// sandbox's Sleep (its latency) reports the call and waits.
type gate struct {
	inflight chan struct{}
	release  chan struct{}
}

func newGate() *gate {
	return &gate{inflight: make(chan struct{}, 100), release: make(chan struct{})}
}

func (g *gate) sleep(ctx context.Context, d time.Duration) error {
	g.inflight <- struct{}{}
	select {
	case <-g.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

const applyTestConfig = `
variable "sandbox_url" {
  type = string
}
api {
  base_url    = var.sandbox_url
  rate_limit  = 50
  parallelism = 2
}
search "s" {
  for_each    = toset(["Berlin", "Hamburg", "Wien", "Zürich"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
enrich "e" {
  from = [search.s]
}
`

type applyRig struct {
	dir string
	srv *sandbox.Server
	env []string
	// backend is the backend of the configuration, which has no backend
	// block (Factory.DefaultBackend): nil is the local state.
	backend *backend.Block
	// ctx, when set, is the context leadsync runs in (else Background).
	ctx context.Context
	// onErrOut, when set, sees each write to the standard error, as it
	// is made.
	onErrOut func(p []byte)
}

// hookWriter calls hook with each write, then writes it to w.
type hookWriter struct {
	w    io.Writer
	hook func(p []byte)
}

func (h hookWriter) Write(p []byte) (int, error) {
	h.hook(p)
	return h.w.Write(p)
}

func newApplyRig(t *testing.T, g *gate) *applyRig {
	t.Helper()
	opts := sandbox.Options{Seed: 5, RateLimit: -1, NoLatency: true}
	if g != nil {
		opts.NoLatency = false
		opts.SearchLatency = [2]time.Duration{time.Millisecond, time.Millisecond}
		opts.ReadLatency = [2]time.Duration{-1, -1}
		opts.Sleep = g.sleep
	}
	srv := sandbox.New(opts)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(applyTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	return &applyRig{dir: dir, srv: srv, env: []string{
		"LEADSYNC_VAR_sandbox_url=" + hs.URL, "LEADSYNC_API_KEY=" + sandbox.DefaultKey,
	}}
}

// start runs leadsync in the background and returns its exit code channel.
func (r *applyRig) start(in string, intr chan os.Signal, args ...string) (<-chan int, *syncBuffer, *syncBuffer) {
	f, _, _ := configTestFactory(r.dir, r.env...)
	f.Now = time.Now
	out, errOut := &syncBuffer{}, &syncBuffer{}
	f.IO.Out, f.IO.ErrOut, f.IO.In = out, errOut, strings.NewReader(in)
	if r.onErrOut != nil {
		f.IO.ErrOut = hookWriter{w: errOut, hook: r.onErrOut}
	}
	f.Interrupt = intr
	f.DefaultBackend = r.backend
	ctx := r.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	code := make(chan int, 1)
	go func() { code <- Run(ctx, f, args) }()
	return code, out, errOut
}

func (r *applyRig) state(t *testing.T) *state.State {
	t.Helper()
	st, err := local.NewStore(filepath.Join(r.dir, ".leadsync", "state.db")).Load()
	if err != nil {
		t.Fatalf("state does not load: %v", err)
	}
	return st
}

func TestApplyFirstInterruptFinishesCallsInFlightAndStartsNoMore(t *testing.T) {
	g := newGate()
	r := newApplyRig(t, g)
	intr := make(chan os.Signal, 2)
	code, out, errOut := r.start("", intr, "apply", "--auto-approve")

	<-g.inflight
	<-g.inflight // parallelism 2: two searches in flight
	intr <- os.Interrupt
	errOut.waitFor("Interrupt received")
	// While the two searches run, the output says it waits for them, and
	// never that they were finished.
	errOut.waitFor("waiting for 2 calls in flight")
	if strings.Contains(errOut.String(), "finished") {
		t.Errorf("the calls in flight are said to be finished before they are:\n%s", errOut)
	}
	close(g.release)

	if c := <-code; c != ExitError {
		t.Fatalf("exit code %d, want 1 after an interrupt\nstdout:\n%s\nstderr:\n%s", c, out, errOut)
	}
	if !strings.Contains(out.String(), "Stopped early") || !strings.Contains(out.String(), "it waited for the 2 calls in flight") {
		t.Errorf("summary does not say the run stopped early, after the 2 calls in flight:\n%s", out)
	}
	if n := r.srv.Stats().ByOp[sandbox.OpSearch]; n != 2 {
		t.Errorf("%d searches reached the service, want only the 2 in flight", n)
	}
	if n := len(r.state(t).Searches); n != 2 {
		t.Errorf("state has %d searches, want the 2 that finished", n)
	}

	// The next apply does only what is left.
	code, out, errOut = r.start("", nil, "apply", "--auto-approve")
	if c := <-code; c != ExitOK {
		t.Fatalf("resumed apply: exit %d\n%s\n%s", c, out, errOut)
	}
	stats := r.srv.Stats()
	if n := stats.ByOp[sandbox.OpSearch]; n != 4 {
		t.Errorf("%d searches in all, want 4: a completed search was repeated", n)
	}
	for page, n := range stats.Enriched {
		if n > 1 {
			t.Errorf("%s enriched %d times", page, n)
		}
	}
}

// TestApplySecondInterruptExitsAtOnce, on both backends: the second
// interrupt exits without waiting for the calls in flight, names them
// (they may have been charged), and says where the finished calls are
// recorded in the backend's words, never of a journal the PostgreSQL
// backend does not have.
func TestApplySecondInterruptExitsAtOnce(t *testing.T) {
	t.Run("local", func(t *testing.T) { secondInterrupt(t, nil, nil) })
	t.Run("pg", func(t *testing.T) {
		cs, schema := pgTestSchema(t)
		pg := &backend.Block{Type: "pg", Attrs: map[string]*backend.Attr{"schema_name": {Value: schema, Known: true}}}
		secondInterrupt(t, []string{"LEADSYNC_PG_CONN_STR=" + cs}, pg)
	})
}

func secondInterrupt(t *testing.T, env []string, def *backend.Block) {
	g := newGate()
	r := newApplyRig(t, g)
	r.env = append(r.env, env...)
	r.backend = def
	intr := make(chan os.Signal, 2)
	code, out, errOut := r.start("", intr, "apply", "--auto-approve")
	<-g.inflight
	<-g.inflight
	intr <- os.Interrupt
	intr <- os.Interrupt
	// The searches are never released: apply must not wait for them.
	if c := <-code; c != ExitError {
		t.Fatalf("exit code %d, want 1\n%s\n%s", c, out, errOut)
	}
	if !strings.Contains(errOut.String(), "Aborted") {
		t.Errorf("no word of the abort:\n%s", errOut)
	}
	// The two searches in flight are named: they may have been charged.
	abandoned := regexp.MustCompile(`Abandoned at the second interrupt, with no answer: search\.s\["\w+"\], search\.s\["\w+"\]\. They may have been charged`)
	if !abandoned.MatchString(out.String()) || !strings.Contains(out.String(), "Apply aborted: 2 calls made") {
		t.Errorf("the calls abandoned are not named:\n%s", out)
	}
	if strings.Contains(errOut.String(), "journal") {
		t.Errorf("the abort speaks of a journal rather than of where the calls are recorded:\n%s", errOut)
	}
	close(g.release)
	if env != nil {
		if !strings.Contains(errOut.String(), "recorded with the workspace \"default\" in PostgreSQL") {
			t.Errorf("the abort does not say the calls are recorded in PostgreSQL:\n%s", errOut)
		}
		return
	}
	st := r.state(t) // loads, replaying whatever the journal holds
	if len(st.Searches) != 0 {
		t.Errorf("state has %d searches; none finished", len(st.Searches))
	}
}

// A second interrupt while the spreadsheets are written skips them: the
// state is saved, the message says so and where they come from, the
// spreadsheet is named not written and is not in place, and the exit
// code is 1. The second interrupt is the end of the apply's context (as
// the watch's cancel), made as the note of the writing is shown, before
// the writer starts.
func TestApplySecondInterruptSkipsTheSpreadsheets(t *testing.T) {
	g := newGate()
	r := newApplyRig(t, g)
	withExport := applyTestConfig + `
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s]
  }
}
`
	if err := os.WriteFile(filepath.Join(r.dir, "main.leads.hcl"), []byte(withExport), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, second := context.WithCancel(context.Background())
	t.Cleanup(second)
	r.ctx = ctx
	r.onErrOut = func(p []byte) {
		if strings.HasPrefix(string(p), "Writing 1 spreadsheet") {
			second()
		}
	}
	intr := make(chan os.Signal, 2)
	code, out, errOut := r.start("", intr, "apply", "--auto-approve")
	<-g.inflight
	<-g.inflight
	intr <- os.Interrupt
	errOut.waitFor("Interrupt received")
	close(g.release)
	if c := <-code; c != ExitError {
		t.Fatalf("exit code %d, want 1\n%s\n%s", c, out, errOut)
	}
	if !strings.Contains(errOut.String(), "Aborted. The state is saved; `leadsync export` writes the spreadsheets.") {
		t.Errorf("no word of the skip:\n%s", errOut)
	}
	if !strings.Contains(out.String(), "Not written: out/all.csv (export.all)") {
		t.Errorf("the spreadsheet is not named not written:\n%s\n%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "out", "all.csv")); !os.IsNotExist(err) {
		t.Errorf("the skipped spreadsheet is in place: %v", err)
	}
	if n := len(r.state(t).Searches); n != 2 {
		t.Errorf("state has %d searches, want the 2 that finished: the state is saved", n)
	}
}

func TestApplyAsksForYes(t *testing.T) {
	for _, tc := range []struct {
		answer string
		code   int
		ran    bool
	}{
		{"yes\n", ExitOK, true},
		{"no\n", ExitError, false},
		{"y\n", ExitError, false},
		{"", ExitError, false}, // standard input closed
	} {
		t.Run(strings.TrimSpace(tc.answer), func(t *testing.T) {
			r := newApplyRig(t, nil)
			code, out, errOut := r.start(tc.answer, nil, "apply")
			c := <-code
			if c != tc.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", c, tc.code, out, errOut)
			}
			if !strings.Contains(out.String(), "Only 'yes' will be accepted") {
				t.Errorf("no confirmation prompt:\n%s", out)
			}
			ran := r.srv.Stats().ByOp[sandbox.OpSearch] > 0
			if ran != tc.ran {
				t.Errorf("searches made: %v, want %v", ran, tc.ran)
			}
		})
	}
}

func TestApplyRefusesJSONWithoutApproval(t *testing.T) {
	r := newApplyRig(t, nil)
	code, _, errOut := r.start("", nil, "apply", "--json")
	if c := <-code; c != ExitError || !strings.Contains(errOut.String(), "--auto-approve") {
		t.Fatalf("exit %d, stderr:\n%s", c, errOut)
	}
	if n := r.srv.Stats().Calls; n != 0 {
		t.Errorf("%d calls made", n)
	}
}
