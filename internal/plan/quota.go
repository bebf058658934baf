package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/kind"
)

// quotaAdvice is the end of the refusal of a plan that could leave fewer
// requests than min_remaining_requests: how to go on. Besides doing less
// (lower limits, a longer every of the tracks that read, --target, state
// rm of a track that watches people its sources no longer hold),
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
	ways := append([]string{"lower a limit or max_results"}, b.trackWays()...)
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

// trackWays are the ways to spend fewer requests on the track blocks
// that read in this plan (a track reads each person it watches once per
// every), with --target among them; only --target when no track reads.
func (b *builder) trackWays() []string {
	var reading []string
	var every []string
	var stop []string
	for _, t := range b.cfg.Tracks {
		c := b.p.Change(t.Address)
		if c == nil || c.Kind != kind.Track || c.CallsMax == 0 {
			continue
		}
		reading = append(reading, t.Address)
		every = append(every, fmt.Sprintf("%s reads each person once per %s", t.Address, formatDuration(t.Every)))
		if _, former := b.v.trackPeople(t); former > 0 {
			stop = append(stop, fmt.Sprintf("stop %s watching the %s its sources no longer hold (leadsync state rm %s: its sources' people are then its only people, and fall due again)",
				t.Address, plural(former, "person", "people"), t.Address))
		}
	}
	if len(reading) == 0 {
		return []string{"plan part of the work with --target"}
	}
	ways := []string{
		fmt.Sprintf("read tracked people less often with a longer every (%s)", strings.Join(every, "; ")),
		fmt.Sprintf("plan part of the work with --target (a plan that does not target %s makes none of its reads)", strings.Join(reading, " or ")),
	}
	return append(ways, stop...)
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
