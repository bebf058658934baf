package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/views"
)

func newVersionCmd(f *Factory) *cobra.Command {
	var fl arguments.VersionFlags
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the leadsync version",
		Example: "  leadsync version\n  leadsync --version",
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseVersion, func(*cobra.Command, *arguments.Version) error {
		return views.Version(f.IO.Out)
	})
	return cmd
}

// versionLine is the output of leadsync --version (views.VersionLine).
func versionLine() string { return views.VersionLine() }
