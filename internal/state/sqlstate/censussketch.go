package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// selectCensusSketched are the people of an enrich block's enrichments
// up to a time (SelectSketched's), the columns of state.CensusSketch
// alone: the lead fields' columns go in (%s, each after a comma).
const selectCensusSketched = `SELECT e.person_id, p.status, e.enriched_at%s FROM {s}.enrichments e
	JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id
	WHERE e.workspace = $1 AND e.by_n = ` + numberOf + `$2) AND e.enriched_at <= $3`

var _ state.CensusSketcher = wrapped{}

func (w wrapped) CensusSketchEach(by string, before time.Time, keys []string, fn func(state.CensusSketch) error) error {
	return w.err(w.p.censusSketchEach(by, before, keys, fn))
}

// censusSketchEach runs selectCensusSketched, one sketch at a time: none
// is held here (the caller packs them, state.CensusSketchBuilder).
func (p *peopleStore) censusSketchEach(by string, before time.Time, keys []string, fn func(state.CensusSketch) error) error {
	fields, err := state.SketchFields(keys)
	if err != nil {
		return err
	}
	var cols strings.Builder
	for _, f := range fields {
		cols.WriteString(", p." + f.PG)
	}
	rows, err := p.r.query(p.ctx, fmt.Sprintf(selectCensusSketched, cols.String()), p.r.WS, by, p.r.D.TimeValue(before))
	if err != nil {
		return err
	}
	defer rows.Close()
	s := state.CensusSketch{By: by, Fields: make([]string, len(fields))}
	var at sql.NullString
	dst := []any{&s.ID, &s.Status, &at}
	for i := range s.Fields {
		dst = append(dst, &s.Fields[i])
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		if s.EnrichedAt, err = parseTime(at); err != nil {
			return fmt.Errorf("enrichment of %s: %w", s.ID, err)
		}
		if err := fn(s); err != nil {
			return err
		}
	}
	return rows.Err()
}
