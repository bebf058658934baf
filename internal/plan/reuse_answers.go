package plan

import (
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// answers are the other workspaces' answers a plan or an apply keeps
// (env.reuse), by lookup key. The keys of one person found elsewhere,
// their network ID and page name, share one answer rather than a copy
// each. An answer is 304 bytes: a copy for each of 400,000 keys of
// 200,000 people held 93 MB in the heap profile (docs/performance.md,
// "Reuse past the caps in less memory").
type answers map[string]*state.Reusable

// answerMark tells apart the answers of one lookup cheaply (answers.keep):
// the workspace, the enriched person's ID, page name and network ID
// there (the ID may be empty), the e-mail and the enrichment's time.
type answerMark struct {
	workspace, id, page, network, email string
	at                                  time.Time
}

// keep adds found (a lookup's answers) to a, the keys that name the same
// enrichment sharing one answer: one of the same mark and equal in every
// field. Should two answers of one mark differ, each is kept, the first
// shared.
func (a answers) keep(found map[string]state.Reusable) {
	shared := make(map[answerMark]*state.Reusable, len(found)/2+1)
	for k, r := range found {
		res := &r.Enrichment.Result
		mark := answerMark{r.Workspace, res.ID, res.PageName, res.NetworkID, res.Email, r.Enrichment.EnrichedAt}
		held, ok := shared[mark]
		if !ok || *held != r {
			held = new(state.Reusable)
			*held = r
		}
		if !ok {
			shared[mark] = held
		}
		a[k] = held
	}
}
