package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newWorkspaceDeleteCmd(f *Factory) *cobra.Command {
	var fl arguments.WorkspaceDeleteFlags
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a workspace (one that holds state only with --force)",
		Long: `Delete removes a workspace and everything it holds (on the local backend, its
folder with its state, backup and journal). A workspace that holds
searches, profiles or people is refused unless --force: what it holds was
paid for. A workspace in use by a run (locked) is refused, as are
"default" and the workspace this command runs in (--workspace,
LEADSYNC_WORKSPACE or the one leadsync workspace select chose).`,
		Example: `  leadsync workspace delete uk
  leadsync workspace delete old-campaign --force`,
		ValidArgsFunction: completeWorkspaces(f, 1),
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseWorkspaceDelete, func(_ *cobra.Command, a *arguments.WorkspaceDelete) error {
		return runWorkspaceDelete(f, a)
	})
	return cmd
}

func runWorkspaceDelete(f *Factory, a *arguments.WorkspaceDelete) error {
	src, set, err := workspaceSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	err = run.WorkspaceDelete(set, a.Name, src.workspaceName(), a.Force)
	if ie := (*run.WorkspaceInUseError)(nil); errors.As(err, &ie) {
		_, by := f.workspaceAndSource()
		return fmt.Errorf("workspace %q is the one in use (%s names it); nothing was deleted. Delete it from another one: leadsync --workspace default workspace delete %s", ie.Workspace, by, ie.Workspace)
	}
	if err != nil {
		return err
	}
	return views.NewWorkspace(f.IO.Out).Deleted(a.Name)
}
