package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
)

func newCompletionCmd(f *Factory) *cobra.Command {
	var fl arguments.CompletionFlags
	cmd := &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Completion prints a script that makes your shell complete leadsync's
commands and flags. Load it once per session, or install it:

  bash:        source <(leadsync completion bash)
  zsh:         leadsync completion zsh > "${fpath[1]}/_leadsync"
  fish:        leadsync completion fish > ~/.config/fish/completions/leadsync.fish
  powershell:  leadsync completion powershell | Out-String | Invoke-Expression`,
		Example:   "  source <(leadsync completion bash)",
		ValidArgs: arguments.Shells,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseCompletion, func(cmd *cobra.Command, a *arguments.Completion) error {
		root := cmd.Root()
		switch a.Shell {
		case "bash":
			return root.GenBashCompletionV2(f.IO.Out, true)
		case "zsh":
			return root.GenZshCompletion(f.IO.Out)
		case "fish":
			return root.GenFishCompletion(f.IO.Out, true)
		case "powershell":
			return root.GenPowerShellCompletionWithDesc(f.IO.Out)
		}
		return fmt.Errorf("unknown shell %q: use bash, zsh, fish or powershell", a.Shell)
	})
	return cmd
}
