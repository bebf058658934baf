package plan

import "github.com/leadsync/leadsync/internal/state"

// answers are the other workspaces' answers a plan or an apply keeps
// (env.reuse), by lookup key. The keys of one person found elsewhere,
// their network ID and page name, share one answer rather than a copy
// each: an answer is 304 bytes, and 400,000 keys of 200,000 people held
// 128 MB (docs/performance.md, "Reuse past the caps in less memory").
type answers map[string]*state.Reusable

// keep adds found (a lookup's answers) to a, the keys that name the same
// enrichment sharing one answer.
func (a answers) keep(found map[string]state.Reusable) {
	shared := make(map[state.Reusable]*state.Reusable, len(found)/2+1)
	for k, r := range found {
		held, ok := shared[r]
		if !ok {
			held = new(state.Reusable)
			*held = r
			shared[r] = held
		}
		a[k] = held
	}
}
