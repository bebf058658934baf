package state

// CompanyLister is a store that lists the pairs of company and company
// domain its enrichments name (both set), each pair once, by one
// aggregate query: what a plan copying from another workspace needs to
// tell a person's employer (plan.storeDomains), without a row for each
// of millions of enrichments.
type CompanyLister interface {
	// EnrichmentCompanies calls fn once with each distinct pair, in no
	// order. The bytes hold only during the call.
	EnrichmentCompanies(fn func(company, domain []byte)) error
}

// EnrichmentCompanies: see CompanyLister. A store that does not list the
// pairs, and a state in memory, give them from EnrichmentValues: a pair
// comes once for each enrichment naming it.
func (b *Base) EnrichmentCompanies(fn func(company, domain []byte)) error {
	if l, ok := b.store.(CompanyLister); ok {
		return l.EnrichmentCompanies(fn)
	}
	return b.EnrichmentValues(func(_, company, _, domain []byte) {
		if len(company) > 0 && len(domain) > 0 {
			fn(company, domain)
		}
	})
}

var _ CompanyLister = (*Base)(nil)
