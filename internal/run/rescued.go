package run

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/run/rescue"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// A paid answer survives a failed write. Every command opens its state
// through Rescuing, a layer around any backend (the reasons are in
// docs/decisions.md):
//
//   - each event an operation records gets a mark (state.EventMark), and a
//     write that fails is tried again after RescueOptions.Delays (the
//     engine starts no call meanwhile);
//   - an event that still cannot be written, and every event of that
//     recording after it, goes to the recording's rescue file
//     (internal/run/rescue, in the user's cache directory), and Append
//     returns a *KeptError: the engine counts the result as recorded and
//     stops the run. A pending note is never kept: its call is not sent;
//   - when even the rescue file cannot be written, Append fails: the
//     engine reports the answer (views print it on standard error);
//   - Load folds the rescue files of the state into what the backend
//     gave, before anything else, for every command; under the lock
//     (apply, forget, state rm, ...) it writes them into the state (a
//     Commit) and removes the files. The marks make a second copy of an
//     event count once (a database that committed a write whose answer
//     was lost, then the rescue of the same event).

// WriteRetryDelays are the waits before each new try of a write that
// failed: about a minute in all, long enough for a database to restart or
// a disk to be cleaned, short enough that a run does not hang on a state
// that stays unwritable (its answers then go to the rescue file).
var WriteRetryDelays = []time.Duration{500 * time.Millisecond, time.Second, 2 * time.Second, 4 * time.Second,
	8 * time.Second, 15 * time.Second, 30 * time.Second}

// RescueOptions configure Rescuing.
type RescueOptions struct {
	// Place is where the state's rescue files are (rescue.PlaceIn); with
	// an empty Dir (no cache directory) nothing can be kept there.
	Place rescue.Place
	// Now is the clock of the files' headers; time.Now when nil. After
	// waits before a new try of a failed write; time.After when nil.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
	// Delays are the waits before each new try; WriteRetryDelays when nil.
	Delays []time.Duration
	// Notify receives one-line notes for the user (a write tried again,
	// results of an earlier run folded in); nil drops them.
	Notify func(note string)
}

// Rescuing returns b within the rescue layer described above. The layer
// is a backend.Wrapper: b's abilities stay visible through it.
func Rescuing(b backend.Backend, opts RescueOptions) backend.Backend {
	return &rescuing{Backend: b, opts: opts}
}

// KeptError is the error of the layer's Append for an event it could not
// write where the state lives and kept in the rescue file Path: the event
// is recorded all the same (engine.Journal says how the engine takes it).
type KeptError struct {
	Path  string
	Cause error
}

func (e *KeptError) Error() string  { return fmt.Sprintf("%v (kept in %s)", e.Cause, e.Path) }
func (e *KeptError) Unwrap() error  { return e.Cause }
func (e *KeptError) KeptIn() string { return e.Path }

type rescuing struct {
	backend.Backend
	opts RescueOptions

	mu    sync.Mutex
	locks int             // locks taken through the layer and held
	rec   *rescueRecorder // the recording opened last
}

var _ backend.Wrapper = (*rescuing)(nil)

func (r *rescuing) Unwrap() backend.Backend { return r.Backend }

func (r *rescuing) note(format string, args ...any) {
	if r.opts.Notify != nil {
		r.opts.Notify(fmt.Sprintf(format, args...))
	}
}

func (r *rescuing) now() time.Time {
	if r.opts.Now != nil {
		return r.opts.Now()
	}
	return time.Now()
}

func (r *rescuing) after(d time.Duration) <-chan time.Time {
	if r.opts.After != nil {
		return r.opts.After(d)
	}
	return time.After(d)
}

func (r *rescuing) delays() []time.Duration {
	if r.opts.Delays != nil {
		return r.opts.Delays
	}
	return WriteRetryDelays
}

func (r *rescuing) Lock(op string) (backend.Unlocker, error) {
	return r.held(r.Backend.Lock(op))
}

func (r *rescuing) LockWait(ctx context.Context, op string, timeout time.Duration) (backend.Unlocker, error) {
	return r.held(r.Backend.LockWait(ctx, op, timeout))
}

// held counts a lock taken, until its Unlock.
func (r *rescuing) held(u backend.Unlocker, err error) (backend.Unlocker, error) {
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.locks++
	r.mu.Unlock()
	return &rescueUnlocker{Unlocker: u, r: r}, nil
}

type rescueUnlocker struct {
	backend.Unlocker
	r    *rescuing
	once sync.Once
}

func (u *rescueUnlocker) Unlock() error {
	u.once.Do(func() {
		u.r.mu.Lock()
		u.r.locks--
		u.r.mu.Unlock()
	})
	return u.Unlocker.Unlock()
}

func (r *rescuing) locked() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.locks > 0
}

// Load is the backend's state with the results of the state's rescue
// files folded in; under the lock, they are written into the state and
// the files removed (settle).
func (r *rescuing) Load() (*state.State, error) {
	st, err := r.Backend.Load()
	if err != nil {
		return nil, err
	}
	files, err := r.opts.Place.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: it holds results that were paid for; keep it, and tell the developers of leadsync", err)
	}
	locked := r.locked()
	files, folded, err := r.fold(st, files, !locked)
	if err != nil {
		return nil, err
	}
	if locked {
		if err := r.settle(st, files, folded); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// fold folds into st the events of the files that belong to it (its
// lineage), and returns those files and how many of their events st did
// not hold yet; say notes each file that added some.
func (r *rescuing) fold(st *state.State, files []*rescue.File, say bool) ([]*rescue.File, int, error) {
	var mine []*rescue.File
	folded := 0
	for _, f := range files {
		if f.Header.Lineage != st.Lineage {
			r.note("the rescue file %s keeps results of another state (lineage %s, %s), not of %s (lineage %s): it is left as it is",
				f.Path, f.Header.Lineage, f.Header.State, r.Describe(), st.Lineage)
			continue
		}
		mine = append(mine, f)
		before := st.Marks[f.Header.Run]
		for _, e := range f.Events {
			if err := st.Fold(e); err != nil {
				return nil, 0, fmt.Errorf("the rescue file %s: a result (%s %s) cannot be folded into the state: %w", f.Path, e.Kind, e.Address, err)
			}
		}
		if n := newEvents(f, before); n > 0 {
			folded += n
			if !say {
				continue
			}
			r.note("%s kept in %s (the state could not be written when %s came back) %s included",
				textfmt.Plural(n, "result"), f.Path, oneOr(n, "it", "they"), oneOr(n, "is", "are"))
		}
	}
	return mine, folded, nil
}

// newEvents counts the events of f after the mark before.
func newEvents(f *rescue.File, before uint64) int {
	n := 0
	for _, e := range f.Events {
		if e.Mark != nil && e.Mark.Seq > before {
			n++
		}
	}
	return n
}

// settle writes what the files added into the state (under the lock),
// removes each file whose every event the state now holds (unless its
// writer still runs), and drops the marks no file needs any more.
func (r *rescuing) settle(st *state.State, files []*rescue.File, folded int) error {
	if folded > 0 {
		if err := r.Backend.Commit(st); err != nil {
			return fmt.Errorf("writing into %s the results kept in %s: %w; they stay there, and the next command tries again",
				r.Describe(), paths(files), err)
		}
		r.note("wrote into %s the %s an earlier apply kept in %s (the state could not be written when %s came back)",
			r.Describe(), textfmt.Plural(folded, "result"), paths(files), oneOr(folded, "it", "they"))
	}
	left := map[string]bool{}
	if rec := r.current(); rec != nil {
		left[rec.run] = true
	}
	for _, f := range files {
		removed := false
		if last := lastSeq(f); st.Marks[f.Header.Run] >= last {
			var err error
			if removed, err = rescue.Remove(f.Path); err != nil {
				r.note("the rescue file %s is written into the state but cannot be removed (%v); it is harmless, and may be deleted", f.Path, err)
			}
		}
		if !removed {
			left[f.Header.Run] = true
		}
	}
	st.DropMarks(func(run string) bool { return left[run] })
	return nil
}

// lastSeq is the mark of the last event of f.
func lastSeq(f *rescue.File) uint64 {
	var last uint64
	for _, e := range f.Events {
		if e.Mark != nil && e.Mark.Seq > last {
			last = e.Mark.Seq
		}
	}
	return last
}

func paths(files []*rescue.File) string {
	var ps []string
	for _, f := range files {
		ps = append(ps, f.Path)
	}
	return strings.Join(ps, ", ")
}

func (r *rescuing) current() *rescueRecorder {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rec
}

// OpenJournal opens the backend's recording within the layer's.
func (r *rescuing) OpenJournal(s *state.State) (backend.Recorder, error) {
	inner, err := r.Backend.OpenJournal(s)
	if err != nil {
		return nil, err
	}
	run := state.NewUUID()
	rec := &rescueRecorder{inner: inner, layer: r, run: run,
		file: r.opts.Place.NewWriter(rescue.Header{Run: run, Lineage: s.Lineage, Created: r.now().UTC(), State: r.Describe()})}
	r.mu.Lock()
	r.rec = rec
	r.mu.Unlock()
	return rec, nil
}

// Commit commits s; the rescue file of the recording, when s now holds
// all it kept, is removed.
func (r *rescuing) Commit(s *state.State) error {
	if err := r.Backend.Commit(s); err != nil {
		return err
	}
	if rec := r.current(); rec != nil {
		rec.settled(s)
	}
	return nil
}

// rescueRecorder is the layer's recording: the backend's, tried again
// while it fails, then the rescue file.
type rescueRecorder struct {
	inner backend.Recorder
	layer *rescuing
	run   string
	file  *rescue.Writer

	mu  sync.Mutex
	seq uint64
	// cause is why the state cannot be written, once an event was kept in
	// the rescue file: every later one goes there too, in order.
	cause error
	kept  uint64 // the mark of the last event kept in the file
}

var _ backend.Recorder = (*rescueRecorder)(nil)

// Append is AppendContext without a context.
func (w *rescueRecorder) Append(e *state.Event) error {
	return w.AppendContext(context.Background(), e)
}

// AppendContext marks e (an event appended again keeps its mark), writes
// it with the backend's recorder, trying again while that fails, and
// keeps it in the rescue file when it cannot be written (a *KeptError).
// Once the run is aborted (ctx done) a failed write is not tried again.
func (w *rescueRecorder) AppendContext(ctx context.Context, e *state.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.Mark == nil {
		w.seq++
		e.Mark = &state.EventMark{Run: w.run, Seq: w.seq}
	}
	pending := e.Kind == state.EventEnrichPending
	switch {
	case w.cause != nil && pending:
		return fmt.Errorf("the state cannot be written (%w), so no call is sent", w.cause)
	case w.cause == nil:
		err := w.write(ctx, e)
		if err == nil || recordedAnyway(err) || pending {
			return err
		}
		w.cause = err
	}
	return w.keep(e)
}

// Checkpoint writes what the recorded calls changed with the backend's
// recorder, when it can (engine.Checkpointer); nothing once events go to
// the rescue file.
func (w *rescueRecorder) Checkpoint(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	cp, ok := w.inner.(engine.Checkpointer)
	if w.cause != nil || !ok {
		return nil
	}
	return cp.Checkpoint(ctx)
}

// write appends e with the backend's recorder, again after each of the
// layer's delays while that fails.
func (w *rescueRecorder) write(ctx context.Context, e *state.Event) error {
	var last error
	err := w.layer.retried(ctx, "recording a result", func() error {
		if last = w.inner.Append(e); recordedAnyway(last) {
			return nil
		}
		return last
	})
	if err == nil {
		return last // nil, or recorded anyway
	}
	return err
}

// retried runs op, then again after each of the layer's delays while it
// fails (noting each failure), until ctx is done; it returns op's last
// error. The caller starts no new call meanwhile: a database that
// restarts, or a disk being cleaned, does not end the run. A write the
// state refuses (state.RefusedError) is a bug, not a failure that passes:
// it is not tried again.
func (r *rescuing) retried(ctx context.Context, what string, op func() error) error {
	err := op()
	for _, d := range r.delays() {
		if err == nil || ctx.Err() != nil || errors.As(err, new(*state.RefusedError)) {
			return err
		}
		r.note("%s in %s failed (%v); trying again in %s, and starting no new call meanwhile", what, r.Describe(), err, d)
		select {
		case <-r.after(d):
		case <-ctx.Done():
			return err
		}
		err = op()
	}
	return err
}

// rescuingIn is the rescue layer b is within, nil when none.
func rescuingIn(b backend.Backend) *rescuing {
	for b != nil {
		if r, ok := b.(*rescuing); ok {
			return r
		}
		w, ok := b.(backend.Wrapper)
		if !ok {
			return nil
		}
		b = w.Unwrap()
	}
	return nil
}

// keep writes e to the rescue file.
func (w *rescueRecorder) keep(e *state.Event) error {
	if err := w.file.Append(e); err != nil {
		where := w.layer.opts.Place.Dir
		if where == "" {
			where = "the user's cache directory (there is none)"
		}
		return fmt.Errorf("%w; keeping it in a rescue file in %s failed too: %v", w.cause, where, err)
	}
	w.kept = e.Mark.Seq
	return &KeptError{Path: w.file.Path(), Cause: w.cause}
}

// settled removes the rescue file once s holds every event it kept.
func (w *rescueRecorder) settled(s *state.State) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.kept == 0 || s.Marks[w.run] < w.kept {
		return
	}
	if err := w.file.Remove(); err != nil {
		w.layer.note("the rescue file %s is written into the state but cannot be removed (%v); it is harmless, and may be deleted", w.file.Path(), err)
	}
	w.kept = 0
}

// Close ends the backend's recording and lets the rescue file go (it
// stays for the next command).
func (w *rescueRecorder) Close() error {
	return w.CloseContext(context.Background())
}

// CloseContext is Close whose write stops when ctx is done, when the
// backend's recorder can (closeRecorder).
func (w *rescueRecorder) CloseContext(ctx context.Context) error {
	err := closeRecorder(ctx, w.inner)
	if cerr := w.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// recordedAnyway reports whether err of a recorder's Append says the event
// is recorded all the same (backend.Recorder).
func recordedAnyway(err error) bool {
	var rec interface{ Recorded() bool }
	return errors.As(err, &rec) && rec.Recorded()
}

// oneOr is one when n is 1, else many.
func oneOr(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// OpenBase is the backend's Base, or, while rescue files keep results
// (which fold into the state read whole), the state Load gives.
func (r *rescuing) OpenBase() (*state.Base, error) {
	files, err := r.opts.Place.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: it holds results that were paid for; keep it, and tell the developers of leadsync", err)
	}
	if len(files) == 0 {
		return backend.OpenBase(r.Backend)
	}
	st, err := r.Load()
	if err != nil {
		return nil, err
	}
	return state.NewBase(st), nil
}
