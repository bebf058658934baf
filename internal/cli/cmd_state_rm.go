package cli

import (
	"errors"
	"fmt"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
	"github.com/spf13/cobra"
)

// stateRmOptions are the inputs of `leadsync state rm`.
type stateRmOptions struct {
	state     stateFlags
	addresses []string
}

func newStateRmCmd(f *Factory) *cobra.Command {
	opts := &stateRmOptions{}
	cmd := &cobra.Command{
		Use:   "rm ADDRESS...",
		Short: "Remove searches, profiles or people from the state",
		Long: `Rm removes records from the state, as if their blocks had been removed
from the configuration: a search's or profile's people leave the exports
that list it, but the people and their enrichments stay (nothing paid for
is lost). The next plan shows the block as new again.

person.<id> removes a person entirely, with their enrichment; a search that
finds them again brings them back. For an erasure request use leadsync
forget, which also keeps them out from then on.

Rm takes the state lock, and the state before is kept as <state>.backup.`,
		Example: `  leadsync state rm 'search.cto["Berlin"]'
  leadsync state rm profile.founder search.old
  leadsync state rm person.123456.a1b2c3`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeStateAddresses(f, 0),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.addresses = args
			return runStateRm(f, opts)
		},
	}
	cmd.Flags().DurationVar(&f.LockTimeout, "lock-timeout", 0, lockTimeoutHelp)
	opts.state.register(cmd)
	return cmd
}

func runStateRm(f *Factory, opts *stateRmOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	noState := fmt.Errorf("no state at %s yet: nothing to remove", src.describe(f))
	if backend.KnownAbsent(src.backend) {
		return noState // before taking the lock, which would create the directory
	}
	removed, err := run.StateRm(stateDeps(f, src), opts.addresses)
	if errors.Is(err, run.ErrNoState) {
		return noState
	}
	if err != nil {
		return err
	}
	for _, r := range removed {
		switch r.Kind {
		case "search":
			fmt.Fprintf(f.IO.Out, "Removed %s (%s leave the exports that list it; people and enrichments are kept)\n", r.Address, textfmt.Plural(r.Leads, "lead"))
		case "profile":
			fmt.Fprintf(f.IO.Out, "Removed %s (the person and their enrichment are kept)\n", r.Address)
		case "person":
			fmt.Fprintf(f.IO.Out, "Removed %s and their enrichment\n", r.Address)
		}
	}
	if bk, ok := backend.BackupOf(src.backend); ok {
		fmt.Fprintf(f.IO.Out, "The state before is kept in %s.\n", stateRelPath(f, bk.BackupPath()))
	}
	return nil
}
