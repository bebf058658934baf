package config

import "sync"

// refCache is the index of Instances, with what it was built from: a
// Config whose lists were replaced since (tests do) gets it built again.
type refCache struct {
	mu       sync.Mutex
	searches []*Search
	profiles []*Profile
	imports  []*Import
	index    map[string][]string
}

// Instances returns the instance addresses that a from-reference names, in
// address order: "search.cto" names every instance of that block,
// "search.cto[\"Berlin\"]", "profile.founder" or "import.evaboot" names
// one; in a module, "module.dach.search.cto" and so on. It is safe for
// concurrent use.
func (c *Config) Instances(ref string) []string {
	if c.refs == nil {
		return c.scanInstances(ref)
	}
	r := c.refs
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.index == nil || !sameList(r.searches, c.Searches) || !sameList(r.profiles, c.Profiles) || !sameList(r.imports, c.Imports) {
		r.index = c.indexRefs()
		r.searches, r.profiles, r.imports = c.Searches, c.Profiles, c.Imports
	}
	return r.index[ref]
}

// sameList reports whether a and b are the same slice (same elements in
// the same backing array).
func sameList[T any](a, b []*T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0] && a[len(a)-1] == b[len(b)-1])
}

// indexRefs maps every block and instance address of the kinds a from
// list names (fromRefs: searches, profiles, imports) to the instances it
// names: Resolve is called for every enrich
// block and sheet, and a configuration of modules has thousands.
func (c *Config) indexRefs() map[string][]string {
	idx := make(map[string][]string, 2*(len(c.Searches)+len(c.Profiles)))
	add := func(addr, block string) {
		idx[addr] = append(idx[addr], addr)
		if block != addr {
			idx[block] = append(idx[block], addr)
		}
	}
	for _, k := range fromRefs.kinds {
		for _, d := range c.Declared(k) {
			add(d.Address, d.Block)
		}
	}
	return idx
}

// scanInstances is Instances without the index.
func (c *Config) scanInstances(ref string) []string {
	var out []string
	for _, k := range fromRefs.kinds {
		for _, d := range c.Declared(k) {
			if d.Address == ref || d.Block == ref {
				out = append(out, d.Address)
			}
		}
	}
	return out
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
