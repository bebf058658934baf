package config

import (
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/listfile"
)

// PersonValues are what exclude blocks match a person by: what every
// search result says (company, page name, network ID), and what only an
// enrichment or an import tells (e-mail, company domain), "" while not
// known.
type PersonValues struct {
	Company   string
	PageName  string
	NetworkID string
	Email     string
	Domain    string
}

// ValuesOf returns the values of a person with this lead and, when they
// were enriched or imported, this enrichment result (nil when not).
func ValuesOf(lead api.Lead, id string, enr *api.EnrichedProfile) PersonValues {
	v := PersonValues{Company: lead.Company, PageName: lead.PageName, NetworkID: lead.NetworkID}
	if v.NetworkID == "" {
		v.NetworkID = id // a person keyed by network ID (page: and anonymous IDs are no network ID and match nothing)
	}
	if enr != nil {
		v.Email, v.Domain = enr.Email, enr.CompanyDomain
		if v.Company == "" {
			v.Company = enr.Company
		}
	}
	return v
}

// Exclusion matches people against a configuration's exclude blocks. It
// keeps the keys it normalised (a company name once, however many people
// work there) and the company domains it learned, so make one per plan,
// apply pass or export; it is not safe for concurrent use.
type Exclusion struct {
	blocks []*Exclude
	need   map[listfile.Kind]bool
	// companies memoises CompanyKey; colleagues maps a company's key to
	// the registrable domain a colleague's enrichment gave.
	companies  map[string]string
	domains    map[string]string
	colleagues map[string]string
}

// Exclusion returns the matcher of the configuration's exclude blocks, nil
// when it has none (Match of a nil *Exclusion excludes nobody).
func (c *Config) Exclusion() *Exclusion {
	if len(c.Excludes) == 0 {
		return nil
	}
	x := &Exclusion{blocks: c.Excludes, need: map[listfile.Kind]bool{},
		companies: map[string]string{}, domains: map[string]string{}}
	for _, b := range c.Excludes {
		x.need[b.By] = true
	}
	return x
}

// NeedsColleagues reports whether a block matches by domain: then a
// person whose own domain is unknown is matched by a colleague's (Learn).
func (x *Exclusion) NeedsColleagues() bool { return x != nil && x.need[listfile.Domain] }

// Learn records that people of company have the domain (from an
// enrichment or an import): a colleague whose own domain is not known yet
// is matched by it.
func (x *Exclusion) Learn(company, domain string) {
	if x == nil || company == "" || domain == "" || !x.need[listfile.Domain] {
		return
	}
	ck, dk := x.companyKey(company), x.domainKey(domain)
	if ck == "" || dk == "" {
		return
	}
	if x.colleagues == nil {
		x.colleagues = map[string]string{}
	}
	if _, known := x.colleagues[ck]; !known {
		x.colleagues[ck] = dk
	}
}

// LearnValues is Learn of a person's company and company domain.
func (x *Exclusion) LearnValues(v PersonValues) { x.Learn(v.Company, v.Domain) }

func (x *Exclusion) companyKey(s string) string {
	if s == "" {
		return ""
	}
	k, ok := x.companies[s]
	if !ok {
		k = listfile.CompanyKey(s)
		x.companies[s] = k
	}
	return k
}

func (x *Exclusion) domainKey(s string) string {
	if s == "" {
		return ""
	}
	k, ok := x.domains[s]
	if !ok {
		k, _ = listfile.DomainKey(s)
		x.domains[s] = k
	}
	return k
}

// Match returns the first exclude block, in the order of the
// configuration, whose list names the person; nil when none does. A
// person's domain is their own company domain, else their e-mail's, else
// the domain a colleague of the same company (CompanyKey) is known by.
func (x *Exclusion) Match(v PersonValues) *Exclude {
	if x == nil {
		return nil
	}
	var page, domain string
	pageDone, domainDone := false, false
	for _, b := range x.blocks {
		var key string
		switch b.By {
		case listfile.Company:
			key = x.companyKey(v.Company)
		case listfile.ProfileURL, listfile.PageName:
			if !pageDone {
				page, _ = listfile.PageKey(v.PageName)
				pageDone = true
			}
			key = page
		case listfile.NetworkID:
			key, _ = listfile.NetworkIDKey(v.NetworkID)
		case listfile.Email:
			key, _ = listfile.EmailKey(v.Email)
		case listfile.Domain:
			if !domainDone {
				domain = x.personDomain(v)
				domainDone = true
			}
			key = domain
		}
		if key != "" && b.Keys.HasKey(key) {
			return b
		}
	}
	return nil
}

// personDomain is the registrable domain of a person, "" when unknown.
func (x *Exclusion) personDomain(v PersonValues) string {
	if d := x.domainKey(v.Domain); d != "" {
		return d
	}
	if v.Email != "" {
		if d := listfile.EmailDomainKey(v.Email); d != "" {
			return d
		}
	}
	if ck := x.companyKey(v.Company); ck != "" {
		return x.colleagues[ck]
	}
	return ""
}
