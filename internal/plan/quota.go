package plan

import (
	"fmt"
	"strings"
	"time"
)

// quotaAdvice is the end of the refusal of a plan that could leave fewer
// requests than min_remaining_requests: how to go on. Besides doing less,
// the ways out are to wait until the monthly quota resets (on the day the
// billing month turns, from the service's invoicing start date: the
// billing call's, else the one state recorded; no date when neither is
// known) and to lower min_remaining_requests to what the plan leaves (not
// offered when the plan needs more requests than are left).
func (b *builder) quotaAdvice(after int) string {
	inv := b.st.Usage.InvoicingStartDate
	if u := b.opts.Usage; u != nil && u.InvoicingStartDate != "" {
		inv = u.InvoicingStartDate
	}
	ways := []string{"lower a limit or max_results", "plan part of the work with --target"}
	if _, next, known := BillingMonth(inv, b.now); known {
		start, _ := time.Parse("2006-01-02", strings.TrimSpace(inv))
		day := dayOrdinal(start.Day())
		if start.Day() > 28 {
			day += ", or the last day of a shorter month"
		}
		ways = append(ways, fmt.Sprintf("wait until the quota resets on %s (the billing month starts on the %s, from the invoicing start date %s)",
			next.Format("2006-01-02"), day, strings.TrimSpace(inv)))
	} else {
		ways = append(ways, "wait until the monthly quota resets (when is not known: the service gave no invoicing start date)")
	}
	if after >= 0 {
		ways = append(ways, fmt.Sprintf("lower min_remaining_requests in the api block to %s or less (it keeps requests back for other uses of the key)", thousands(after)))
	} else {
		ways[len(ways)-1] += fmt.Sprintf("; this plan may need %s, so lowering min_remaining_requests cannot let it through", plural(-after, "request", "requests")+" more than are left")
	}
	s := strings.Join(ways[:len(ways)-1], ", ") + ", or " + ways[len(ways)-1] + "."
	return strings.ToUpper(s[:1]) + s[1:]
}

// dayOrdinal writes a day of the month: 1st, 2nd, 3rd, 4th, 11th, 22nd.
func dayOrdinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
