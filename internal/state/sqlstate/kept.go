package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// The kept form of the people retention removes (state.KeptLister): the
// ID, last_seen, and the enrichment's block, copy and time, with nobody
// decoded whole. SelectKept reads those of the list $2 by the primary
// keys; SelectKeptBefore those seen before $2 (or never), as
// SelectSeenBefore lists them, in one pass of the index people_last_seen.
// keptSeen names the index in SQLite's spelling (PostgreSQL has no such
// words).
var (
	SelectKept       = `SELECT ` + keptCols + ` FROM {s}.people p` + keptJoin + `WHERE p.workspace = $1 AND `
	SelectKeptBefore = `SELECT ` + keptCols + ` FROM {s}.people p ` + keptSeen + keptJoin + `WHERE p.workspace = $1 AND p.last_seen < $2
		UNION ALL SELECT ` + keptCols + ` FROM {s}.people p ` + keptSeen + keptJoin + `WHERE p.workspace = $1 AND p.last_seen IS NULL`
	keptCols = `p.id, p.last_seen, ` + NameOf("$1", "e.by_n") + `, ` + NameOf("$1", "e.copied_n") + `, e.enriched_at`
	keptJoin = ` LEFT JOIN {s}.enrichments e ON e.workspace = p.workspace AND e.person_id = p.id `
	keptSeen = `INDEXED BY people_last_seen`
)

func (w wrapped) Kept(ids []string, fn func(state.KeptPerson)) error {
	if len(ids) == 0 {
		return nil
	}
	list, err := w.p.r.D.List(ids)
	if err != nil {
		return err
	}
	return w.err(w.p.kept(SelectKept+w.p.r.D.inList("p.id", "$2"), fn, list))
}

func (w wrapped) KeptBefore(t time.Time, fn func(state.KeptPerson)) error {
	return w.err(w.p.kept(SelectKeptBefore, fn, w.p.r.D.TimeValue(t)))
}

// kept runs q, a query of keptCols, with the workspace and arg. SQLite
// gives each row as one JSON array (packedValues says why).
func (p *peopleStore) kept(q string, fn func(state.KeptPerson), arg any) error {
	v := make([]sql.NullString, 5)
	scan := []any{&v[0], &v[1], &v[2], &v[3], &v[4]}
	var row string
	if p.r.D.packRows {
		q, scan = strings.ReplaceAll(q, "SELECT "+keptCols, "SELECT json_array("+keptCols+")"), []any{&row}
	}
	rows, err := p.r.query(p.ctx, q, p.r.WS, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	var seen, at timeMemo
	for rows.Next() {
		if err := rows.Scan(scan...); err != nil {
			return err
		}
		if p.r.D.packRows {
			if err := splitPacked(row, v); err != nil {
				return err
			}
		}
		k := state.KeptPerson{ID: v[0].String, Enriched: v[2].Valid, By: v[2].String, CopiedBy: v[3].String}
		if k.LastSeen, err = seen.parse(v[1]); err == nil {
			k.EnrichedAt, err = at.parse(v[4])
		}
		if err != nil {
			return fmt.Errorf("person %s: %w", k.ID, err)
		}
		fn(k)
	}
	return rows.Err()
}

var _ state.KeptLister = wrapped{}
