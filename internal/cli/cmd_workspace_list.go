package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newWorkspaceListCmd(f *Factory) *cobra.Command {
	var fl arguments.WorkspaceListFlags
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the workspaces, marking the one in use with *",
		Example: `  leadsync workspace list`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseWorkspaceList, func(_ *cobra.Command, a *arguments.WorkspaceList) error {
		return runWorkspaceList(f, a)
	})
	return cmd
}

func runWorkspaceList(f *Factory, a *arguments.WorkspaceList) error {
	src, set, err := workspaceSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	list, err := run.ListWorkspaces(set)
	if err != nil {
		return err
	}
	return views.WorkspaceList(f.IO.Out, list, src.workspaceName())
}
