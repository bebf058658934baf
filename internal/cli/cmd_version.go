package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/version"
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
		_, err := fmt.Fprintln(f.IO.Out, versionLine())
		return err
	})
	return cmd
}

// versionLine is the output of leadsync version and leadsync --version.
func versionLine() string {
	return fmt.Sprintf("leadsync %s (%s, %s/%s)", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
