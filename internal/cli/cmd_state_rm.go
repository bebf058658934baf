package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateRmCmd(f *Factory) *cobra.Command {
	var fl arguments.StateRmFlags
	cmd := &cobra.Command{
		Use:   "rm ADDRESS...",
		Short: "Remove searches, profiles, imports, tracks or people from the state",
		Long: `Rm removes records from the state, as if their blocks had been removed
from the configuration: a search's or profile's people leave the exports
that list it, but the people and their enrichments stay (nothing paid for
is lost). The next plan shows the block as new again.

A block's address (search.cto) or a module's (module.dach) removes every
search and profile record inside it.

track.<name> forgets the track's record: when it read its people, so that
the next plan finds its sources' people due again (a person a profile
block or another track read within its every stays read), and who it read
at all, so that it no longer watches the people its sources hold no more;
their history and status are kept.

person.<id> removes a person entirely, with their enrichment; a search that
finds them again brings them back. For an erasure request use leadsync
forget, which also keeps them out from then on.

Rm takes the state lock, and the state before is kept as <state>.backup.`,
		Example: `  leadsync state rm 'search.cto["Berlin"]'
  leadsync state rm profile.founder search.old
  leadsync state rm track.champions
  leadsync state rm person.123456.a1b2c3`,
		ValidArgsFunction: completeStateAddresses(f, 0),
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStateRm, func(_ *cobra.Command, a *arguments.StateRm) error {
		return runStateRm(f, a)
	})
	return cmd
}

func runStateRm(f *Factory, a *arguments.StateRm) error {
	return changeState(f, a.State, a.LockTimeout, "remove", func(deps run.Deps) error {
		removed, err := run.StateRm(deps, a.Addresses)
		if err != nil {
			return err
		}
		// The words of each kind are its row's (kind.Row.Removed).
		return views.NewStateChange(f.IO.Out).Removed(removed)
	})
}
