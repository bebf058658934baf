package config

import "github.com/leadsync/leadsync/internal/kind"

// blockKind is config's part of a row of the table of kinds
// (internal/kind): how the blocks of the kind are found in a Config and
// how references name them. Every kind of block has an entry
// (TestEveryBlockKindHasItsEntry).
type blockKind struct {
	// addresses lists the addresses of c's blocks of the kind, in c's
	// order: every instance of a kind with instances.
	addresses func(c *Config) []string
	// byName: a reference names a block of the kind by its name alone
	// (enrich.contacts; it has no instances), checked against the names
	// the module declares (loader.named) rather than its blocks.
	byName bool
}

// blockKinds is config's entry of each kind of block.
var blockKinds = map[kind.Kind]blockKind{
	kind.Search:  {addresses: func(c *Config) []string { return addressesOf(c.Searches, func(s *Search) string { return s.Address }) }},
	kind.Profile: {addresses: func(c *Config) []string { return addressesOf(c.Profiles, func(p *Profile) string { return p.Address }) }},
	kind.Import:  {addresses: func(c *Config) []string { return addressesOf(c.Imports, func(i *Import) string { return i.Address }) }},
	kind.Enrich:  {addresses: func(c *Config) []string { return addressesOf(c.Enriches, func(e *Enrich) string { return e.Address }) }, byName: true},
	kind.Track:   {addresses: func(c *Config) []string { return addressesOf(c.Tracks, func(t *Track) string { return t.Address }) }, byName: true},
	kind.Export:  {addresses: func(c *Config) []string { return addressesOf(c.Exports, func(e *Export) string { return e.Address }) }},
	kind.Exclude: {addresses: func(c *Config) []string { return addressesOf(c.Excludes, func(e *Exclude) string { return e.Address }) }},
}

func addressesOf[T any](blocks []T, addr func(T) string) []string {
	out := make([]string, len(blocks))
	for i, b := range blocks {
		out[i] = addr(b)
	}
	return out
}

// Addresses returns the addresses of c's blocks of kind k, in c's order
// (every instance of a search or a profile); none for a kind that is no
// block's.
func (c *Config) Addresses(k kind.Kind) []string {
	if e, ok := blockKinds[k]; ok {
		return e.addresses(c)
	}
	return nil
}

// declareNamed records that l's module declares the block of kind k (one
// referred to by name) called name.
func (l *loader) declareNamed(k kind.Kind, name string) {
	if l.named == nil {
		l.named = map[kind.Kind]map[string]bool{}
	}
	if l.named[k] == nil {
		l.named[k] = map[string]bool{}
	}
	l.named[k][name] = true
}
