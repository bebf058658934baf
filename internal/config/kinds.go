package config

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
)

// blockAddr is the typed address of the block (or instance, akey its key
// in brackets) of kind k called name that l's module declares: built from
// its parts, never read back from text.
func (l *loader) blockAddr(k kind.Kind, name, akey string) address.Address {
	return address.Address{Module: l.module, Kind: k, Name: name, Key: akey}
}

// blockKind is config's part of a row of the table of kinds
// (internal/kind): how the blocks of the kind are found in a Config and
// how references name them. Every kind of block has an entry
// (TestEveryBlockKindHasItsEntry).
type blockKind struct {
	// declared lists c's blocks of the kind, in c's order: every instance
	// of a kind with instances.
	declared func(c *Config) []Declared
	// byName: a reference names a block of the kind by its name alone
	// (enrich.contacts; it has no instances), checked against the names
	// the module declares (loader.named) rather than its blocks.
	byName bool
}

// Declared is a block of the configuration, or one instance of it.
type Declared struct {
	// Address is the instance's (search.cto["Berlin"]); Block its block's
	// (search.cto), the same for a kind without instances.
	Address, Block string
	// Addr is Address typed (the block's Addr).
	Addr  address.Address
	Range hcl.Range
}

// blockKinds is config's entry of each kind of block.
var blockKinds = map[kind.Kind]blockKind{
	kind.Search: {declared: func(c *Config) []Declared {
		return declaredOf(c.Searches, func(s *Search) Declared { return Declared{s.Address, s.Block, s.Addr, s.DeclRange} })
	}},
	kind.Profile: {declared: func(c *Config) []Declared {
		return declaredOf(c.Profiles, func(p *Profile) Declared { return Declared{p.Address, p.Block, p.Addr, p.DeclRange} })
	}},
	kind.Import: {declared: func(c *Config) []Declared {
		return declaredOf(c.Imports, func(i *Import) Declared { return Declared{i.Address, i.Address, i.Addr, i.DeclRange} })
	}},
	kind.Enrich: {byName: true, declared: func(c *Config) []Declared {
		return declaredOf(c.Enriches, func(e *Enrich) Declared { return Declared{e.Address, e.Address, e.Addr, e.DeclRange} })
	}},
	kind.Track: {byName: true, declared: func(c *Config) []Declared {
		return declaredOf(c.Tracks, func(t *Track) Declared { return Declared{t.Address, t.Address, t.Addr, t.DeclRange} })
	}},
	kind.Export: {declared: func(c *Config) []Declared {
		return declaredOf(c.Exports, func(e *Export) Declared { return Declared{e.Address, e.Address, e.Addr, e.DeclRange} })
	}},
	kind.Exclude: {declared: func(c *Config) []Declared {
		return declaredOf(c.Excludes, func(e *Exclude) Declared { return Declared{e.Address, e.Address, e.Addr, e.DeclRange} })
	}},
}

func declaredOf[T any](blocks []T, declared func(T) Declared) []Declared {
	out := make([]Declared, len(blocks))
	for i, b := range blocks {
		out[i] = declared(b)
	}
	return out
}

// Declared returns c's blocks of kind k, in c's order (every instance of
// a search or a profile); none for a kind that is no block's.
func (c *Config) Declared(k kind.Kind) []Declared {
	if e, ok := blockKinds[k]; ok {
		return e.declared(c)
	}
	return nil
}

// Addresses returns the addresses of c's blocks of kind k, in c's order
// (every instance of a search or a profile); none for a kind that is no
// block's.
func (c *Config) Addresses(k kind.Kind) []string {
	ds := c.Declared(k)
	if ds == nil {
		return nil
	}
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Address
	}
	return out
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
