package sqlstate

import (
	"database/sql"

	"github.com/leadsync/leadsync/internal/state"
)

// The store's lists of what exclude blocks match people by
// (state.ValueLister): one pass over a table each, four narrow columns a
// row, scanned without a copy (sql.RawBytes).
const (
	// SelectPeopleValues are every person's ID, company, page name and
	// network ID.
	SelectPeopleValues = `SELECT id, company, page_name, network_id FROM {s}.people WHERE workspace = $1`
	// SelectEnrichmentValues are every enrichment's person, company,
	// e-mail and company domain.
	SelectEnrichmentValues = `SELECT person_id, company, email, company_domain FROM {s}.enrichments WHERE workspace = $1`
)

func (w wrapped) PeopleValues(fn func(id, company, pageName, networkID []byte)) error {
	return w.err(w.p.values(SelectPeopleValues, fn))
}

func (w wrapped) EnrichmentValues(fn func(id, company, email, domain []byte)) error {
	return w.err(w.p.values(SelectEnrichmentValues, fn))
}

// values runs q, a query of four texts a row, calling fn with each row.
func (p *peopleStore) values(q string, fn func(a, b, c, d []byte)) error {
	rows, err := p.r.query(p.ctx, q, p.r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	var a, b, c, d sql.RawBytes
	for rows.Next() {
		if err := rows.Scan(&a, &b, &c, &d); err != nil {
			return err
		}
		fn(a, b, c, d)
	}
	return rows.Err()
}

var _ state.ValueLister = wrapped{}
