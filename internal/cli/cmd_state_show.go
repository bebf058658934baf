package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateShowCmd(f *Factory) *cobra.Command {
	var fl arguments.StateShowFlags
	cmd := &cobra.Command{
		Use:   "show ADDRESS",
		Short: "Show one search, profile, import, track or person in the state",
		Long: `Show prints everything the state holds for one address: a search's request,
when it ran and the people it found; a profile read; an import's file and
people; a track's people, when it last read each, what it saw change and
who left the network or is private; or a person (person.<id>) with their
lead fields, enrichment, profile and history. People's personal data is
printed only here, when asked for by address.`,
		Example: `  leadsync state show 'search.cto["Berlin"]'
  leadsync state show profile.founder
  leadsync state show track.champions
  leadsync state show person.123456.a1b2c3 --json`,
		ValidArgsFunction: completeStateAddresses(f, 1),
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStateShow, func(_ *cobra.Command, a *arguments.StateShow) error {
		return runStateShow(f, a)
	})
	return cmd
}

func runStateShow(f *Factory, a *arguments.StateShow) error {
	src, err := openStateSource(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	b, err := src.openExisting(f)
	if err != nil {
		return err
	}
	defer b.Close()
	s, err := b.Holding(a.Address)
	if err != nil {
		return err
	}
	if views.StateKind(s, a.Address) == "" {
		return run.UnknownAddress(s, a.Address, "")
	}
	return views.NewStateShow(f.IO.Out, a.View == arguments.ViewJSON, f.Now).Show(s, a.Address)
}
