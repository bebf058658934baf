package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// workspaceSource opens the configuration's backend on the workspace in
// use, made or not, for the workspace commands.
func workspaceSource(f *Factory, vars arguments.Vars) (*stateSource, backend.Workspaces, error) {
	cfg, err := configForState(f, vars, false)
	if err != nil {
		return nil, nil, err
	}
	src, err := openBackend(f, cfg)
	if err != nil {
		return nil, nil, err
	}
	set, ok := src.workspaces()
	if !ok {
		src.close()
		return nil, nil, fmt.Errorf("%s has no workspaces", src.describe(f))
	}
	return src, set, nil
}

func newWorkspaceCmd(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workspace",
		Short: "List, create, select and delete workspaces: independent states of one configuration",
		Long: `A workspace is one independent state of the configuration: one configuration
can keep several (a DACH and a UK campaign). Commands use the workspace
--workspace names, else LEADSYNC_WORKSPACE, else the one leadsync
workspace select chose for this working copy (kept in .leadsync/workspace),
else "default".

On the local backend "default" is the state database (.leadsync/state.db)
and workspace NAME is the folder .leadsync/workspaces/NAME, with its own
state database and lock; on the pg backend each workspace is its own
state in the database.`,
		Example: `  leadsync workspace list
  leadsync workspace new uk
  leadsync --workspace uk apply
  leadsync workspace select uk && leadsync plan
  leadsync workspace show
  leadsync workspace delete uk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkspaceListCmd(f), newWorkspaceNewCmd(f), newWorkspaceSelectCmd(f), newWorkspaceShowCmd(f), newWorkspaceDeleteCmd(f))
	return cmd
}
