package run

import (
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// maxMovedRead is the most people the moves of an apply on a partial
// state may change (a variable for tests).
var maxMovedRead = 200_000

// foldableReads are what the plan of sel reads of b (plan.ReadsOf). With
// moved blocks, those of the plan of the state as the moves leave it,
// resolved from the store's counts (plan.MovesOf), under the addresses
// the store holds them at: the partial state holds the records and
// people the plan reads, Build resolves the moves over it (its
// MovableAddresses are the store's Names), and the engine's fold of the
// moves reads what they change (state.ReadMoving). An enrich block
// beside moved blocks reads every person (partialEnrich is asked
// without the moves), and so do moves that change more than
// maxMovedRead people: the fold reads each by ID, where a load reads
// them in one pass.
func foldableReads(cfg *config.Config, b *state.Base, sel plan.Options) (plan.Reads, error) {
	if len(cfg.Moves) > 0 {
		moved, err := plan.MovesOf(cfg, b)
		if err != nil {
			return plan.Reads{}, err
		}
		if moved.Touches() <= maxMovedRead {
			sel.Moved = moved
		}
	}
	return plan.ReadsOf(cfg, b.Records, sel), nil
}
