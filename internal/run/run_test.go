package run

import (
	"context"
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

const testConfig = `
api {
  sandbox     = true
  rate_limit  = 50
  parallelism = 2
}
search "s" {
  for_each    = toset(["Berlin", "Hamburg"])
  keywords    = "Engineer"
  city        = each.value
  max_results = 3
}
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s]
  }
}
`

var t0 = time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)

func loadConfig(t *testing.T, dir string) *config.Config {
	t.Helper()
	cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(testConfig)}}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	return cfg
}

// sandboxService is a client of an in-process sandbox (no network), with
// its calls counted.
func sandboxService(t *testing.T) (api.Service, *counting) {
	t.Helper()
	sb := sandbox.New(sandbox.Options{Seed: 5, RateLimit: -1, NoLatency: true})
	c, err := api.New(api.Options{
		Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
		HTTPClient: &http.Client{Transport: sb.Transport()}, RateLimit: 50, Parallelism: 2,
		Pacer: api.NewPacer(50, 2, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	n := &counting{Service: c}
	return n, n
}

type counting struct {
	api.Service
	mu       sync.Mutex
	billing  int
	searches int
}

func (c *counting) Billing(ctx context.Context) (*api.Usage, error) {
	c.mu.Lock()
	c.billing++
	c.mu.Unlock()
	return c.Service.Billing(ctx)
}

func (c *counting) Search(ctx context.Context, g api.Generation, r api.SearchRequest) (*api.SearchResult, error) {
	c.mu.Lock()
	c.searches++
	c.mu.Unlock()
	return c.Service.Search(ctx, g, r)
}

// recBackend is a Backend that records what the operation asks of it, in
// order, over the local state file.
type recBackend struct {
	backend.Backend
	noted
}

// noted lists what happened, in order (ops), from any goroutine.
type noted struct {
	mu  sync.Mutex
	ops []string
}

func (n *noted) note(op string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.ops = append(n.ops, op)
}

func (b *recBackend) Load() (*state.State, error) { b.note("load"); return b.Backend.Load() }
func (b *recBackend) Lock(op string) (backend.Unlocker, error) {
	b.note("lock " + op)
	u, err := b.Backend.Lock(op)
	if err != nil {
		return nil, err
	}
	return unlocker{u, b}, nil
}
func (b *recBackend) OpenJournal(s *state.State) (backend.Recorder, error) {
	b.note("journal")
	return b.Backend.OpenJournal(s)
}
func (b *recBackend) Commit(s *state.State) error { b.note("commit"); return b.Backend.Commit(s) }

type unlocker struct {
	backend.Unlocker
	b *recBackend
}

func (u unlocker) Unlock() error { u.b.note("unlock"); return u.Unlocker.Unlock() }

// recView records what an apply shows.
type recView struct {
	plans    int
	written  []export.Written
	progress engine.Progress
	done     []error // each Done call's error
	folded   int     // the calls of Folded
	writing  []int   // the spreadsheets of each WritingAfterStop
}

func (v *recView) Plan(*plan.Plan) { v.plans++ }
func (v *recView) Progress(stop func()) engine.Progress {
	if v.progress != nil {
		return v.progress
	}
	return engine.NopProgress{}
}
func (v *recView) Interrupted()           {}
func (v *recView) WritingAfterStop(n int) { v.writing = append(v.writing, n) }
func (v *recView) Folded(n int)           { v.folded += n }
func (v *recView) Done(err error)         { v.done = append(v.done, err) }
func (v *recView) Exports(_ *config.Config, w []export.Written) {
	v.written = append(v.written, w...)
}

func newDeps(t *testing.T) (Deps, *recBackend, *counting, string) {
	dir := t.TempDir()
	b := &recBackend{Backend: local.Open(filepath.Join(dir, ".leadsync", "state.json"))}
	svc, n := sandboxService(t)
	return Deps{Backend: b, Service: func() (api.Service, error) { return svc, nil }, Now: func() time.Time { return t0 },
		Interrupt: make(chan os.Signal)}, b, n, dir
}

func TestApplyRunsThroughTheBackend(t *testing.T) {
	d, b, n, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	v := &recView{}
	asked := 0
	err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Confirm: func() (bool, error) { asked++; return true, nil }}, v)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock apply, load, journal, commit, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s", got, want)
	}
	if asked != 1 || v.plans != 1 || n.billing != 1 || n.searches != 2 {
		t.Errorf("asked %d, plans shown %d, billing calls %d, searches %d; want 1, 1, 1, 2", asked, v.plans, n.billing, n.searches)
	}
	if len(v.written) != 2 { // the sheet's CSV and its summary
		t.Errorf("exports shown: %+v", v.written)
	}
	st, err := d.Backend.Load()
	if err != nil || len(st.Searches) != 2 {
		t.Fatalf("state after apply: %v, %d searches", err, len(st.Searches))
	}

	// Again: nothing to do, no confirmation, no journal, no export
	// rewritten (the files exist).
	b.ops, v.written = nil, nil
	if err := Apply(context.Background(), d, ApplyOptions{Config: cfg, Confirm: func() (bool, error) { asked++; return true, nil }}, v); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock apply, load, unlock"; got != want || asked != 1 || n.searches != 2 || len(v.written) != 0 {
		t.Errorf("second apply: backend %s, asked %d, searches %d, written %d", got, asked, n.searches, len(v.written))
	}
}

func TestApplyCancelledSpendsNothing(t *testing.T) {
	d, b, n, dir := newDeps(t)
	err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), Confirm: func() (bool, error) { return false, nil }}, &recView{})
	if !errors.Is(err, ErrCancelled) {
		t.Fatalf("err = %v, want ErrCancelled", err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock apply, load, unlock"; got != want || n.searches != 0 {
		t.Errorf("backend %s, searches %d; want %s and none", got, n.searches, want)
	}
	confirmErr := errors.New("stdin closed")
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), Confirm: func() (bool, error) { return false, confirmErr }}, &recView{}); !errors.Is(err, confirmErr) {
		t.Errorf("confirmation error: %v", err)
	}
}

// stopAtFirstCall is a progress printer whose reader went away at once:
// it calls the view's stop on the first call.
type stopAtFirstCall struct {
	engine.NopProgress
	stop func()
}

func (p stopAtFirstCall) CallStart(engine.Call) { p.stop() }

func TestApplyStopFromTheViewStopsTheRun(t *testing.T) {
	d, b, n, dir := newDeps(t)
	v := &stopView{}
	cfg := loadConfig(t, dir)
	cfg.API.Parallelism = 1
	err := Apply(context.Background(), d, ApplyOptions{Config: cfg, AutoApprove: true}, v)
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("err = %v, want ErrFailed (stopped early)", err)
	}
	if n.searches != 1 {
		t.Errorf("searches = %d, want 1: the call in flight finishes, no other starts", n.searches)
	}
	if !strings.Contains(strings.Join(b.ops, ", "), "commit") {
		t.Errorf("a stopped run commits what it has: %v", b.ops)
	}
}

// A second interrupt while the spreadsheets are written, after a first
// one, stops their writer before its next rename: the export written
// before it is in place, shown written and recorded; the other is not
// written, left as it was, named so, and leaves no temporary file. The
// state is saved. The second interrupt is the end of the apply's
// context, which the watch's cancel is; the test ends its parent, so
// that the end lands before the writer goes on.
func TestASecondInterruptSkipsTheSpreadsheets(t *testing.T) {
	d, b, _, dir := newDeps(t)
	ctx, second := context.WithCancel(context.Background())
	t.Cleanup(second)
	var armed atomic.Bool
	first := filepath.Join(dir, "out", "all.csv")
	d.Now = func() time.Time {
		if _, err := os.Stat(first); err == nil && armed.CompareAndSwap(true, false) {
			second() // export.all is in place: export.crm is next
		}
		return t0
	}
	v := &stopView{arm: func() { armed.Store(true) }}
	cfg := loadConfigText(t, dir, twoExports)
	cfg.API.Parallelism = 1
	err := Apply(ctx, d, ApplyOptions{Config: cfg, AutoApprove: true}, v)
	if !errors.Is(err, ErrSheetsSkipped) || !errors.Is(err, ErrAborted) {
		t.Fatalf("err = %v, want the spreadsheets skipped (an abort)", err)
	}
	if !strings.Contains(strings.Join(b.ops, ", "), "commit") {
		t.Errorf("the state is not saved: %v", b.ops)
	}
	if !slices.Equal(v.writing, []int{2}) {
		t.Errorf("said writing %v, want two spreadsheets said", v.writing)
	}
	checkSkipped(t, dir, err, exportsOf(v.written))
}

// checkSkipped checks an apply whose second interrupt came between
// export.all and export.crm: only export.all is shown written, in place
// and recorded; export.crm's files are named not written, and no file of
// it, nor a temporary one, is in out/.
func checkSkipped(t *testing.T, dir string, err error, shown []string) {
	t.Helper()
	if !slices.Equal(shown, []string{"export.all"}) {
		t.Errorf("shown written: %v, want export.all alone", shown)
	}
	var ue *UnwrittenError
	if !errors.As(err, &ue) || len(ue.Files) == 0 || slices.ContainsFunc(ue.Files, func(f UnwrittenFile) bool { return f.Export != "export.crm" }) {
		t.Errorf("not written: %+v, want export.crm's files alone", ue)
	}
	entries, rerr := os.ReadDir(filepath.Join(dir, "out"))
	if rerr != nil {
		t.Fatal(rerr)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"all.csv", "all.summary.csv"}) {
		t.Errorf("out/ holds %v, want export.all's files alone", names)
	}
	recs := readRecord(t, dir)
	if recs.Exports["export.all"] == nil || recs.Exports["export.crm"] != nil {
		t.Errorf("records: %v, want export.all's alone", recs.Exports)
	}
}

// exportsOf is the exports of written, in order, each once.
func exportsOf(written []export.Written) []string {
	var out []string
	for _, w := range written {
		if !slices.Contains(out, w.Export) {
			out = append(out, w.Export)
		}
	}
	return out
}

// stopView stops the run at its first call (a first interrupt); arm,
// when set, is called when it says the spreadsheets are written.
type stopView struct {
	recView
	arm func()
}

func (v *stopView) WritingAfterStop(n int) {
	v.recView.WritingAfterStop(n)
	if v.arm != nil {
		v.arm()
	}
}

func (v *stopView) Progress(stop func()) engine.Progress { return stopAtFirstCall{stop: stop} }

// TestApplyPlanErrorsAreDiagnostics: a --target that names nothing is only
// the error: no call, no lock (the lock of a first apply makes the
// state's folder), no plan drawn, nothing written.
func TestApplyPlanErrorsAreDiagnostics(t *testing.T) {
	d, b, n, dir := newDeps(t)
	v := &recView{}
	err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), AutoApprove: true, Targets: []string{"search.nope"}}, v)
	var de *DiagnosticsError
	if !errors.As(err, &de) || !de.Diags.HasErrors() || n.searches != 0 {
		t.Errorf("err = %v, searches %d; want a *DiagnosticsError and no search", err, n.searches)
	}
	if slices.ContainsFunc(b.ops, func(op string) bool { return strings.HasPrefix(op, "lock") }) || v.plans != 0 {
		t.Errorf("backend ops %v, %d plans drawn; want no lock and no plan", b.ops, v.plans)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".leadsync/ was made: %v", err)
	}
}

func TestBillingFailureIsABillingError(t *testing.T) {
	d, _, _, dir := newDeps(t)
	boom := errors.New("no API key")
	d.Service = func() (api.Service, error) { return nil, boom }
	_, _, err := Plan(context.Background(), d, PlanOptions{Config: loadConfig(t, dir)})
	var be *BillingError
	if !errors.As(err, &be) || !errors.Is(err, boom) {
		t.Errorf("plan: err = %v, want a *BillingError wrapping the cause", err)
	}
	// Apply builds the client before planning: its failure is its own.
	if err := Apply(context.Background(), d, ApplyOptions{Config: loadConfig(t, dir), AutoApprove: true}, &recView{}); !errors.Is(err, boom) || errors.As(err, &be) {
		t.Errorf("apply: err = %v", err)
	}
}

func TestPlanOfflineMakesNoCall(t *testing.T) {
	d, b, _, dir := newDeps(t)
	d.Service = func() (api.Service, error) { t.Fatal("offline plan built a service client"); return nil, nil }
	p, diags, err := Plan(context.Background(), d, PlanOptions{Config: loadConfig(t, dir), Offline: true})
	if err != nil || diags.HasErrors() {
		t.Fatal(err, diags)
	}
	if p.Totals.Searches != 2 || p.Quota.Checked {
		t.Errorf("plan: %d searches, quota checked %v", p.Totals.Searches, p.Quota.Checked)
	}
	if got := strings.Join(b.ops, ", "); got != "load" {
		t.Errorf("plan takes no lock and writes nothing: %s", got)
	}
}

func TestHasBilling(t *testing.T) {
	for _, tt := range []struct {
		api  config.API
		want bool
	}{
		{config.API{Sandbox: true}, true},
		{config.API{BaseURL: "https://v1.example"}, true},
		{config.API{BaseURLV2: "https://v2.example"}, false},
	} {
		if got := HasBilling(&config.Config{API: tt.api}); got != tt.want {
			t.Errorf("HasBilling(%+v) = %v, want %v", tt.api, got, tt.want)
		}
	}
}

func TestPreloadLoadsOnceEarly(t *testing.T) {
	b := &recBackend{Backend: local.Open(filepath.Join(t.TempDir(), "state.json"))}
	p := Preload(b)
	st1, err := p.Load()
	if err != nil || st1 == nil {
		t.Fatal(err)
	}
	if _, err := p.Load(); err != nil {
		t.Fatal(err)
	}
	if len(b.ops) != 2 {
		t.Errorf("loads: %v; want the early one, then one per later Load", b.ops)
	}
}

func TestSecondInterruptCancels(t *testing.T) {
	sig := make(chan os.Signal)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	notified := make(chan struct{})
	unwatch, _, _ := watchInterrupts(sig, stop, cancel, func() { close(notified) })
	defer unwatch()
	sig <- os.Interrupt
	<-notified
	<-stop
	if ctx.Err() != nil {
		t.Fatal("the first interrupt cancelled")
	}
	sig <- os.Interrupt
	<-ctx.Done()
}

// A closed standard output stops the run as a first interrupt does (the
// view's stopNow), but the user's first Ctrl-C after it is still a first:
// it is noticed and waits for the calls in flight (design: the first
// interrupt waits for them), and only a second cancels.
func TestAnInterruptAfterAClosedOutputStillWaits(t *testing.T) {
	sig := make(chan os.Signal)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notified := make(chan struct{})
	unwatch, stopNow, _ := watchInterrupts(sig, stop, cancel, func() { close(notified) })
	defer unwatch()
	stopNow()
	sig <- os.Interrupt
	select {
	case <-notified:
	case <-ctx.Done():
		t.Fatal("the user's first interrupt after a closed output cancelled: the calls in flight would be abandoned")
	}
	sig <- os.Interrupt
	<-ctx.Done()
}

// Once the calls are over after a stop and the spreadsheets are written
// (skipOnNext), any interrupt cancels: "a Ctrl-C now skips them" is true
// after a closed output as after a first Ctrl-C.
func TestAnInterruptWhileTheSheetsAreWrittenAfterAStopCancels(t *testing.T) {
	sig := make(chan os.Signal)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var notified atomic.Bool
	unwatch, stopNow, skipOnNext := watchInterrupts(sig, stop, cancel, func() { notified.Store(true) })
	stopNow()
	skipOnNext()
	sig <- os.Interrupt
	unwatch() // the interrupt is handled before the watch ends
	if ctx.Err() == nil || notified.Load() {
		t.Fatalf("an interrupt while the spreadsheets are written after a stop: cancelled %v, noticed as a first %v; want cancelled, no notice", ctx.Err() != nil, notified.Load())
	}
}

// TestAPanicOfTheInterruptsNoticeStillStops: notify panics on the first
// interrupt (a bug of the view): the run was stopped before it, not
// aborted; a second interrupt still aborts; unwatch raises the panic.
func TestAPanicOfTheInterruptsNoticeStillStops(t *testing.T) {
	sig := make(chan os.Signal)
	stop := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notified := make(chan struct{})
	unwatch, _, _ := watchInterrupts(sig, stop, cancel, func() {
		close(notified)
		panic("a bug in the notice")
	})
	sig <- os.Interrupt
	<-notified
	select {
	case <-stop:
	default:
		t.Fatal("the first interrupt's notice came before the stop: its panic would leave the run going")
	}
	sig <- os.Interrupt
	<-ctx.Done()
	if _, ok := errors.AsType[*recovered.Panic](recovered.Call(func() error { unwatch(); return nil })); !ok {
		t.Fatal("unwatch did not raise the notice's panic")
	}
}
