package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// SelectKept is what a plan keeps of the people of the list $2 whom
// retention removes (state.KeptLister): the ID, last_seen, and the
// enrichment's block, copy and time, from the primary keys of people and
// enrichments, with nobody decoded whole.
// keptCopiedBy is the copy's block as SQLite reads it; pgKeptCopiedBy in
// PostgreSQL's spelling.
const (
	SelectKept = `SELECT ` + keptCols + ` FROM {s}.people p LEFT JOIN {s}.enrichments e
		ON e.workspace = p.workspace AND e.person_id = p.id WHERE p.workspace = $1 AND `
	keptCols       = `p.id, p.last_seen, e.by_address, ` + keptCopiedBy + `, e.enriched_at`
	keptCopiedBy   = `json_extract(e.extra, '$.copied_by')`
	pgKeptCopiedBy = `(e.extra->>'copied_by')`
)

func (w wrapped) Kept(ids []string, fn func(state.KeptPerson)) error {
	if len(ids) == 0 {
		return nil
	}
	return w.err(w.p.kept(ids, fn))
}

// kept runs SelectKept for ids. SQLite gives each row as one JSON array
// (packedValues says why).
func (p *peopleStore) kept(ids []string, fn func(state.KeptPerson)) error {
	list, err := p.r.D.List(ids)
	if err != nil {
		return err
	}
	q := SelectKept + p.r.D.inList("p.id", "$2")
	v := make([]sql.NullString, 5)
	scan := []any{&v[0], &v[1], &v[2], &v[3], &v[4]}
	var row string
	if p.r.D.packRows {
		q, scan = "SELECT json_array("+keptCols+")"+strings.TrimPrefix(q, "SELECT "+keptCols), []any{&row}
	}
	rows, err := p.r.query(p.ctx, q, p.r.WS, list)
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
