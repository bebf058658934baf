package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
)

// usageOptions are the inputs of `leadsync usage`.
type usageOptions struct {
	json bool
	vars varFlags
}

func newUsageCmd(f *Factory) *cobra.Command {
	opts := &usageOptions{}
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Print the remaining requests this month and the invoicing start date",
		Long: `Usage reads the monthly quota of the API key from the service (one call to
the first generation's billing operation): the requests left this month and
the date the subscription started. The enrich credit balance is not part of
it; the service reports that with each enrichment.`,
		Example: `  leadsync usage
  leadsync usage --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runUsage(cmd.Context(), f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the usage as one JSON object")
	opts.vars.register(cmd)
	return cmd
}

func runUsage(ctx context.Context, f *Factory, opts *usageOptions) error {
	cfg, diags := loadConfig(f, &opts.vars)
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
	if opts.json {
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
