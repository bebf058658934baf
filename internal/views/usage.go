package views

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// Usage is the view of `leadsync usage`: the quota the service reported.
type Usage interface {
	Usage(u *api.Usage, sandbox bool) error
}

// NewUsage returns the JSON or the human view of usage, writing to w.
func NewUsage(w io.Writer, asJSON bool) Usage {
	if asJSON {
		return usageJSON{w}
	}
	return usageHuman{w}
}

var (
	_ Usage = usageHuman{}
	_ Usage = usageJSON{}
)

type usageHuman struct{ w io.Writer }

func (v usageHuman) Usage(u *api.Usage, sandbox bool) error {
	tw := tabwriter.NewWriter(v.w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "Remaining requests this month:\t%s\n", textfmt.Thousands(u.RemainingRequests))
	date := u.InvoicingStartDate
	if date == "" {
		date = "(not given)"
	}
	fmt.Fprintf(tw, "Invoicing start date:\t%s\n", date)
	if err := tw.Flush(); err != nil {
		return err
	}
	if sandbox {
		_, err := fmt.Fprintln(v.w, "(the built-in sandbox: nothing is charged)")
		return err
	}
	return nil
}

// UsageJSON is the --json form of usage.
type UsageJSON struct {
	FormatVersion      string `json:"format_version"`
	RemainingRequests  int    `json:"remaining_requests"`
	InvoicingStartDate string `json:"invoicing_start_date"`
	Sandbox            bool   `json:"sandbox"`
}

type usageJSON struct{ w io.Writer }

func (v usageJSON) Usage(u *api.Usage, sandbox bool) error {
	return writeJSONDoc(v.w, UsageJSON{FormatVersion: "1", RemainingRequests: u.RemainingRequests, InvoicingStartDate: u.InvoicingStartDate, Sandbox: sandbox})
}

// BillingCallUncounted warns on w that the budget's ledger could not be
// told of the billing call usage made: the usage was read, and the call
// is made already.
func BillingCallUncounted(w io.Writer, err error) {
	fmt.Fprintf(w, "Warning: the budget's ledger was not told of this billing call (a request of the monthly quota): %v\n", err)
}
