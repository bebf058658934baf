package config

import (
	"sort"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
)

// crossChecks are rules between blocks: generations, the service addresses,
// and a timeout too short for the searches.
func (l *loader) crossChecks() {
	a := l.cfg.API
	if l.apiBlock == nil {
		return
	}
	if t := l.apiTimeout; t != nil && a.Timeout > 0 && a.Timeout < api.MaxSearchLatency && len(l.cfg.Searches) > 0 {
		l.warnf(t.Expr.Range().Ptr(), "Timeout shorter than a search can take",
			"The service runs each search live on the network, and a search can take up to %.0f seconds. With timeout = %q a slower search is abandoned and tried again, and each try may count as a request of the monthly quota although no result came back. Set timeout to at least \"%.0fs\" (the default is \"%.0fs\"), or leave it out.",
			api.MaxSearchLatency.Seconds(), FormatDuration(a.Timeout), api.MaxSearchLatency.Seconds(), api.DefaultTimeout.Seconds())
	}
	if a.Generation == api.Gen2 {
		if a.BaseURLV2 == "" && !a.Sandbox {
			rng := l.apiBlock.DefRange.Ptr()
			if l.apiGeneration != nil {
				rng = l.apiGeneration.Expr.Range().Ptr()
			}
			l.errorf(rng, "Missing base_url_v2", "generation = 2 sends searches and profile reads to the second generation, so the api block needs base_url_v2 (like \"https://v2.example.com\").")
		}
		for _, r := range l.rawAttrs {
			l.errorf(r.Expr.Range().Ptr(), "raw needs generation 1", "Only the first generation of the service returns raw results, and the api block sets generation = 2. Remove raw, or use generation = 1.")
		}
	}
}

// sortInstances orders searches and profiles by address (address.SortKey.Less:
// block by block, count indexes in numeric order, in modules too).
func sortInstances(c *Config) {
	sortByAddress(c.Searches, func(s *Search) string { return s.Address })
	sortByAddress(c.Profiles, func(p *Profile) string { return p.Address })
}

// sortByAddress sorts list by the address of each element, reading each
// address once.
func sortByAddress[T any](list []T, addr func(T) string) {
	type keyed struct {
		key address.SortKey
		x   T
	}
	ks := make([]keyed, len(list))
	for i, x := range list {
		ks[i] = keyed{address.NewSortKey(addr(x)), x}
	}
	sort.SliceStable(ks, func(i, j int) bool { return ks[i].key.Less(ks[j].key) })
	for i := range ks {
		list[i] = ks[i].x
	}
}
