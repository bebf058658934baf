package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
)

// newHelpCmd replaces cobra's help command, which prints the usage and
// exits 0 for a topic that does not exist: a script (or a typo) learns
// nothing from that. An unknown topic is an error with the nearest names.
func newHelpCmd() *cobra.Command {
	var fl arguments.HelpFlags
	cmd := &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Long:  "Help prints the help of a command: leadsync help plan is leadsync plan --help.",
		Example: `  leadsync help
  leadsync help state rm`,
		ValidArgsFunction: func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			cmd, _, err := c.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []string
			for _, sub := range cmd.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, sub.Name())
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseHelp, func(c *cobra.Command, a *arguments.Help) error {
		args := a.Topic
		cmd, rest, err := c.Root().Find(args)
		if err != nil || cmd == nil || len(rest) > 0 || (cmd == c.Root() && len(args) > 0) {
			parent := c.Root()
			if cmd != nil {
				parent = cmd
			}
			hint := ""
			if s := parent.SuggestionsFor(args[len(args)-1]); len(s) > 0 {
				hint = fmt.Sprintf(" (did you mean %q?)", s[0])
			}
			return fmt.Errorf("unknown help topic %q%s; run 'leadsync --help' for the list of commands", strings.Join(args, " "), hint)
		}
		cmd.InitDefaultHelpFlag()
		cmd.InitDefaultVersionFlag()
		return cmd.Help()
	})
	return cmd
}
