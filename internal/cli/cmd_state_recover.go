package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateRecoverCmd(f *Factory) *cobra.Command {
	var fl arguments.StateRecoverFlags
	cmd := &cobra.Command{
		Use:   "recover",
		Short: "Keep the calls of a damaged journal that can be read; repair IDs that name nobody",
		Long: `Recover folds the readable part of a journal damaged in the middle into
the state. Every line of the journal is a completed, paid call with its own
checksum. The lines before the first damaged one are kept, and so is every
whole line after it (its checksum right, numbered after the last one kept).
The damaged lines are left out: those calls may be made again by the next
apply.
The journal itself is never deleted: it is moved aside, unchanged, to
<journal>.damaged-<time>, and the state before is kept as <state>.backup.

Recover then repairs the records that name people the state does not hold,
as removing those people would have, and says how many of each. It takes
their IDs out of the searches' lead lists, the nodes of split runs under
way and the imports' lists (the others stay, in their order). It removes a
profile read whose person is gone: the next apply makes it again.
leadsync never writes such an ID, but a state that holds some is refused
by state push, and its exports would drop those rows.

Use it when a command says the journal cannot be replayed, or that an ID
names a person who is not in people. Recover takes the state lock and makes
no call. A database is asked which IDs name nobody without reading the
people. It then rewrites the lists that hold some itself. A state file is
read whole, and repaired as it is read. A healthy state is not written;
after a repair, recover says the serial it wrote. A state kept in a
database (state.db, the default, or the pg backend) records each call in a
transaction and has no journal file to recover: there, recover only
repairs the IDs that name nobody.`,
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
	res, err := run.StateRecover(stateDeps(f, src, 0))
	if err != nil {
		return err
	}
	movedTo := ""
	if res.Journal != nil {
		movedTo = stateRelPath(f, res.Journal.MovedTo)
	}
	return views.NewStateChange(f.IO.Out).Recovered(res, movedTo)
}
