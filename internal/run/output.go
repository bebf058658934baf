package run

import (
	"hash/maphash"
	"slices"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
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
// their blocks, in declaration order; only the one called name, unless
// name is "". It makes no call and reads no person: each block's people
// are counted (a search's from its record), and their IDs are read only
// for an output of which two blocks or more hold people, whom it counts
// once each (distinctPeople).
func Outputs(cfg *config.Config, b *state.Base, name string) ([]OutputValue, error) {
	out := make([]OutputValue, 0, len(cfg.Outputs))
	for _, o := range cfg.Outputs {
		if name != "" && o.Name != name {
			continue
		}
		v := OutputValue{Name: o.Name, Description: o.Description, Blocks: []OutputBlock{}}
		holding := 0
		for _, addr := range instancesOf(cfg, o.Addresses) {
			a, _ := cfg.Addr(addr)
			n, recorded, err := b.BlockCount(a.Kind, addr)
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
// of their counts. A set of millions of IDs would cost hundreds of MB, so
// it keeps a 64-bit hash of each (8 bytes), sorted: the distinct hashes
// are the distinct people, unless two IDs share a hash. The IDs of the
// hashes found more than once (a person in two blocks, or such a pair)
// are then read again and counted one by one, so the count is exact.
func distinctPeople(b *state.Base, blocks []OutputBlock, most int) (int, error) {
	seed := maphash.MakeSeed()
	hashes := make([]uint64, 0, most)
	err := eachBlockPerson(b, blocks, func(id string) {
		hashes = append(hashes, maphash.String(seed, id))
	})
	if err != nil {
		return 0, err
	}
	hashes = sortHashes(hashes)
	twice := map[uint64]struct{}{}
	for i := 1; i < len(hashes); i++ {
		if hashes[i] == hashes[i-1] {
			twice[hashes[i]] = struct{}{}
		}
	}
	n := len(slices.Compact(hashes))
	if len(twice) == 0 {
		return n, nil
	}
	hashes = nil
	ids := map[string]struct{}{}
	err = eachBlockPerson(b, blocks, func(id string) {
		if _, ok := twice[maphash.String(seed, id)]; ok {
			ids[id] = struct{}{}
		}
	})
	// Each hash found twice was counted once: count its IDs instead.
	return n - len(twice) + len(ids), err
}

// sortHashes sorts hashes, which are spread evenly: one pass puts them
// into 4,096 buckets by their top 12 bits, and each bucket, small enough
// for the processor's cache, is sorted then (twice as fast as one sort of
// millions).
func sortHashes(hashes []uint64) []uint64 {
	const bits = 12
	var start [1<<bits + 1]int
	for _, h := range hashes {
		start[h>>(64-bits)+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	next := start
	out := make([]uint64, len(hashes))
	for _, h := range hashes {
		b := h >> (64 - bits)
		out[next[b]] = h
		next[b]++
	}
	for b := range 1 << bits {
		slices.Sort(out[start[b]:start[b+1]])
	}
	return out
}

// eachBlockPerson calls fn with the ID of each person of blocks, once per
// block that holds them.
func eachBlockPerson(b *state.Base, blocks []OutputBlock, fn func(id string)) error {
	for _, blk := range blocks {
		if blk.People == 0 {
			continue
		}
		ids, _, err := b.BlockPeople(kind.Kind(blk.Kind), blk.Address)
		if err != nil {
			return err
		}
		for _, id := range ids {
			fn(id)
		}
	}
	return nil
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
