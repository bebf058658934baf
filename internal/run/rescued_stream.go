package run

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/state/backend"
)

var _ backend.Streamer = (*rescuing)(nil)

// OpenStream reads the state as a backend.Stream (state push, state
// pull): the wrapped backend's own when no rescue file waits, else loaded
// whole, as Load folds the rescue files' results in.
func (r *rescuing) OpenStream() (backend.Stream, error) {
	files, err := r.opts.Place.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: it holds results that were paid for; keep it, and tell the developers of leadsync", err)
	}
	if len(files) == 0 {
		return backend.OpenStream(r.Backend)
	}
	s, err := r.Load()
	if err != nil {
		return nil, err
	}
	return backend.MemoryStream(s, r.Describe()), nil
}
