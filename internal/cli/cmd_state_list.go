package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateListCmd(f *Factory) *cobra.Command {
	var fl arguments.StateListFlags
	cmd := &cobra.Command{
		Use:   "list [PREFIX...]",
		Short: "List the addresses in the state",
		Long: `List prints one address per line: searches, then profiles, imports and
tracks, then people as person.<id>. With prefixes, only the addresses that
start with one of them. --json prints them as one object: format_version
and addresses, each with its address and kind (search, profile, import,
track or person).`,
		Example: `  leadsync state list
  leadsync state list search.cto
  leadsync state list --no-people
  leadsync state list --json | jq -r '.addresses[] | select(.kind == "search") | .address'`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStateList, func(_ *cobra.Command, a *arguments.StateList) error {
		return runStateList(f, a)
	})
	return cmd
}

func runStateList(f *Factory, a *arguments.StateList) error {
	src, b, err := loadBase(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	defer b.Close()
	view := views.NewStateList(f.IO.Out, a.View == arguments.ViewJSON)
	return view.List(b, a.People, a.Prefixes)
}
