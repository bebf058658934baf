package cli

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newWorkspaceNewCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:     "new NAME",
		Short:   "Create an empty workspace",
		Example: `  leadsync workspace new uk && leadsync --workspace uk plan`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			if err := set.CreateWorkspace(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(f.IO.Out, "Created workspace %q. Use it with --workspace %s or LEADSYNC_WORKSPACE=%s.\n", args[0], args[0], args[0])
			return nil
		},
	}
	sf.vars.register(cmd)
	return cmd
}
