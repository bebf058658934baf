package sqlstate

import (
	"errors"

	"github.com/leadsync/leadsync/internal/state"
)

// errNoPageStream is StreamPages' when the Reader has no PageStream.
var errNoPageStream = errors.New("no stream of pages of people on this database")

var _ state.PageStreamer = wrapped{}

// StreamsPages reports whether the Reader has a PageStream.
func (w wrapped) StreamsPages() bool { return w.p.r.PageStream != nil }

// StreamPages reads pages of people in one pass through the Reader's
// PageStream (state.PageStreamer), in the store's snapshot until Unpin
// ends it.
func (w wrapped) StreamPages(next func() ([]string, bool), fn func([]*state.Person) bool) error {
	p := w.p
	if p.r.PageStream == nil {
		return errNoPageStream
	}
	return w.err(p.r.PageStream(p.ctx, p.pinned(), next, fn))
}
