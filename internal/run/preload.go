package run

import (
	"sync"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Preload starts loading b's state now, in the background, and returns b
// whose first Load returns that result (later ones load again). plan uses
// it to read the state at its usual path while the configuration is parsed
// (on large states the two take about as long); it only reads, so reading
// early is safe.
func Preload(b backend.Backend) backend.Backend {
	p := &preloaded{Backend: b, done: make(chan struct{})}
	go func() {
		p.st, p.err = b.Load()
		close(p.done)
	}()
	return p
}

type preloaded struct {
	backend.Backend
	done chan struct{}
	once sync.Once
	st   *state.State
	err  error
}

// Unwrap is the backend loaded early: its abilities stay visible.
func (p *preloaded) Unwrap() backend.Backend { return p.Backend }

func (p *preloaded) Load() (*state.State, error) {
	<-p.done
	first := false
	p.once.Do(func() { first = true })
	if first {
		return p.st, p.err
	}
	return p.Backend.Load()
}
