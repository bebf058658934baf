package cli

import (
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/spf13/cobra"
)

func newStatePullCmd(f *Factory) *cobra.Command {
	var sf stateFlags
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Print the workspace's state as the local state file's JSON",
		Long: `Pull prints the state of the workspace in use as the JSON of a local state
file, with the calls an interrupted apply recorded folded in (it holds
personal data: write it only where it belongs). leadsync state push --from
reads it back.`,
		Example: `  leadsync state pull > backup.json
  leadsync --workspace uk state pull | jq '.searches | keys'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := openStateSource(f, &sf)
			if err != nil {
				return err
			}
			defer src.close()
			s, err := src.backend.Load()
			if err != nil {
				return err
			}
			return statefile.Encode(f.IO.Out, s)
		},
	}
	sf.vars.register(cmd)
	return cmd
}
