package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newWorkspaceNewCmd(f *Factory) *cobra.Command {
	var fl arguments.WorkspaceNewFlags
	cmd := &cobra.Command{
		Use:     "new NAME",
		Short:   "Create an empty workspace",
		Example: `  leadsync workspace new uk && leadsync --workspace uk plan`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseWorkspaceNew, func(_ *cobra.Command, a *arguments.WorkspaceNew) error {
		return runWorkspaceNew(f, a)
	})
	return cmd
}

func runWorkspaceNew(f *Factory, a *arguments.WorkspaceNew) error {
	src, set, err := workspaceSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	if err := run.WorkspaceNew(set, a.Name); err != nil {
		return err
	}
	return views.NewWorkspace(f.IO.Out).Created(a.Name, EnvWorkspace)
}
