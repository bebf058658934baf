package cli

import (
	"github.com/leadsync/leadsync/internal/views"
	"github.com/spf13/cobra"
)

func newWorkspaceListCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List the workspaces, marking the one in use with *",
		Example: `  leadsync workspace list`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, set, err := workspaceSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			list, err := set.Workspaces()
			if err != nil {
				return err
			}
			sortWorkspaces(list)
			w := newStateWriter(f.IO.Out)
			for _, ws := range list {
				mark := " "
				if ws.Name == src.workspaceName() {
					mark = "*"
				}
				switch {
				case ws.Err != nil:
					w.printf("%s %s  (cannot be read: %v)\n", mark, ws.Name, ws.Err)
				case ws.Exists && (ws.Serial > 0 || !ws.IsEmpty()):
					w.printf("%s %s  (%s, %s; serial %d)\n", mark, ws.Name, views.Plural(ws.Blocks, "record"), views.Plural(ws.People, "person"), ws.Serial)
				default:
					w.printf("%s %s  (empty)\n", mark, ws.Name)
				}
			}
			return w.flush()
		},
	}
	sf.vars.register(cmd)
	return cmd
}
