package main

import (
	"fmt"
	"strings"
)

// blockSize is how many instances one for_each of the configuration holds:
// the most a for_each may hold. Past it, write splits the searches into
// several blocks (search "cto", "cto_1", "cto_2", ...; modules likewise),
// each of blockSize instances but the last, so that a configuration of
// 34,000 searches still names every search of its state, in the same
// order and with the same keys (key(i)) as one block would.
const blockSize = 10000

// blockName is the name of the block that holds the i-th search.
func blockName(base string, i int) string {
	if b := i / blockSize; b > 0 {
		return fmt.Sprintf("%s_%d", base, b)
	}
	return base
}

// configOf is the main configuration of n searches of at most maxResults
// people each, and the address of the i-th search in it.
func configOf(n, maxResults int, track, modules bool, to target) (string, func(int) string) {
	var blocks strings.Builder
	var from []string
	for start := 0; start < n; start += blockSize {
		keys := make([]string, 0, min(blockSize, n-start))
		for i := start; i < min(start+blockSize, n); i++ {
			keys = append(keys, fmt.Sprintf("%q", key(i)))
		}
		name := blockName("cto", start)
		if start > 0 {
			blocks.WriteString("\n")
		}
		if modules {
			name = blockName("market", start)
			fmt.Fprintf(&blocks, moduleBlock, name, strings.Join(keys, ", "))
			from = append(from, "module."+name+".ctos")
			continue
		}
		fmt.Fprintf(&blocks, searchBlock, name, strings.Join(keys, ", "), maxResults)
		from = append(from, "search."+name)
	}
	refs := strings.Join(from, ", ")
	if modules {
		addr := func(i int) string { return `module.` + blockName("market", i) + `["` + key(i) + `"].search.cto` }
		return fmt.Sprintf(modulesConfig, to.settings(), blocks.String(), refs, refs), addr
	}
	addr := func(i int) string { return `search.` + blockName("cto", i) + `["` + key(i) + `"]` }
	return fmt.Sprintf(flatConfig, to.settings(), blocks.String(), refs, trackAttr(track), trackBlock(track, refs), refs), addr
}

// searchBlock is one search block of configOf: its name, its for_each's
// keys, its max_results.
const searchBlock = `search %q {
  for_each    = toset([%s])
  keywords    = "CTO"
  city        = each.value
  max_results = %d
  refresh     = "30d"
}
`

// moduleBlock is one module block of configOf with modules: its name,
// its for_each's keys (max_results is the module's own).
const moduleBlock = `module %q {
  for_each = toset([%s])
  source   = "./persona"
  city     = each.value
}
`
