package sqlstate

import (
	"database/sql"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

var _ state.EnrichmentKeyReader = wrapped{}

// KeyedEnrichments reads, of the people of ids holding an enrichment,
// their enrichments, network IDs and page names alone
// (state.EnrichmentKeyReader): what another workspace asks of them, in
// one query, not the people whole.
func (w wrapped) KeyedEnrichments(ids []string) ([]*state.Person, error) {
	ps, err := w.p.keyedEnrichments(ids)
	return ps, w.err(err)
}

// keyedEnrichmentCols are the columns keyedEnrichments reads: an
// enrichment's, as SelectEnrichmentsPacked gives them, then its person's
// network ID and page name.
var keyedEnrichmentCols = []string{"e.person_id", "e.enriched_at", "CAST(e.by_n AS TEXT)", "CAST(e.copied_n AS TEXT)",
	packedResultCols("e."), "e.extra", "p.network_id", "p.page_name"}

// keyedEnrichmentWidth is how many values a row of keyedEnrichments has;
// the enrichment's come first (packedEnrichment).
var keyedEnrichmentWidth = enrichmentWidth + 2

// keyedEnrichments is KeyedEnrichments: the enrichments of ids joined
// with their people's two columns, each row one text on SQLite.
func (p *peopleStore) keyedEnrichments(ids []string) ([]*state.Person, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, names, err := p.listNamed(ids)
	if err != nil {
		return nil, err
	}
	cols := selectList(keyedEnrichmentCols)
	if p.r.D.packRows {
		cols = "json_array(" + cols + ")"
	}
	q := "SELECT " + cols + " FROM {s}.enrichments e JOIN {s}.people p ON p.workspace = e.workspace AND p.id = e.person_id" +
		" WHERE e.workspace = $1 AND " + p.r.D.inList("e.person_id", "$2")
	rows, err := p.r.query(p.ctx, q, p.r.WS, list)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	v, scan := p.textRow(keyedEnrichmentWidth)
	out := make([]*state.Person, 0, len(ids))
	for rows.Next() {
		if err := scan(rows); err != nil {
			return nil, fmt.Errorf("enrichments: %w", err)
		}
		q, err := keyedPerson(v, names)
		if err != nil {
			return nil, fmt.Errorf("enrichment of %s: %w", v[0].String, err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

// keyedPerson is the person of the values v of a row of keyedEnrichments:
// its enrichment (packedEnrichment), and its ID, network ID and page name
// copied into one string of their own, so that the row is not kept with
// them.
func keyedPerson(v []sql.NullString, names *blockNames) (*state.Person, error) {
	e, err := packedEnrichment(v[:enrichmentWidth], names)
	if err != nil {
		return nil, err
	}
	id, nid, page := v[0].String, v[enrichmentWidth].String, v[enrichmentWidth+1].String
	var b strings.Builder
	b.Grow(len(id) + len(nid) + len(page))
	b.WriteString(id)
	b.WriteString(nid)
	b.WriteString(page)
	all := b.String()
	return &state.Person{
		ID:         all[:len(id)],
		Lead:       person.Lead{NetworkID: all[len(id) : len(id)+len(nid)], PageName: all[len(id)+len(nid):]},
		Enrichment: e,
	}, nil
}

// listNamed is ids as the dialect's list parameter, and the names of the
// blocks the rows read with it name.
func (p *peopleStore) listNamed(ids []string) (list any, names *blockNames, err error) {
	if list, err = p.r.D.List(ids); err != nil {
		return nil, nil, err
	}
	names, err = p.blockNames()
	return list, names, err
}
