package sqlstate

import "github.com/leadsync/leadsync/internal/state"

var _ state.PeopleCounter = wrapped{}

// CountPeople counts the workspace's people (CountPeople), one question.
func (w wrapped) CountPeople() (int, error) {
	var n int
	err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(CountPeople), w.p.r.WS).Scan(&n)
	return n, w.err(err)
}
