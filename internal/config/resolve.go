package config

import "github.com/leadsync/leadsync/internal/address"

// Instances returns the instance addresses that a from-reference names, in
// address order: "search.cto" names every instance of that block,
// "search.cto[\"Berlin\"]" or "profile.founder" names one; in a module,
// "module.dach.search.cto" and so on.
func (c *Config) Instances(ref string) []string {
	c.refsOnce.Do(c.indexRefs)
	return c.refIndex[ref]
}

// indexRefs maps every block and instance address of the searches and
// profiles to the instances it names, once: Resolve is called for every
// enrich block and sheet, and a configuration of modules has thousands.
func (c *Config) indexRefs() {
	c.refIndex = make(map[string][]string, 2*(len(c.Searches)+len(c.Profiles)))
	add := func(addr, block string) {
		c.refIndex[addr] = append(c.refIndex[addr], addr)
		if block != addr {
			c.refIndex[block] = append(c.refIndex[block], addr)
		}
	}
	for _, s := range c.Searches {
		add(s.Address, s.Block)
	}
	for _, p := range c.Profiles {
		add(p.Address, p.Block)
	}
}

// Resolve returns the instance addresses of every reference in refs, in
// order, each once.
func (c *Config) Resolve(refs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range refs {
		for _, a := range c.Instances(r) {
			if !seen[a] {
				seen[a] = true
				out = append(out, a)
			}
		}
	}
	return out
}

// KindOf is the kind of block an address of the configuration or the
// state names (search, profile, enrich, export), "" for anything else.
func KindOf(addr string) string { return address.Kind(addr) }
