package cli

import (
	"github.com/spf13/cobra"
)

func newStateCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Read and edit the state: list, show, rm, recover, push, pull",
		Long: `The state (the SQLite database .leadsync/state.db unless leadsync { state_path }
says otherwise, or the workspace's rows with a backend "pg" block) records every search
run, profile read and enrichment, and the people they found. These commands
read it, remove records from it, recover a damaged journal, and copy it
into a backend (push) or out of it (pull).

Addresses are those of the configuration (search.cto["Berlin"],
profile.founder) and person.<id> for people.`,
		Example: `  leadsync state list --no-people
  leadsync state show 'search.cto["Berlin"]'
  leadsync state rm search.old`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newStateListCmd(f), newStateShowCmd(f), newStateRmCmd(f), newStateMvCmd(f), newStateRecoverCmd(f), newStatePushCmd(f), newStatePullCmd(f))
	return cmd
}
