package cli

import (
	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newStateMvCmd(f *Factory) *cobra.Command {
	var fl arguments.StateMvFlags
	cmd := &cobra.Command{
		Use:   "mv FROM TO",
		Short: "Move a search, profile or enrich block's records to another address",
		Long: `Mv moves what the state holds at FROM to TO, with no call: a search's
results, a profile read, the enrichments an enrich block made (which keep
counting against its limit). Use it after renaming a block, moving it into
a module or giving it for_each or count, so that the next plan neither
runs the search again nor pays again for what was found.

FROM and TO are a search, profile or enrich block (every instance keeps
its key), one instance, or a module (module.dach: everything inside it).
A moved block in the configuration does the same when the plan that shows
it is applied, which suits teams that apply only from CI.

Mv takes the state lock, records the move in the journal, and keeps the
state before as <state>.backup. It refuses, and writes nothing, when the
state holds nothing at FROM or already holds records at TO.`,
		Example: `  leadsync state mv search.cto search.cto_dach
  leadsync state mv search.cto 'search.cto["Berlin"]'
  leadsync state mv search.cto module.dach.search.cto
  leadsync state mv enrich.contacts module.dach.enrich.contacts`,
		ValidArgsFunction: completeStateAddresses(f, 1),
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStateMv, func(_ *cobra.Command, a *arguments.StateMv) error {
		return runStateMv(f, a)
	})
	return cmd
}

func runStateMv(f *Factory, a *arguments.StateMv) error {
	return changeState(f, a.State, a.LockTimeout, "move", func(deps run.Deps) error {
		moves, err := run.StateMv(deps, a.From, a.To)
		if err != nil {
			return err
		}
		return views.NewStateChange(f.IO.Out).Moved(moves)
	})
}
