package cli

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/views"
)

func newUsageCmd(f *Factory) *cobra.Command {
	var fl arguments.UsageFlags
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Print the remaining requests this month and the invoicing start date",
		Long: `Usage reads the monthly quota of the API key from the service (one call to
the first generation's billing operation): the requests left this month and
the date the subscription started. The enrich credit balance is not part of
it; the service reports that with each enrichment.`,
		Example: `  leadsync usage
  leadsync usage --json`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseUsage, func(cmd *cobra.Command, a *arguments.Usage) error {
		return runUsage(cmd.Context(), f, a)
	})
	return cmd
}

func runUsage(ctx context.Context, f *Factory, a *arguments.Usage) error {
	cfg, diags := loadConfig(f, a.Vars)
	if diags.HasErrors() {
		writeDiagnostics(f, cfg, diags)
		return silentExit(ExitError)
	}
	client, err := newServiceClient(f, cfg)
	if err != nil {
		return err
	}
	u, err := client.Billing(noteWaits(ctx, f))
	if err != nil {
		return reportAPIError(f, "reading the usage", err)
	}
	countBillingCall(f, cfg, u)
	if a.View == arguments.ViewHuman {
		writeDiagnostics(f, cfg, diags) // warnings
	}
	return views.NewUsage(f.IO.Out, a.View == arguments.ViewJSON).Usage(u, cfg.API.Sandbox)
}

// countBillingCall counts the billing call just made in the budget's
// ledger (run.CountBillingCall); a ledger that cannot be told is a
// warning: the usage was read, and the call is made already.
func countBillingCall(f *Factory, cfg *config.Config, u *api.Usage) {
	if cfg.Settings.Budget == nil {
		return
	}
	d, src, err := runDeps(f, cfg, 0)
	if err == nil {
		defer src.close()
		err = run.CountBillingCall(d, cfg, u)
	}
	if err != nil {
		views.BillingCallUncounted(f.IO.ErrOut, err)
	}
}
