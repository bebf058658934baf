package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newWorkspaceSelectCmd(f *Factory) *cobra.Command {
	var fl arguments.WorkspaceSelectFlags
	cmd := &cobra.Command{
		Use:   "select NAME",
		Short: "Choose the workspace this working copy uses",
		Long: `Select keeps NAME as the workspace of this working copy, in
.leadsync/workspace (as Terraform keeps its in .terraform/environment):
every later command uses it until another is selected. "default" selects
the default workspace again. The workspace must exist (leadsync workspace
new NAME makes one; --or-create makes it here when it does not).

--workspace and LEADSYNC_WORKSPACE still win over the selection, for the
command they are given to; select refuses while either is set, since the
selection would not be the workspace in use.`,
		Example: `  leadsync workspace select uk
  leadsync workspace select campaign-2027 --or-create
  leadsync workspace select default`,
		ValidArgsFunction: completeWorkspaces(f, 1),
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseWorkspaceSelect, func(_ *cobra.Command, a *arguments.WorkspaceSelect) error {
		return runWorkspaceSelect(f, a)
	})
	return cmd
}

func runWorkspaceSelect(f *Factory, a *arguments.WorkspaceSelect) error {
	if ws, by := f.workspaceAndSource(); by == "--workspace" || by == EnvWorkspace {
		return fmt.Errorf("%s chooses workspace %q and wins over a selection, so nothing was selected. Leave it out (unset %s) to select the workspace of this working copy", by, ws, EnvWorkspace)
	}
	src, set, err := workspaceSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	err = run.SelectWorkspace(f.Dir, a.Name, set)
	if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) && a.OrCreate {
		if err = run.WorkspaceNew(set, a.Name); err != nil {
			return err
		}
		if err = views.NewWorkspace(f.IO.Out).CreatedToSelect(a.Name); err != nil {
			return err
		}
		err = run.SelectWorkspace(f.Dir, a.Name, set)
	}
	if ne := (*backend.NoWorkspaceError)(nil); errors.As(err, &ne) {
		return fmt.Errorf("workspace %q does not exist, so nothing was selected; create it with\n  leadsync workspace new %s\nor select and create it at once with leadsync workspace select %s --or-create", a.Name, a.Name, a.Name)
	}
	if err != nil {
		return err
	}
	return views.NewWorkspace(f.IO.Out).Selected(a.Name)
}
