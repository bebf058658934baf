package sqlstate

import (
	"fmt"
	"time"

	"database/sql"

	"github.com/leadsync/leadsync/internal/state"
)

// SelectTrackSketched are the people holding an enrichment made by $2
// (state.TrackSketcher), the columns of state.TrackSketch alone, in the
// order of their IDs: SQLite reads the enrichments by their primary key
// then, without a sort, and each page of people once. Read in the order
// of enrichments_by, the people's pages were read at random, one pread
// each (17.9 s against 3.9 s at 1,000,000 enrichments in sqlite3). The
// cost: every enrichment of the workspace is read (0.13 s CPU a million).
const SelectTrackSketched = pgSelectTrackSketched + ` ORDER BY e.person_id`

// pgSelectTrackSketched is SelectTrackSketched on PostgreSQL, which joins
// the two tables by a hash in no order.
const pgSelectTrackSketched = `SELECT p.id, p.page_name, p.status, p.checked_at, p.profile_read_at
	FROM {s}.enrichments e JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id
	WHERE e.workspace = $1 AND e.by_n = ` + numberOf + `$2)`

var _ state.TrackSketcher = wrapped{}

func (w wrapped) TrackSketchEach(by string, fn func(state.TrackSketch) error) error {
	return w.err(w.p.trackSketchEach(by, fn))
}

// trackSketchEach runs SelectTrackSketched, one sketch at a time: none
// is held here (the caller packs them, state.TrackSketchBuilder).
func (p *peopleStore) trackSketchEach(by string, fn func(state.TrackSketch) error) error {
	rows, err := p.r.query(p.ctx, SelectTrackSketched, p.r.WS, by)
	if err != nil {
		return err
	}
	defer rows.Close()
	var checked, read sql.NullString
	s := state.TrackSketch{By: by}
	for rows.Next() {
		if err := rows.Scan(&s.ID, &s.PageName, &s.Status, &checked, &read); err != nil {
			return err
		}
		c, err := parseTimePtr(checked)
		if err != nil {
			return fmt.Errorf("checked_at of %s: %w", s.ID, err)
		}
		r, err := parseTimePtr(read)
		if err != nil {
			return fmt.Errorf("profile_read_at of %s: %w", s.ID, err)
		}
		s.Checked = time.Time{}
		if at := (&state.Person{CheckedAt: c, ProfileReadAt: r}).Checked(); at != nil {
			s.Checked = *at
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return rows.Err()
}
