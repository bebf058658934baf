package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/views"
)

func newWorkspaceShowCmd(f *Factory) *cobra.Command {
	var fl arguments.WorkspaceShowFlags
	cmd := &cobra.Command{
		Use:   "show",
		Short: "Print the name of the workspace in use",
		Long: `Show prints the name of the workspace commands use here: the one --workspace
names, else LEADSYNC_WORKSPACE, else the one leadsync workspace select
chose, else "default". Only the name, for scripts.`,
		Example: `  leadsync workspace show
  echo "planning in $(leadsync workspace show)"`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseWorkspaceShow, func(_ *cobra.Command, _ *arguments.WorkspaceShow) error {
		name := f.workspace()
		if name == "" {
			name = state.DefaultWorkspace
		}
		return views.NewWorkspace(f.IO.Out).Show(name)
	})
	return cmd
}
