package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

func newStatePullCmd(f *Factory) *cobra.Command {
	var fl arguments.StatePullFlags
	cmd := &cobra.Command{
		Use:   "pull",
		Short: "Print the workspace's state as the local state file's JSON",
		Long: `Pull prints the state of the workspace in use as the JSON of a local state
file, with the events an interrupted command recorded folded in (it holds
personal data: write it only where it belongs). leadsync state push --from
reads it back.`,
		Example: `  leadsync state pull > backup.json
  leadsync --workspace uk state pull | jq '.searches | keys'`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStatePull, func(_ *cobra.Command, a *arguments.StatePull) error {
		return runStatePull(f, a)
	})
	return cmd
}

// runStatePull prints the state of the workspace in use, with the calls of
// an interrupted apply folded in, as a local state file's JSON, written
// as its people are read a batch at a time (backend.Stream).
func runStatePull(f *Factory, a *arguments.StatePull) error {
	_, src, err := configSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	st, err := backend.OpenStream(src.backend)
	if err != nil {
		return err
	}
	defer st.Close()
	return statefile.EncodeStream(f.IO.Out, st.Header(), st.People)
}
