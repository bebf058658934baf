package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateRecoverCmd(f *Factory) *cobra.Command {
	var fl arguments.StateRecoverFlags
	cmd := &cobra.Command{
		Use:   "recover",
		Short: "Keep the calls of a damaged journal that can be read",
		Long: `Recover folds the readable part of a journal damaged in the middle into
the state. Every line of the journal is a completed, paid call with its own
checksum: the lines before the first damaged one are kept, and so is every
whole line after it (its checksum right, numbered after the last one kept);
the damaged lines are left out (those calls may be made again by the next
apply).
The journal itself is never deleted: it is moved aside, unchanged, to
<journal>.damaged-<time>, and the state before is kept as <state>.backup.

Use it when a command says the journal cannot be replayed. Recover takes the
state lock. A state kept in a SQLite database (state.db, the default) records
each call in a transaction and has no journal file to recover.`,
		Example: `  leadsync state recover
  leadsync state recover --state backups/state.json`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStateRecover, func(_ *cobra.Command, a *arguments.StateRecover) error {
		return runStateRecover(f, a)
	})
	return cmd
}

func runStateRecover(f *Factory, a *arguments.StateRecover) error {
	src, err := openStateSource(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	rec, ok := backend.RecovererOf(src.backend)
	if !ok {
		return fmt.Errorf("%s has no journal file to recover: the %s backend records each call in a transaction", src.describe(f), src.def.Title)
	}
	res, err := run.StateRecover(stateDeps(f, src, 0), rec)
	if err != nil {
		return err
	}
	return views.NewStateChange(f.IO.Out).Recovered(res, stateRelPath(f, res.MovedTo))
}
