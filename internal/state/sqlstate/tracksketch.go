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
// cost: every enrichment of the workspace is read (0.13 s CPU a million),
// so it is for a block holding a large share of them (sketchInIDOrder).
const SelectTrackSketched = pgSelectTrackSketched + ` ORDER BY e.person_id`

// SelectTrackSketchedFew are SelectTrackSketched's people, found through
// the index enrichments_by: for a block holding few of the workspace's
// enrichments, whose people are read at random but no other block's
// enrichment is read.
const SelectTrackSketchedFew = sketchedFrom + `INDEXED BY enrichments_by ` + sketchedJoin

// pgSelectTrackSketched is SelectTrackSketched on PostgreSQL, which joins
// the two tables by a hash in no order.
const pgSelectTrackSketched = sketchedFrom + sketchedJoin

// sketchedFrom and sketchedJoin are the two halves of the queries of
// track sketches, around the index SQLite is told to read.
const (
	sketchedFrom = `SELECT p.id, p.page_name, p.status, p.checked_at, p.profile_read_at
	FROM {s}.enrichments e `
	sketchedJoin = `JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id
	WHERE e.workspace = $1 AND e.by_n = ` + numberOf + `$2)`
)

// CountOtherEnrichedUpTo counts the enrichments of the workspace made by
// another block than $2, up to $3 on either side of its number in the
// index enrichments_by: at most 2×$3 entries of it read.
const CountOtherEnrichedUpTo = `SELECT
	(SELECT count(*) FROM (SELECT 1 FROM {s}.enrichments WHERE workspace = $1 AND by_n < ` + numberOf + `$2) LIMIT $3) AS l) +
	(SELECT count(*) FROM (SELECT 1 FROM {s}.enrichments WHERE workspace = $1 AND by_n > ` + numberOf + `$2) LIMIT $3) AS r)`

var _ state.TrackSketcher = wrapped{}

func (w wrapped) TrackSketchEach(by string, fn func(state.TrackSketch) error) error {
	return w.err(w.p.trackSketchEach(by, fn))
}

// trackSketchEach runs SelectTrackSketched, or SelectTrackSketchedFew
// (sketchInIDOrder), one sketch at a time: none is held here (the caller
// packs them, state.TrackSketchBuilder).
func (p *peopleStore) trackSketchEach(by string, fn func(state.TrackSketch) error) error {
	q, err := p.trackSketchQuery(by)
	if err != nil {
		return err
	}
	rows, err := p.r.query(p.ctx, q, p.r.WS, by)
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

// trackSketchQuery is the query of the track sketches of block by: on
// SQLite, SelectTrackSketched when by made a large share of the
// workspace's enrichments (sketchInIDOrder), else SelectTrackSketchedFew.
// Both counts read only entries of enrichments_by. On PostgreSQL, both
// are the same query.
func (p *peopleStore) trackSketchQuery(by string) (string, error) {
	if p.r.D.Name != SQLite.Name {
		return SelectTrackSketched, nil
	}
	var n, others int
	if err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(CountEnrichedBy), p.r.WS, by).Scan(&n); err != nil {
		return "", fmt.Errorf("counting the enrichments of %s: %w", by, err)
	}
	most := (sketchShare - 1) * n
	if err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(CountOtherEnrichedUpTo), p.r.WS, by, most).Scan(&others); err != nil {
		return "", fmt.Errorf("counting the enrichments beside %s: %w", by, err)
	}
	if sketchInIDOrder(n, others) {
		return SelectTrackSketched, nil
	}
	return SelectTrackSketchedFew, nil
}

// sketchShare: a block that made at least one in sketchShare of the
// workspace's enrichments has its track sketches read in the order of
// IDs. In sqlite3, over 335,000 enrichments, the ordered read costs
// 0.54 µs CPU an enrichment of the workspace, the read through
// enrichments_by 4.3 µs a person of the block, at random on the disk.
const sketchShare = 8

// sketchInIDOrder says whether the track sketches of a block that made n
// of the workspace's enrichments, others by other blocks (counted up to
// (sketchShare-1)×n on either side), are read in the order of IDs
// (SelectTrackSketched). A small block is read through enrichments_by:
// one of 1,000 beside 1,000,000 read every enrichment (0.3 s), 171 MB
// from the disk when cold.
func sketchInIDOrder(n, others int) bool {
	return n > 0 && others < (sketchShare-1)*n
}
