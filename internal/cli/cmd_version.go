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
		Example: "  leadsync version",
		RunE: func(cmd *cobra.Command, args []string) error {
			fmt.Fprintf(f.IO.Out, "leadsync %s (%s, %s/%s)\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
