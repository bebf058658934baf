package sqlstate

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
)

// The removal form of people (state.RemovalReader): what a retention
// removal changes of someone a partial state did not read, with nobody
// decoded whole. A page of 5,000 people read whole, with their
// enrichments, took 4 of the 15 s of CPU of an apply removing 990,000.
// SelectRemoving gives each person's found_by, the numbers of their
// enrichment's block and copy, and their extra (the tracks that read
// them); SelectRemovingHistory the numbers of the calls their history
// names, each once.
var (
	// SelectRemoving looks up each enrichment by its key: joined,
	// PostgreSQL hashed the whole table for each page (310 ms a page of
	// 5,000 against 130 ms).
	SelectRemoving = `SELECT p.id, p.found_by, (SELECT e.by_n FROM {s}.enrichments e WHERE ` + enrichmentOfP + `),
		(SELECT e.copied_n FROM {s}.enrichments e WHERE ` + enrichmentOfP + `), p.extra FROM {s}.people p WHERE p.workspace = $1 AND `
	SelectRemovingHistory = `SELECT DISTINCT person_id, by_n FROM {s}.person_history WHERE workspace = $1 AND `
	// selectRemovingPacked is SelectRemoving's columns as one JSON array,
	// as SQLite gives a person (packed.go), the numbers as texts; SQLite
	// joins the enrichments by key (one look a person, not two).
	selectRemovingPacked = `SELECT json_array(p.id, p.found_by, CAST(e.by_n AS TEXT), CAST(e.copied_n AS TEXT), p.extra) FROM {s}.people p` +
		keptJoin + `WHERE p.workspace = $1 AND `
	enrichmentOfP = `e.workspace = p.workspace AND e.person_id = p.id`
)

// removingCols counts SelectRemoving's columns; found_by is the second.
const removingCols, removingFoundBy = 5, 1

var _ state.RemovalReader = wrapped{}

func (w wrapped) Removing(ids []string) ([]*state.Person, error) {
	ps, err := w.p.removing(ids)
	return ps, w.err(err)
}

// removing reads the removal form of the people of ids: each person's
// ID, FoundBy, the block and copy of their enrichment (no result), their
// Tracked reads and one Drift (By alone) a call their history names.
func (p *peopleStore) removing(ids []string) ([]*state.Person, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, names, err := p.listNamed(ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*state.Person, len(ids))
	if err := p.removingRows(list, names, byID); err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	if len(byID) == 0 {
		return nil, nil
	}
	if err := p.removingHistory(ids, list, names, byID); err != nil {
		return nil, fmt.Errorf("person history: %w", err)
	}
	return inAskedOrder(ids, byID), nil
}

// removingRows reads SelectRemoving's rows of the people of list into
// byID, with the store's decoder held meanwhile.
func (p *peopleStore) removingRows(list any, names *blockNames, byID map[string]*state.Person) error {
	d := p.dec
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.names(p.ctx, p.r); err != nil {
		return err
	}
	q, foundBy := SelectRemoving, p.r.D.listText("p.found_by")
	if p.r.D.packRows {
		q = selectRemovingPacked
	}
	q = strings.Replace(q, "p.found_by", foundBy, 1)
	rows, err := p.r.query(p.ctx, q+p.r.D.inList("p.id", "$2"), p.r.WS, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	v := make([]sql.NullString, removingCols)
	scan := []any{&v[0], &v[1], &v[2], &v[3], &v[4]}
	var row string
	if p.r.D.packRows {
		scan = []any{&row}
	}
	for rows.Next() {
		if err := rows.Scan(scan...); err != nil {
			return err
		}
		escaped := false
		if p.r.D.packRows {
			// found_by is left as the row holds it: d shares its list by that text.
			if escaped, err = cutPacked(row, v, removingFoundBy); err != nil {
				return err
			}
		}
		q, err := removalPerson(v, d, names, p.r.D.packRows, escaped)
		if err != nil {
			return fmt.Errorf("person %s: %w", v[0].String, err)
		}
		byID[q.ID] = q
	}
	return rows.Err()
}

// removalPerson is the removal form of the values v (SelectRemoving's
// columns); its ID is a copy, so that the row is not kept with it.
func removalPerson(v []sql.NullString, d *personDecoder, names *blockNames, packed, escaped bool) (*state.Person, error) {
	q := &state.Person{ID: strings.Clone(v[0].String)}
	var err error
	if q.FoundBy, err = d.foundBy(v[removingFoundBy], packed, escaped); err != nil {
		return nil, err
	}
	if v[2].Valid {
		e := &state.Enrichment{}
		if e.By, err = names.text(v[2]); err != nil {
			return nil, err
		}
		if e.CopiedBy, err = names.text(v[3]); err != nil {
			return nil, err
		}
		q.Enrichment = e
	}
	if v[4].Valid {
		// The extra holds the tracks' reads among the fields without a
		// column: only those are kept.
		var x state.Person
		if err := PersonExtra.Decode([]byte(v[4].String), &x); err != nil {
			return nil, err
		}
		q.Tracked = x.Tracked
	}
	return q, nil
}

// removingHistory gives each person of byID one Drift (By alone) for
// each call their history names. On SQLite it first asks whether any
// history lies between the IDs, as attach does.
func (p *peopleStore) removingHistory(ids []string, list any, names *blockNames, byID map[string]*state.Person) error {
	if none, err := p.noHistoryBetween(slices.Min(ids), slices.Max(ids)); err != nil || none {
		return err
	}
	rows, err := p.r.query(p.ctx, SelectRemovingHistory+p.r.D.inList("person_id", "$2"), p.r.WS, list)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var by sql.NullInt64
		if err := rows.Scan(&id, &by); err != nil {
			return err
		}
		var d state.Drift
		if d.By, err = names.of(by); err != nil {
			return fmt.Errorf("of %s: %w", id, err)
		}
		if q := byID[id]; q != nil {
			q.History = append(q.History, d)
		}
	}
	return rows.Err()
}
