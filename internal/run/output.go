package run

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// OutputValue is one output of the root module as leadsync output shows
// it: the blocks its value names, each instance with the people the state
// holds of it, and the number of distinct people of them all.
type OutputValue struct {
	Name, Description string
	Blocks            []OutputBlock
	// People counts the distinct people of its blocks.
	People int
}

// OutputBlock is one instance an output names: a search's or profile's
// people, an import's, the people an enrich block enriched or a track
// block read (state.Base.BlockPeople); Recorded is false when the state
// holds nothing of it yet (not run).
type OutputBlock struct {
	Address, Kind string
	People        int
	Recorded      bool
}

// Outputs are the outputs of cfg's root module with what b holds of
// their blocks, in declaration order. It makes no call and reads no
// person: each block's people are counted (a search's from its record),
// and their IDs are read only for an output of which two blocks or more
// hold people, whom it counts once each.
func Outputs(cfg *config.Config, b *state.Base) ([]OutputValue, error) {
	out := make([]OutputValue, 0, len(cfg.Outputs))
	for _, o := range cfg.Outputs {
		v := OutputValue{Name: o.Name, Description: o.Description, Blocks: []OutputBlock{}}
		holding := 0
		for _, addr := range instancesOf(cfg, o.Addresses) {
			a, _ := cfg.Addr(addr)
			n, recorded, err := b.BlockCount(addr)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				holding++
				v.People += n
			}
			v.Blocks = append(v.Blocks, OutputBlock{Address: addr, Kind: string(a.Kind), People: n, Recorded: recorded})
		}
		if holding > 1 {
			n, err := distinctPeople(b, v.Blocks, v.People)
			if err != nil {
				return nil, err
			}
			v.People = n
		}
		out = append(out, v)
	}
	return out, nil
}

// distinctPeople counts the people of blocks once each; most is the sum
// of their counts.
func distinctPeople(b *state.Base, blocks []OutputBlock, most int) (int, error) {
	all := make(map[string]struct{}, most)
	for _, blk := range blocks {
		if blk.People == 0 {
			continue
		}
		ids, _, err := b.BlockPeople(blk.Address)
		if err != nil {
			return 0, err
		}
		for _, id := range ids {
			all[id] = struct{}{}
		}
	}
	return len(all), nil
}

// instancesOf are the instances addrs name: a search or profile block's
// instances, an enrich, track or import block itself; each once.
func instancesOf(cfg *config.Config, addrs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, a := range addrs {
		insts := cfg.Resolve([]string{a})
		if len(insts) == 0 {
			insts = []string{a}
		}
		for _, i := range insts {
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	return out
}
