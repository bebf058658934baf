package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
)

// parseArgs makes cmd run with the struct its parser (internal/cli/arguments)
// makes of its command line. cobra has parsed the flags into fl by the
// time its Args hook runs; the hook then checks them with the positional
// arguments, before the root's --chdir is applied and before anything is
// read, as cobra's own check of the number of arguments did. A command
// line of the wrong shape (an *arguments.UsageError) is shown with the
// command's usage line; another mistake as it is. run receives the struct.
func parseArgs[F, A any](cmd *cobra.Command, fl *F, parse func(F, []string) (A, error), run func(cmd *cobra.Command, a A) error) {
	var parsed A
	cmd.Args = func(c *cobra.Command, args []string) error {
		a, err := parse(*fl, args)
		var ue *arguments.UsageError
		if errors.As(err, &ue) {
			return usageError(c, ue.Problem)
		}
		if err != nil {
			return err
		}
		parsed = a
		return nil
	}
	cmd.RunE = func(c *cobra.Command, _ []string) error { return run(c, parsed) }
}
