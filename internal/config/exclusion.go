package config

import (
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"strings"
	"unsafe"
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
func ValuesOf(lead person.Lead, id string, enr *person.EnrichedProfile) PersonValues {
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
//
// A plan matches every candidate of its enrich blocks (hundreds of
// thousands in a large state), so Match avoids allocating: page names and
// network IDs are normalised into a buffer and looked up without a copy.
type Exclusion struct {
	blocks []*Exclude
	need   [listfile.NetworkID + 1]bool
	// companies memoises CompanyKey, domains DomainKey (with whether a
	// block by domain lists it); colleagues maps a company's key to the
	// listed domains colleagues' enrichments gave.
	companies  map[string]string
	domains    map[string]domainKey
	colleagues map[string][]string
	buf        []byte
}

// Exclusion returns the matcher of the configuration's exclude blocks, nil
// when it has none (Match of a nil *Exclusion excludes nobody).
func (c *Config) Exclusion() *Exclusion {
	if len(c.Excludes) == 0 {
		return nil
	}
	x := &Exclusion{blocks: c.Excludes, companies: map[string]string{}, domains: map[string]domainKey{}}
	for _, b := range c.Excludes {
		if b.By > 0 && int(b.By) < len(x.need) {
			x.need[b.By] = true
		}
	}
	return x
}

// NeedsColleagues reports whether a block matches by domain: then a
// person whose own domain is unknown is matched by a colleague's (Learn).
func (x *Exclusion) NeedsColleagues() bool { return x != nil && x.need[listfile.Domain] }

// Learn records that people of company have the domain (from an
// enrichment or an import): a colleague whose own domain is not known yet
// is matched by it. Only a domain a block lists is kept, each once: what
// is learned does not depend on the order of learning.
func (x *Exclusion) Learn(company, domain string) {
	if x == nil || company == "" || domain == "" || !x.need[listfile.Domain] {
		return
	}
	d := x.domain(domain)
	if !d.listed {
		return
	}
	ck := x.companyKey(company)
	if ck == "" {
		return
	}
	if x.colleagues == nil {
		x.colleagues = map[string][]string{}
	}
	for _, k := range x.colleagues[ck] {
		if k == d.key {
			return
		}
	}
	x.colleagues[ck] = append(x.colleagues[ck], d.key)
}

// ListsDomain reports whether a block by domain lists domain (its key,
// listfile.DomainKey): the only domains Learn keeps.
func (x *Exclusion) ListsDomain(domain string) bool {
	return x != nil && x.need[listfile.Domain] && x.domain(domain).listed
}

// domainKey is a domain's key, and whether a block by domain lists it.
type domainKey struct {
	key    string
	listed bool
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

func (x *Exclusion) domain(s string) domainKey {
	if s == "" {
		return domainKey{}
	}
	d, ok := x.domains[s]
	if !ok {
		d.key, _ = listfile.DomainKey(s)
		for _, b := range x.blocks {
			if b.By == listfile.Domain && d.key != "" && b.Keys.HasKey(d.key) {
				d.listed = true
			}
		}
		x.domains[s] = d
	}
	return d
}

// Match returns the first exclude block, in the order of the
// configuration, whose list names the person; nil when none does. A
// person's domain is their own company domain, else their e-mail's, else
// a domain a colleague of the same company (CompanyKey) is known by.
func (x *Exclusion) Match(v PersonValues) *Exclude {
	if x == nil {
		return nil
	}
	var company, email, domain string
	var page, nid []byte
	pageDone, nidDone, companyDone, emailDone, domainDone := false, false, false, false, false
	for _, b := range x.blocks {
		switch b.By {
		case listfile.Company:
			if !companyDone {
				company, companyDone = x.companyKey(v.Company), true
			}
			if company != "" && b.Keys.HasKey(company) {
				return b
			}
		case listfile.ProfileURL, listfile.PageName:
			if !pageDone {
				page, pageDone = x.pageKey(v.PageName), true
			}
			if len(page) > 0 && b.Keys.HasBytes(page) {
				return b
			}
		case listfile.NetworkID:
			if !nidDone {
				nid, nidDone = x.networkIDKey(v.NetworkID, page), true
			}
			if len(nid) > 0 && b.Keys.HasBytes(nid) {
				return b
			}
		case listfile.Email:
			if !emailDone && v.Email != "" {
				email, _ = listfile.EmailKey(v.Email)
			}
			emailDone = true
			if email != "" && b.Keys.HasKey(email) {
				return b
			}
		case listfile.Domain:
			if !domainDone {
				domain, domainDone = x.personDomain(v), true
			}
			if domain != "" && b.Keys.HasKey(domain) {
				return b
			}
			if domain == "" && x.colleagues != nil {
				// Not known: a colleague's listed domain.
				if !companyDone {
					company, companyDone = x.companyKey(v.Company), true
				}
				for _, k := range x.colleagues[company] {
					if b.Keys.HasKey(k) {
						return b
					}
				}
			}
		}
	}
	return nil
}

// pageKey is listfile.PageKey of a page name: a plain ASCII page name
// (nearly all) in lower case is its own key (returned without a copy); one
// with capitals is lowered in x's buffer; another goes through PageKey.
// Nil when it is no page name.
func (x *Exclusion) pageKey(s string) []byte {
	if s == "" {
		return nil
	}
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == '/' || c <= ' ' || c == 0x7f || (c >= 'A' && c <= 'Z') {
			plain = false
			break
		}
	}
	if plain {
		return unsafeBytes(s)
	}
	x.buf = x.buf[:0]
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80 || c == '/' || c <= ' ' || c == 0x7f:
			k, err := listfile.PageKey(s)
			if err != nil {
				return nil
			}
			x.buf = append(x.buf[:0], k...)
			return x.buf
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		}
		x.buf = append(x.buf, c)
	}
	return x.buf
}

// networkIDKey is listfile.NetworkIDKey of a network ID, in the part of
// x's buffer after page (which it leaves as it is); nil when it is none.
func (x *Exclusion) networkIDKey(s string, page []byte) []byte {
	s = strings.TrimSpace(s)
	if !listfile.IsNetworkID(s) {
		return nil
	}
	if lower := strings.IndexFunc(s, func(r rune) bool { return r >= 'A' && r <= 'F' }) < 0; lower {
		return unsafeBytes(s)
	}
	start := len(page)
	if page == nil || !sameBuffer(page, x.buf) {
		x.buf, start = x.buf[:0], 0
	}
	x.buf = x.buf[:start]
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		x.buf = append(x.buf, c)
	}
	return x.buf[start:]
}

// personDomain is the registrable domain of a person, their own or their
// e-mail's; "" when unknown (then colleagues' may match).
func (x *Exclusion) personDomain(v PersonValues) string {
	if d := x.domain(v.Domain); d.key != "" {
		return d.key
	}
	if v.Email != "" {
		if at := lastAt(v.Email); at >= 0 {
			if d := x.domain(v.Email[at+1:]); d.key != "" {
				return d.key
			}
		}
	}
	return ""
}

func lastAt(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '@' {
			return i
		}
	}
	return -1
}

// unsafeBytes views s as bytes, for a map lookup (string(b) of a map index
// makes no copy); the bytes must not be changed.
func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// sameBuffer reports whether b lies in buf (the page key lowered there).
func sameBuffer(b, buf []byte) bool {
	return len(b) > 0 && cap(buf) > 0 && &b[0] == &buf[:1][0]
}
