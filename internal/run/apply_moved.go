package run

import (
	"context"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// foldableReads are what the plan of sel reads of b (plan.ReadsOf). With
// moved blocks, those of the plan of the state as the moves leave it,
// resolved from the store's counts (plan.MovesOf, given to sel for
// partialEnrich too), under the addresses the store holds them at: the
// partial state holds the records and people the plan reads, Build
// resolves the moves over it (its MovableAddresses are the store's
// Names), and the engine's fold of the moves reads no person: it moves
// those read, and the store renames the others in their rows
// (state.Changes.Renames, sqlstate.RenameStmts) in the transaction that
// records them, before the first call, however many the moves name. An
// enrich block beside them is planned from the store's counts asked
// under the old addresses (plan.EnrichReadsOf), as plan does.
func foldableReads(cfg *config.Config, b *state.Base, sel *plan.Options) (plan.Reads, error) {
	if len(cfg.Moves) > 0 {
		moved, err := plan.MovesOf(cfg, b)
		if err != nil {
			return plan.Reads{}, err
		}
		sel.Moved = moved
	}
	return plan.ReadsOf(cfg, b.Records, *sel), nil
}

// closeRecorder ends an apply's recording: what the recorded calls
// changed is written, and, by a recorder that can (CloseContext), not
// once ctx is done. After a second interrupt the apply exits at once:
// every call is recorded, and the next command folds them in, so that
// writing the moves of 3,000,000 people does not hold the exit.
func closeRecorder(ctx context.Context, rec backend.Recorder) error {
	if c, ok := rec.(interface {
		CloseContext(ctx context.Context) error
	}); ok {
		return c.CloseContext(ctx)
	}
	return rec.Close()
}
