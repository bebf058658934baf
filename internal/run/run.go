package run

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Deps is the world an operation runs in.
type Deps struct {
	// Backend is where the state lives.
	Backend backend.Backend
	// Service builds the client of the service; it is called once, when the
	// operation first needs a call (apply: once it holds the lock, in the
	// background while it reads the state, serviceAhead).
	Service func() (api.Service, error)
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Interrupt delivers interrupts (Ctrl-C) to an apply; nil means the
	// process's own SIGINT and SIGTERM.
	Interrupt <-chan os.Signal
	// Exists reports whether the state Load gave was ever written; nil
	// judges by its serial and contents.
	Exists func(*state.State) bool
	// Account names the API account (api.AccountID of its key, never the
	// key) whose spending leadsync { budget } counts; "" when no key is
	// known (then the budget is not checked).
	Account string
}

func (d *Deps) exists(st *state.State) bool {
	if d.Exists != nil {
		return d.Exists(st)
	}
	return st.Serial > 0 || !st.IsEmpty()
}

func (d *Deps) now() time.Time {
	if d.Now == nil {
		return time.Now()
	}
	return d.Now()
}

func (d *Deps) clock() func() time.Time {
	if d.Now == nil {
		return time.Now
	}
	return d.Now
}

// HasBilling reports whether cfg reaches the first generation of the
// service, whose billing operation says how many requests are left this
// month (the second generation has none).
func HasBilling(cfg *config.Config) bool {
	return cfg.API.Sandbox || cfg.API.BaseURL != ""
}

// ErrCancelled is returned by Apply when the confirmation was refused.
var ErrCancelled = errors.New("apply cancelled")

// ErrAborted is returned by Apply after a second interrupt: it exited at
// once, and every finished call is recorded (the next command folds it in).
var ErrAborted = errors.New("apply aborted; every finished call is recorded")

// ErrSheetsSkipped is returned by Apply after a second interrupt while it
// wrote the spreadsheets: the state was saved, and their writer stopped
// at its next batch of rows or rename (export.ErrStopped), leaving the
// files not yet in place to leadsync export. It is an ErrAborted.
var ErrSheetsSkipped = fmt.Errorf("the spreadsheets were skipped, the state saved: %w", ErrAborted)

// ErrFailed is returned by Apply when the run finished, state and exports
// are written, but a call failed or the run stopped early (the progress
// view has said which).
var ErrFailed = errors.New("some calls failed or the run stopped early")

// DiagnosticsError carries the errors (and warnings) of building a plan;
// the caller prints them.
type DiagnosticsError struct {
	Diags hcl.Diagnostics
}

func (e *DiagnosticsError) Error() string { return e.Diags.Error() }

// BillingError is a failed billing call (or a failure to build the client
// for it) made before planning.
type BillingError struct {
	Err error
}

func (e *BillingError) Error() string {
	return fmt.Sprintf("reading the remaining requests: %v", e.Err)
}
func (e *BillingError) Unwrap() error { return e.Err }

// ErrBlankPerson is returned by Forget when a PERSON is empty.
var ErrBlankPerson = errors.New("forget: a PERSON is empty; give a network ID, a page name or a profile URL")

// heldLock releases a state lock once: the deferred release covers the
// early returns, and the success path returns the unlock's own error.
type heldLock struct {
	u    backend.Unlocker
	done bool
}

// lockState takes the state's lock for the operation op.
func lockState(d Deps, op string) (*heldLock, error) {
	u, err := d.Backend.Lock(op)
	if err != nil {
		return nil, err
	}
	return &heldLock{u: u}, nil
}

// lockWritable takes the state's lock for the operation op and opens the
// state to change as the backend's Base (state.Base.Writable): a stored
// Base gives a partial state, which reads only the people the operation
// touches; a state file, a state with calls not folded in yet, rescue
// files or an erasure not honoured yet give the state read whole. A state
// never written is ErrNoState. On an error the lock is released;
// otherwise the caller calls done, which ends the Base's snapshot, before
// it commits (and once more, deferred: a second call does nothing), and
// releases the lock.
func lockWritable(d Deps, op string) (lock *heldLock, s *state.State, done func() error, err error) {
	if lock, err = lockState(d, op); err != nil {
		return nil, nil, nil, err
	}
	base, err := backend.OpenBase(d.Backend)
	if err != nil {
		lock.release()
		return nil, nil, nil, err
	}
	done = sync.OnceValue(base.Close)
	s, err = base.Writable()
	if err == nil && !d.exists(s) {
		err = ErrNoState
	}
	if err != nil {
		done()
		lock.release()
		return nil, nil, nil, err
	}
	return lock, s, done, nil
}

func (h *heldLock) release() error {
	if h.done {
		return nil
	}
	h.done = true
	return h.u.Unlock()
}
