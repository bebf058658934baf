package sqlstate

import (
	"database/sql"
	"strings"
	"unsafe"

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
	// SelectEnrichmentCompanies are the distinct pairs of company and
	// company domain of the enrichments, both set (state.CompanyLister):
	// the engine groups them, so only the pairs cross to leadsync.
	SelectEnrichmentCompanies = `SELECT company, company_domain, '', '' FROM {s}.enrichments
		WHERE workspace = $1 AND company <> '' AND company_domain <> '' GROUP BY company, company_domain`
)

func (w wrapped) PeopleValues(fn func(id, company, pageName, networkID []byte)) error {
	return w.err(w.p.values(SelectPeopleValues, fn))
}

func (w wrapped) EnrichmentValues(fn func(id, company, email, domain []byte)) error {
	return w.err(w.p.values(SelectEnrichmentValues, fn))
}

func (w wrapped) EnrichmentCompanies(fn func(company, domain []byte)) error {
	return w.err(w.p.values(SelectEnrichmentCompanies, func(company, domain, _, _ []byte) { fn(company, domain) }))
}

// values runs q, a query of four texts a row, calling fn with each row.
// SQLite gives each row as one text (packed.go: a value costs three calls
// into the engine, each under the connection's lock; 3,000,000 people's
// four columns took 3.6 s of CPU, one text each 0.0 s).
func (p *peopleStore) values(q string, fn func(a, b, c, d []byte)) error {
	if p.r.D.packRows {
		return p.packedValues(q, fn)
	}
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

// packedValues is values of q's columns as one JSON array a row.
func (p *peopleStore) packedValues(q string, fn func(a, b, c, d []byte)) error {
	cols, from, _ := strings.Cut(strings.TrimPrefix(q, "SELECT "), " FROM ")
	rows, err := p.r.query(p.ctx, "SELECT json_array("+cols+") FROM "+from, p.r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	var row string
	v := make([]sql.NullString, 4)
	for rows.Next() {
		if err := rows.Scan(&row); err != nil {
			return err
		}
		if err := splitPacked(row, v); err != nil {
			return err
		}
		fn(bytesOf(v[0].String), bytesOf(v[1].String), bytesOf(v[2].String), bytesOf(v[3].String))
	}
	return rows.Err()
}

// bytesOf views s as bytes, without a copy: not to be written to.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

var (
	_ state.ValueLister   = wrapped{}
	_ state.CompanyLister = wrapped{}
)
