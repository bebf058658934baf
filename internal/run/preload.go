package run

import (
	"sync"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Preload starts opening b's state now, in the background, as a command
// that asks for what it needs opens it (backend.OpenBase: a store reads
// its records, a state file is read whole), and returns b whose first
// OpenBase returns that result. Its first Load returns the state read
// whole when that is what was read, and loads otherwise. plan uses it to
// read the state at its usual path while the configuration is parsed (on
// a large state file the two take about as long); it only reads, so
// reading early is safe.
func Preload(b backend.Backend) backend.Backend {
	p := &preloaded{Backend: b, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		defer recovered.Catch(&p.err) // a bug: the error of the first open
		p.base, p.err = backend.OpenBase(b)
	}()
	return p
}

type preloaded struct {
	backend.Backend
	done  chan struct{}
	mu    sync.Mutex
	taken bool
	base  *state.Base
	err   error
}

// Unwrap is the backend loaded early: its abilities stay visible.
func (p *preloaded) Unwrap() backend.Backend { return p.Backend }

// take reports, once, that what was read early (p.base, p.err) is the
// caller's; false after that.
func (p *preloaded) take() bool {
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.taken {
		return false
	}
	p.taken = true
	return true
}

// OpenBase returns the Base opened early the first time.
func (p *preloaded) OpenBase() (*state.Base, error) {
	if p.take() {
		b := p.base
		p.base = nil // the caller's now: it goes when the caller lets it go
		return b, p.err
	}
	return backend.OpenBase(p.Backend)
}

// Load returns the state read early the first time, when it was read
// whole (a state file); a store's records are let go and the state is
// loaded.
func (p *preloaded) Load() (*state.State, error) {
	if p.take() {
		if p.err != nil {
			return nil, p.err
		}
		if s, whole := p.base.Whole(); whole {
			return s, nil
		}
		if err := p.base.Close(); err != nil {
			return nil, err
		}
	}
	return p.Backend.Load()
}
