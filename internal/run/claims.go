package run

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/engine"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// openClaims opens the backend's claims (backend.Claimer) for an apply
// whose plan may enrich someone: each enrichment is claimed across the
// workspaces before it is sent. Nil when the plan enriches nobody or the
// backend's workspaces share no claims (a state file named with --state).
// A store that cannot be opened refuses the apply before any call.
func openClaims(d Deps, p *plan.Plan) (backend.Claims, error) {
	enriches := false
	for _, c := range p.Changes {
		if c.Kind == kind.Enrich && c.CallsMax > 0 {
			enriches = true
		}
	}
	if !enriches {
		return nil, nil
	}
	c, _, err := backend.ClaimsOf(d.Backend, d.Account)
	if err != nil {
		return nil, fmt.Errorf("the claims of the enrichments in flight across the workspaces cannot be opened (%w); nothing was spent", err)
	}
	return c, nil
}

// claimsAdapter is the backend's claims as the engine sees them. A claim
// or a release that fails is tried again (retry), as a result's
// recording is: a database restarting does not end the run. Claiming a
// person this run holds already holds them still, so a claim made twice
// is one; a release ends only a claim this run still holds, so a release
// made twice is one.
type claimsAdapter struct {
	c     backend.Claims
	retry retryFunc
}

func (a claimsAdapter) Claim(keys []string) (engine.Claim, error) {
	var c backend.Claim
	err := a.retry("claiming an enrichment across the workspaces", func() (err error) {
		c, err = a.c.Claim(keys)
		return err
	})
	return engine.Claim(c), err
}

func (a claimsAdapter) Release(keys []string, enriched bool) error {
	return a.retry("releasing an enrichment across the workspaces", func() error {
		return a.c.Release(keys, enriched)
	})
}

// engineClaims is claims for the engine, nil when there are none.
func engineClaims(c backend.Claims, retry retryFunc) engine.Claims {
	if c == nil {
		return nil
	}
	return claimsAdapter{c, orOnce(retry)}
}
