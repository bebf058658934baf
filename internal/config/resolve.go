package config

import "strings"

// Instances returns the instance addresses that a from-reference names, in
// address order: "search.cto" names every instance of that block,
// "search.cto[\"Berlin\"]" or "profile.founder" names one.
func (c *Config) Instances(ref string) []string {
	var out []string
	add := func(addr, block string) {
		if addr == ref || block == ref {
			out = append(out, addr)
		}
	}
	switch {
	case strings.HasPrefix(ref, "search."):
		for _, s := range c.Searches {
			add(s.Address, s.Block)
		}
	case strings.HasPrefix(ref, "profile."):
		for _, p := range c.Profiles {
			add(p.Address, p.Block)
		}
	case strings.HasPrefix(ref, "import."):
		for _, im := range c.Imports {
			add(im.Address, im.Address)
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
