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
		Short: "Keep the calls of a damaged journal that can be read; drop lead IDs that name nobody",
		Long: `Recover folds the readable part of a journal damaged in the middle into
the state. Every line of the journal is a completed, paid call with its own
checksum: the lines before the first damaged one are kept, and so is every
whole line after it (its checksum right, numbered after the last one kept);
the damaged lines are left out (those calls may be made again by the next
apply).
The journal itself is never deleted: it is moved aside, unchanged, to
<journal>.damaged-<time>, and the state before is kept as <state>.backup.

Recover then takes out of the searches' lead lists the IDs of people the
state does not hold, and says how many. leadsync never writes such an ID, but
a state that holds some is refused by state push, and its exports would drop
those rows. They carry nothing: nothing is lost and nothing is fetched again.

Use it when a command says the journal cannot be replayed, or that a lead ID
names a person who is not in people. Recover takes the state lock; it reads
the state whole only when some lead ID names nobody. A state kept in a database (state.db, the default, or the pg
backend) records each call in a transaction and has no journal file to
recover: there, recover only drops the lead IDs that name nobody.`,
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
