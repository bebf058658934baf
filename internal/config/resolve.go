package config

import (
	"sync"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// refCache is the index of Instances, with what it was built from: a
// Config whose lists were replaced since (tests do) gets it built again.
type refCache struct {
	mu       sync.Mutex
	searches []*Search
	profiles []*Profile
	imports  []*Import
	index    map[string][]string

	// addrs is the index of Addr, with the lists it was built from.
	addrs   map[string]address.Address
	addrsOf blockLists
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

// Addr returns the typed address of what c declares at the address text:
// a block (with or without instances: search.cto), one of its instances
// (search.cto["Berlin"]), a module instance (module.dach). It is the
// address the loader built (Declared.Addr), so its kind and parts are
// asked of it rather than read from text again; false when c declares
// nothing at text. It is safe for concurrent use.
func (c *Config) Addr(text string) (address.Address, bool) {
	if c.refs == nil {
		return c.scanAddr(text)
	}
	r := c.refs
	r.mu.Lock()
	defer r.mu.Unlock()
	if lists := c.blockLists(); r.addrs == nil || !r.addrsOf.same(lists) {
		r.addrs, r.addrsOf = c.indexAddrs(), lists
	}
	a, ok := r.addrs[text]
	return a, ok
}

// blockLists are the lists of blocks indexAddrs reads (blockAddrs, only
// the loader writes, is left out).
type blockLists struct {
	searches []*Search
	profiles []*Profile
	imports  []*Import
	enriches []*Enrich
	tracks   []*Track
	exports  []*Export
	excludes []*Exclude
	modules  []*Module
}

func (c *Config) blockLists() blockLists {
	return blockLists{c.Searches, c.Profiles, c.Imports, c.Enriches, c.Tracks, c.Exports, c.Excludes, c.Modules}
}

// same reports whether a and b are the same lists (sameList).
func (a blockLists) same(b blockLists) bool {
	return sameList(a.searches, b.searches) && sameList(a.profiles, b.profiles) && sameList(a.imports, b.imports) &&
		sameList(a.enriches, b.enriches) && sameList(a.tracks, b.tracks) && sameList(a.exports, b.exports) &&
		sameList(a.excludes, b.excludes) && sameList(a.modules, b.modules)
}

// indexAddrs maps the address of every block, instance and module
// instance c declares to its typed address.
func (c *Config) indexAddrs() map[string]address.Address {
	idx := map[string]address.Address{}
	for _, k := range kind.Blocks() {
		for _, d := range c.Declared(k) {
			idx[d.Address] = d.Addr
			if d.Block != d.Address {
				idx[d.Block] = d.Addr.Block()
			}
		}
	}
	for _, a := range c.blockAddrs {
		idx[a.String()] = a
	}
	for _, m := range c.Modules {
		idx[m.Address] = m.Addr
	}
	return idx
}

// Indexed makes Instances and Addr of a Config built by hand (tests,
// benchmarks) answer from the index a loaded Config's answer from,
// rather than scan every block for each question, and returns c. Call it
// before c is shared.
func (c *Config) Indexed() *Config {
	if c.refs == nil {
		c.refs = &refCache{}
	}
	return c
}

// scanAddr is Addr without the index, for a Config not made by Load.
func (c *Config) scanAddr(text string) (address.Address, bool) {
	for _, k := range kind.Blocks() {
		for _, d := range c.Declared(k) {
			switch text {
			case d.Address:
				return d.Addr, true
			case d.Block:
				return d.Addr.Block(), true
			}
		}
	}
	for _, m := range c.Modules {
		if m.Address == text {
			return m.Addr, true
		}
	}
	return address.Address{}, false
}
