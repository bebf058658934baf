package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/spf13/cobra"
)

func newWorkspaceDeleteCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	var force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workspace (one that holds state only with --force)",
		Long: `Delete removes a workspace and everything it holds (on the local backend, its
folder with its state, backup and journal). A workspace that holds
searches, profiles or people is refused unless --force: what it holds was
paid for. A workspace in use by a run (locked) is refused, as are
"default" and the workspace this command runs in (--workspace or
LEADSYNC_WORKSPACE).`,
		Example: `  leadsync workspace delete uk
  leadsync workspace delete old-campaign --force`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			if name := args[0]; name != state.DefaultWorkspace && name == src.workspaceName() {
				return fmt.Errorf("workspace %q is the one in use (--workspace or %s names it); nothing was deleted. Delete it from another one: leadsync --workspace default workspace delete %s", name, EnvWorkspace, name)
			}
			if err := set.DeleteWorkspace(args[0], force); err != nil {
				if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) {
					return noWorkspaceToDelete(set, ne)
				}
				return err
			}
			fmt.Fprintf(f.IO.Out, "Deleted workspace %q.\n", args[0])
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "delete a workspace that holds state, with everything in it")
	sf.vars.register(cmd)
	return cmd
}

// noWorkspaceToDelete says that the workspace delete names does not exist
// (there is nothing to make: the hint of other commands, to create it, is
// no answer here) and lists those that do.
func noWorkspaceToDelete(set backend.Workspaces, ne *backend.NoWorkspaceError) error {
	in := ""
	if ne.In != "" {
		in = " in " + ne.In
	}
	list, err := set.Workspaces()
	if err != nil {
		return fmt.Errorf("workspace %q does not exist%s; nothing was deleted", ne.Workspace, in)
	}
	sortWorkspaces(list)
	names := make([]string, 0, len(list))
	for _, ws := range list {
		names = append(names, ws.Name)
	}
	return fmt.Errorf("workspace %q does not exist%s; nothing was deleted. The workspaces are: %s", ne.Workspace, in, strings.Join(names, ", "))
}
