package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cli/arguments"
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
	if a.View == arguments.ViewJSON {
		return printUsageJSON(f.IO.Out, u, cfg.API.Sandbox)
	}
	writeDiagnostics(f, cfg, diags) // warnings
	printUsage(f.IO.Out, u, cfg.API.Sandbox)
	return nil
}

// usageJSON is the --json form of the usage.
type usageJSON struct {
	FormatVersion      string `json:"format_version"`
	RemainingRequests  int    `json:"remaining_requests"`
	InvoicingStartDate string `json:"invoicing_start_date"`
	Sandbox            bool   `json:"sandbox"`
}

func printUsageJSON(w io.Writer, u *api.Usage, sandbox bool) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(usageJSON{FormatVersion: "1", RemainingRequests: u.RemainingRequests, InvoicingStartDate: u.InvoicingStartDate, Sandbox: sandbox})
}

func printUsage(w io.Writer, u *api.Usage, sandbox bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "Remaining requests this month:\t%s\n", groupThousands(u.RemainingRequests))
	date := u.InvoicingStartDate
	if date == "" {
		date = "(not given)"
	}
	fmt.Fprintf(tw, "Invoicing start date:\t%s\n", date)
	_ = tw.Flush()
	if sandbox {
		fmt.Fprintln(w, "(the built-in sandbox: nothing is charged)")
	}
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := fmt.Sprint(n)
	neg := ""
	if n < 0 {
		neg, s = "-", s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return neg + s
}
