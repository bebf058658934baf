package run

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/run/rescue"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// disk is the local state's file system in a test: full while full is
// set (a write fails with ENOSPC, after writing half of what it was
// given, as a real full disk may).
type disk struct{ full atomic.Bool }

func (d *disk) wrap(_ string, w io.Writer) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		if d.full.Load() {
			k, _ := w.Write(p[:len(p)/2])
			return k, syscall.ENOSPC
		}
		return w.Write(p)
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// layerWorld is a local state file on a disk that can fill up, within the
// rescue layer, with a rescue place in a cache folder of its own and a
// clock of retries that never sleeps.
type layerWorld struct {
	t      *testing.T
	store  *local.Store
	disk   *disk
	place  rescue.Place
	waits  []time.Duration
	notes  []string
	onWait func(n int) // called at each wait, with how many there were
	mu     sync.Mutex
}

func newLayerWorld(t *testing.T) *layerWorld {
	dir := t.TempDir()
	w := &layerWorld{t: t, disk: &disk{}}
	w.store = local.NewStore(filepath.Join(dir, ".leadsync", "state.json"))
	w.store.WrapWrite = w.disk.wrap
	w.place = rescue.PlaceIn(filepath.Join(dir, "cache"), w.store.AsBackend().Describe())
	return w
}

// layer is a new handle of the world's state, as a command opens it.
func (w *layerWorld) layer() backend.Backend {
	return Rescuing(w.store.AsBackend(), RescueOptions{Place: w.place, Now: func() time.Time { return t0 },
		Delays: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second},
		After: func(d time.Duration) <-chan time.Time {
			w.mu.Lock()
			w.waits = append(w.waits, d)
			n := len(w.waits)
			w.mu.Unlock()
			if w.onWait != nil {
				w.onWait(n)
			}
			ch := make(chan time.Time, 1)
			ch <- t0
			return ch
		},
		Notify: func(n string) { w.mu.Lock(); w.notes = append(w.notes, n); w.mu.Unlock() }})
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// searchEv and enrichEv are results of calls, as the engine records them.
func searchEv(addr string, pages ...string) *state.Event {
	var leads []person.Lead
	for _, p := range pages {
		leads = append(leads, person.Lead{NetworkID: "n-" + p, PageName: p, FullName: p})
	}
	return &state.Event{At: t0, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{Generation: api.Gen1,
		Request: []byte(`{"keywords":"x"}`), Leads: leads}}
}

func pendingEv(page string) *state.Event {
	return &state.Event{At: t0, Kind: state.EventEnrichPending, Address: "enrich.all", Enrich: &state.EnrichEvent{PersonID: "n-" + page, Credits: 1}}
}

func enrichEv(page string) *state.Event {
	return &state.Event{At: t0, Kind: state.EventEnrich, Address: "enrich.all", Enrich: &state.EnrichEvent{PersonID: "n-" + page, Credits: 1,
		Result: person.EnrichedProfile{NetworkID: "n-" + page, PageName: page, Email: page + "@acme.example", ValidationStatus: person.StatusValid}}}
}

// record appends e and folds it, as the engine does with what it kept.
func record(t *testing.T, rec backend.Recorder, st *state.State, e *state.Event) error {
	t.Helper()
	err := rec.Append(e)
	var kept *KeptError
	if err == nil || errors.As(err, &kept) {
		mustDo(t, st.Fold(*e))
	}
	return err
}

// startRun locks and loads through the layer and opens a recording, with
// the search of ann and bob recorded.
func (w *layerWorld) startRun() (backend.Backend, backend.Unlocker, *state.State, backend.Recorder) {
	t := w.t
	b := w.layer()
	l, err := b.Lock("apply")
	mustDo(t, err)
	st, err := b.Load()
	mustDo(t, err)
	rec, err := b.OpenJournal(st)
	mustDo(t, err)
	mustDo(t, record(t, rec, st, searchEv("search.s", "ann", "bob")))
	return b, l, st, rec
}

// TestWriteTriedAgainRecordsLate: a write that fails is tried again after
// each delay; once the disk has room it is recorded where the state
// lives, nothing is kept elsewhere, and the user was told.
func TestWriteTriedAgainRecordsLate(t *testing.T) {
	w := newLayerWorld(t)
	_, l, st, rec := w.startRun()
	defer l.Unlock()
	w.disk.full.Store(true)
	w.onWait = func(n int) {
		if n == 2 {
			w.disk.full.Store(false) // cleaned up while the run waited
		}
	}
	mustDo(t, record(t, rec, st, pendingEv("ann")))
	if len(w.waits) != 2 || w.waits[0] != time.Second || w.waits[1] != 2*time.Second {
		t.Errorf("waits %v, want 1s then 2s", w.waits)
	}
	if len(w.notes) != 2 || !strings.Contains(w.notes[0], "trying again in 1s") || !strings.Contains(w.notes[0], "starting no new call meanwhile") {
		t.Errorf("notes %q", w.notes)
	}
	if files, _ := w.place.Read(); len(files) != 0 {
		t.Errorf("rescue files %v: nothing should be kept elsewhere", files)
	}
	mustDo(t, rec.Close())
	again, err := w.store.Load()
	mustDo(t, err)
	if len(again.UnknownEnrichments) != 1 {
		t.Errorf("the pending note written late is not in the journal: %v", again.UnknownEnrichments)
	}
}

// TestStateUnwritableKeepsResults: the disk stays full. A pending note is
// refused (its call is not sent); a result is tried again, then kept in
// the rescue file, and every result after it goes there at once, in
// order. Another command reads them (they count: credits, people) while
// the file stays; the next command under the lock writes them into the
// state and removes the file; the state then holds them once.
func TestStateUnwritableKeepsResults(t *testing.T) {
	w := newLayerWorld(t)
	_, l, st, rec := w.startRun()
	mustDo(t, record(t, rec, st, pendingEv("ann")))
	w.disk.full.Store(true)
	if err := record(t, rec, st, pendingEv("bob")); err == nil || errors.As(err, new(*KeptError)) {
		t.Fatalf("a pending note on a full disk: %v; want an error, not kept", err)
	}
	err := record(t, rec, st, enrichEv("ann"))
	var kept *KeptError
	if !errors.As(err, &kept) || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("the result on a full disk: %v; want it kept", err)
	}
	if len(w.waits) != 6 { // 3 for bob's note, 3 for ann's result
		t.Errorf("waits %v, want the 3 delays twice", w.waits)
	}
	waits := len(w.waits)
	mustDo(t, errors.Unwrap(func() error {
		e := record(t, rec, st, searchEv("search.t", "cy"))
		if errors.As(e, &kept) {
			return nil
		}
		return e
	}()))
	if len(w.waits) != waits {
		t.Errorf("a result after the first kept was tried again (%d waits): it must go to the file at once", len(w.waits)-waits)
	}
	if err := record(t, rec, st, pendingEv("cy")); err == nil || !strings.Contains(err.Error(), "no call is sent") {
		t.Errorf("a pending note after results were kept: %v; want no call sent", err)
	}
	files, err := w.place.Read()
	mustDo(t, err)
	if len(files) != 1 || len(files[0].Events) != 2 || files[0].Path != kept.Path || files[0].Header.Lineage != st.Lineage {
		t.Fatalf("rescue files %+v, want one with the two results", files)
	}
	if fi, err := os.Stat(kept.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("rescue file mode: %v %v", fi, err)
	}
	// The run's final commit fails too: the journal and the file keep it all.
	if err := w.layer().Commit(st); err == nil {
		t.Fatal("commit on a full disk succeeded")
	}
	rec.Close()
	l.Unlock()

	// A command that only reads (plan, show, export) sees everything.
	reader := w.layer()
	seen, err := reader.Load()
	mustDo(t, err)
	if seen.Usage.CreditsSpent != 1 || seen.Searches["search.t"] == nil || seen.Person("n-ann").Enrichment == nil || seen.Usage.CreditsUnknown != 0 {
		t.Fatalf("a reader's state: %d credits spent, search.t %v, unknown %d; want ann's enrichment (its note settled) and search.t",
			seen.Usage.CreditsSpent, seen.Searches["search.t"], seen.Usage.CreditsUnknown)
	}
	if _, err := os.Stat(kept.Path); err != nil {
		t.Fatalf("a reader removed the rescue file: %v", err)
	}
	if len(w.notes) == 0 || !strings.Contains(w.notes[len(w.notes)-1], "2 results kept in "+kept.Path) {
		t.Errorf("the reader was not told: %q", w.notes)
	}

	// Space again: the next command under the lock writes them in.
	w.disk.full.Store(false)
	b := w.layer()
	l2, err := b.Lock("apply")
	mustDo(t, err)
	got, err := b.Load()
	mustDo(t, err)
	mustDo(t, l2.Unlock())
	if _, err := os.Stat(kept.Path); !os.IsNotExist(err) {
		t.Errorf("the rescue file is still there after it was written in: %v", err)
	}
	if last := w.notes[len(w.notes)-1]; !strings.Contains(last, "wrote into") || !strings.Contains(last, "2 results") {
		t.Errorf("the command under the lock did not say it wrote them in: %q", last)
	}
	if got.Marks != nil {
		t.Errorf("marks %v kept after the file went", got.Marks)
	}
	plain, err := w.store.Load()
	mustDo(t, err)
	if plain.Usage.CreditsSpent != 1 || plain.Searches["search.t"] == nil || plain.Person("n-ann").Enrichment == nil {
		t.Errorf("the state file does not hold the kept results: %d credits, search.t %v", plain.Usage.CreditsSpent, plain.Searches["search.t"])
	}
}

// TestCommitRemovesTheRunsRescueFile: the run's final commit succeeds (the
// disk was cleaned meanwhile): its rescue file goes, and the committed
// state holds what the file kept.
func TestCommitRemovesTheRunsRescueFile(t *testing.T) {
	w := newLayerWorld(t)
	b, l, st, rec := w.startRun()
	defer l.Unlock()
	w.disk.full.Store(true)
	var kept *KeptError
	if err := record(t, rec, st, enrichEv("ann")); !errors.As(err, &kept) {
		t.Fatalf("not kept: %v", err)
	}
	w.disk.full.Store(false)
	rec.Close()
	mustDo(t, b.Commit(st))
	if _, err := os.Stat(kept.Path); !os.IsNotExist(err) {
		t.Errorf("the rescue file is still there after the commit: %v", err)
	}
	plain, err := w.store.Load()
	mustDo(t, err)
	if plain.Usage.CreditsSpent != 1 {
		t.Errorf("%d credits in the committed state, want 1", plain.Usage.CreditsSpent)
	}
}

// ambiguousRecorder stores every event and then says it failed, as a
// database that committed and lost the connection before it said so.
type ambiguousRecorder struct {
	backend.Recorder
}

func (r ambiguousRecorder) Append(e *state.Event) error {
	if err := r.Recorder.Append(e); err != nil {
		return err
	}
	return errors.New("connection reset while committing")
}

type ambiguousBackend struct{ backend.Backend }

func (b ambiguousBackend) OpenJournal(s *state.State) (backend.Recorder, error) {
	r, err := b.Backend.OpenJournal(s)
	return ambiguousRecorder{r}, err
}

// TestSecondCopyCountsOnce: the backend stored a result whose write seemed
// to fail, and the layer kept it in the rescue file too: the next command
// folds it once (its credits count once).
func TestSecondCopyCountsOnce(t *testing.T) {
	w := newLayerWorld(t)
	b := Rescuing(ambiguousBackend{w.store.AsBackend()}, RescueOptions{Place: w.place, Delays: []time.Duration{}})
	l, err := b.Lock("apply")
	mustDo(t, err)
	st, err := b.Load()
	mustDo(t, err)
	rec, err := b.OpenJournal(st)
	mustDo(t, err)
	var kept *KeptError
	if err := record(t, rec, st, enrichEv("ann")); !errors.As(err, &kept) {
		t.Fatalf("not kept: %v", err)
	}
	rec.Close()
	l.Unlock() // killed before its commit: the journal and the file both hold ann

	got, err := w.layer().Load()
	mustDo(t, err)
	if got.Usage.CreditsSpent != 1 {
		t.Errorf("%d credits spent, want 1: the two copies of one enrichment counted twice", got.Usage.CreditsSpent)
	}
}

// TestRescueOfAnotherStateIsLeft: a rescue file whose lineage is not the
// state's (the state was replaced since) is neither folded nor removed,
// and the user is told.
func TestRescueOfAnotherStateIsLeft(t *testing.T) {
	w := newLayerWorld(t)
	mustDo(t, w.store.Save(state.New()))
	wr := w.place.NewWriter(rescue.Header{Run: "old", Lineage: "another", Created: t0})
	e := enrichEv("ann")
	e.Mark = &state.EventMark{Run: "old", Seq: 1}
	mustDo(t, wr.Append(e))
	mustDo(t, wr.Close())
	b := w.layer()
	l, err := b.Lock("apply")
	mustDo(t, err)
	defer l.Unlock()
	st, err := b.Load()
	mustDo(t, err)
	if st.Usage.CreditsSpent != 0 {
		t.Errorf("another state's result was folded in")
	}
	if _, err := os.Stat(wr.Path()); err != nil {
		t.Errorf("another state's rescue file was removed: %v", err)
	}
	if len(w.notes) != 1 || !strings.Contains(w.notes[0], "another state") {
		t.Errorf("notes %q", w.notes)
	}
}

// TestNothingCanKeepTheResult: no rescue file can be written either: the
// error says both failures, and it is no KeptError (the engine then shows
// the answer).
func TestNothingCanKeepTheResult(t *testing.T) {
	w := newLayerWorld(t)
	w.place = rescue.Place{} // no cache directory
	_, l, st, rec := w.startRun()
	defer l.Unlock()
	w.disk.full.Store(true)
	err := record(t, rec, st, enrichEv("ann"))
	if err == nil || errors.As(err, new(*KeptError)) || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), "no user cache directory") {
		t.Errorf("err = %v", err)
	}
}

// TestAbortStopsTheRetries: once the run is aborted (its context done), a
// failed write is not tried again: the result is kept at once.
func TestAbortStopsTheRetries(t *testing.T) {
	w := newLayerWorld(t)
	_, l, st, rec := w.startRun()
	defer l.Unlock()
	w.disk.full.Store(true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := enrichEv("ann")
	err := rec.(interface {
		AppendContext(context.Context, *state.Event) error
	}).AppendContext(ctx, e)
	if !errors.As(err, new(*KeptError)) || len(w.waits) != 0 {
		t.Errorf("err %v after %d waits; want kept at once", err, len(w.waits))
	}
	_ = st
}

const fullDiskConfig = `
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
enrich "all" {
  from = [search.s]
}
export "all" {
  path = "out/all.csv"
  sheet "s" {
    from = [search.s]
  }
}
`

// fillAt is a progress that fills the disk when the n-th enrichment is
// sent (after its pending note was written: its answer comes back to a
// full disk), and keeps the summary.
type fillAt struct {
	engine.NopProgress
	n, sent int
	disk    *disk
	sum     *engine.Summary
}

func (p *fillAt) CallStart(c engine.Call) {
	if c.Kind != kind.Enrich {
		return
	}
	if p.sent++; p.sent == p.n {
		p.disk.full.Store(true)
	}
}
func (p *fillAt) Summary(s *engine.Summary) { p.sum = s }

// TestApplyOnAFullDiskLosesNothing: the state's disk fills up in the
// middle of an apply (an injected write error: the same as a full file
// system, without mounting one). Every answer that came back is kept
// (the rescue file): the run's summary, the state every later command
// reads and the Summary sheet count exactly what the service charged;
// once space is freed, the next apply repeats no call that was answered
// and has nothing left to do after.
func TestApplyOnAFullDiskLosesNothing(t *testing.T) {
	for _, at := range []int{1, 3, 6} {
		t.Run(fmt.Sprintf("full at enrichment %d", at), func(t *testing.T) {
			w := newLayerWorld(t)
			dir := filepath.Dir(filepath.Dir(w.store.Path()))
			cfg, diags := config.Load(config.LoadOptions{Dir: dir, FS: fstest.MapFS{"main.leads.hcl": {Data: []byte(fullDiskConfig)}}})
			if diags.HasErrors() {
				t.Fatal(diags.Error())
			}
			sb := sandbox.New(sandbox.Options{Seed: 9, RateLimit: -1, NoLatency: true})
			svc, err := api.New(api.Options{Key: sandbox.DefaultKey, BaseURL: sandbox.BaseURL, BaseURLV2: sandbox.BaseURLV2,
				HTTPClient: &http.Client{Transport: sb.Transport()}, RateLimit: 50, Parallelism: 2, Pacer: api.NewPacer(50, 2, nil)})
			mustDo(t, err)
			deps := func() Deps {
				return Deps{Backend: w.layer(), Service: func() (api.Service, error) { return svc, nil }, Now: func() time.Time { return t0 },
					Interrupt: make(chan os.Signal)}
			}
			prog := &fillAt{n: at, disk: w.disk}
			err = Apply(context.Background(), deps(), ApplyOptions{Config: cfg, AutoApprove: true}, &recView{progress: prog})
			if err == nil {
				t.Fatal("the apply on a full disk succeeded")
			}
			charged := sb.Stats().CreditsSpent
			if prog.sum == nil || prog.sum.Credits != charged || prog.sum.CreditsUnknown != 0 || len(prog.sum.Unrecorded()) != 0 {
				t.Fatalf("summary %+v: want %d credits, as the sandbox charged, none unknown or unrecorded", prog.sum, charged)
			}
			if len(prog.sum.Kept) == 0 || prog.sum.KeptIn == "" {
				t.Errorf("nothing kept: %+v", prog.sum)
			}
			// Any command sees it all, from the rescue file.
			st, err := w.layer().Load()
			mustDo(t, err)
			if st.Usage.CreditsSpent != charged || st.Usage.CreditsUnknown != 0 {
				t.Errorf("the state read after counts %d credits (%d unknown); the sandbox charged %d", st.Usage.CreditsSpent, st.Usage.CreditsUnknown, charged)
			}

			// Space again: the next apply finishes, repeating nothing answered.
			w.disk.full.Store(false)
			before := sb.Stats()
			mustDo(t, Apply(context.Background(), deps(), ApplyOptions{Config: cfg, AutoApprove: true}, &recView{}))
			after := sb.Stats()
			for page, n := range after.Enriched {
				if n > 1 {
					t.Errorf("%s charged %d times", page, n)
				}
			}
			if n := after.ByOp[sandbox.OpSearch] - before.ByOp[sandbox.OpSearch]; n != 2-len(prog.sum.Searches) {
				t.Errorf("%d searches made again; %d of 2 had been answered", n, len(prog.sum.Searches))
			}
			st, err = w.store.Load()
			mustDo(t, err)
			if st.Usage.CreditsSpent != after.CreditsSpent {
				t.Errorf("the state counts %d credits, the sandbox charged %d", st.Usage.CreditsSpent, after.CreditsSpent)
			}
			sheet, err := os.ReadFile(filepath.Join(dir, "out", "all.summary.csv"))
			if err != nil || !strings.Contains(string(sheet), fmt.Sprintf("\"Credits spent, all runs\",%d,", after.CreditsSpent)) {
				t.Errorf("the Summary sheet (%v) does not count the %d credits charged:\n%s", err, after.CreditsSpent, sheet)
			}
			if files, _ := w.place.Read(); len(files) != 0 {
				t.Errorf("rescue files left: %v", files)
			}
		})
	}
}
