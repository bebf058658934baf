package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/version"
)

func newVersionCmd(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the leadsync version",
		Args:    cobra.NoArgs,
		Example: "  leadsync version\n  leadsync --version",
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintln(f.IO.Out, versionLine())
			return nil
		},
	}
}

// versionLine is the output of leadsync version and leadsync --version.
func versionLine() string {
	return fmt.Sprintf("leadsync %s (%s, %s/%s)", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}
