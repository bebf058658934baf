package cli

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// workspaceSource opens the configuration's backend on the workspace in
// use, made or not, for the workspace commands.
func workspaceSource(f *Factory, sf *stateFlags) (*stateSource, backend.Workspaces, error) {
	src, err := openStateSourceWith(f, sf, openBackend)
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
		Short: "List, create and delete workspaces: independent states of one configuration",
		Long: `A workspace is one independent state of the configuration: one configuration
can keep several (a DACH and a UK campaign). Commands use the workspace
--workspace or LEADSYNC_WORKSPACE names, "default" otherwise.

On the local backend "default" is the state file (.leadsync/state.json) and
workspace NAME is the folder .leadsync/workspaces/NAME, with its own state
file, journal, backup and lock; on the pg backend each workspace is its own
state in the database.`,
		Example: `  leadsync workspace list
  leadsync workspace new uk
  leadsync --workspace uk apply
  leadsync workspace delete uk`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return cmd.Help() },
	}
	cmd.AddCommand(newWorkspaceListCmd(f), newWorkspaceNewCmd(f), newWorkspaceDeleteCmd(f))
	return cmd
}

// sortWorkspaces puts the default workspace first, then the others by
// name, on either backend.
func sortWorkspaces(list []backend.WorkspaceInfo) {
	sort.SliceStable(list, func(i, j int) bool {
		if (list[i].Name == state.DefaultWorkspace) != (list[j].Name == state.DefaultWorkspace) {
			return list[i].Name == state.DefaultWorkspace
		}
		return list[i].Name < list[j].Name
	})
}
