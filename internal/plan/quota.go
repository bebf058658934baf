package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/leadsync/leadsync/internal/api"
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
		if former := b.v.trackPeople(t, func(trackee) {}); former > 0 {
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

// searchesUseQuota reports whether the plan's searches and profile reads
// go to the first generation, whose calls use the monthly quota.
func (b *builder) searchesUseQuota() bool { return b.cfg.API.Generation != api.Gen2 }

// quota checks the monthly quota and the credit cap. Only the calls that
// use the quota (Totals.QuotaCallsMax) count against the requests left.
func (b *builder) quota() {
	q := &b.p.Quota
	t := b.p.Totals
	api := b.cfg.API
	q.MinRemainingRequests = api.MinRemainingRequests
	q.MaxCredits = api.MaxCredits
	switch {
	case b.opts.Usage != nil:
		rem := b.opts.Usage.RemainingRequests
		after := rem - t.QuotaCallsMax
		q.RemainingRequests, q.After, q.Checked = &rem, &after, true
		if t.QuotaCallsMax > 0 && after < api.MinRemainingRequests {
			calls := "calls"
			if t.QuotaCallsMax < t.CallsMax {
				calls = "first-generation calls (the second generation's use none)"
			}
			b.diags = append(b.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "The plan could leave too few requests this month",
				Detail: fmt.Sprintf("The service has %s requests left this month; this plan may make up to %s %s, leaving %s, below min_remaining_requests = %s.\n\n%s\n%s",
					thousands(rem), thousands(t.QuotaCallsMax), calls, thousands(after), thousands(api.MinRemainingRequests), b.costBreakdown(false), b.quotaAdvice(after)),
				Subject: rangePtr(api.DeclRange),
			})
		}
	case b.opts.Offline:
		q.Note = "not checked (--offline)"
	case api.Generation == 2 && api.BaseURL == "":
		q.Note = "not checked (the second generation has no usage operation)"
	default:
		q.Note = "not checked"
	}
	if !q.Checked && b.st.Usage.RemainingRequests != nil && b.st.Usage.CheckedAt != nil {
		q.Note += fmt.Sprintf("; %s requests were left when last checked %s", thousands(*b.st.Usage.RemainingRequests), ago(b.now, *b.st.Usage.CheckedAt))
	}
	if t.CreditsMax > api.MaxCredits && t.CreditsMax > 0 {
		b.diags = append(b.diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "The plan could spend more credits than max_credits",
			Detail: fmt.Sprintf("This plan may spend up to %s credits; max_credits = %s.\n\n%s\nSet or lower limit on the enrich blocks, lower max_results of their searches, plan part of the work with --target, or raise max_credits in the api block.",
				thousands(t.CreditsMax), thousands(api.MaxCredits), b.costBreakdown(true)),
			Subject: rangePtr(api.DeclRange),
		})
	}
}

// creditBalance compares the credits the plan may spend with the balance
// the last enrichment reported. The service has no operation to read the
// balance without spending, so it may have been topped up since: a plan
// that needs more is a warning, never an error (docs/decisions.md).
func (b *builder) creditBalance() {
	u := b.st.Usage
	if u.CreditBalance == nil {
		return
	}
	t := b.p.Totals
	bal := *u.CreditBalance
	after := bal - t.CreditsMax
	cb := &b.p.Credits
	cb.Balance, cb.After = &bal, &after
	when := "at an unknown time"
	if u.CreditBalanceAt != nil {
		at := u.CreditBalanceAt.UTC()
		cb.CheckedAt = &at
		when = ago(b.now, at)
	}
	if t.CreditsMax <= bal {
		return
	}
	summary := "The plan needs more credits than were left at the last enrichment"
	var spend string
	switch {
	case t.Credits > bal && t.Credits == t.CreditsMax:
		spend = fmt.Sprintf("this plan spends %s", plural(t.Credits, "credit", "credits"))
	case t.Credits > bal:
		spend = fmt.Sprintf("this plan spends at least %s, up to %s", plural(t.Credits, "credit", "credits"), thousands(t.CreditsMax))
	default:
		summary = "The plan may need more credits than were left at the last enrichment"
		spend = fmt.Sprintf("this plan may spend up to %s", plural(t.CreditsMax, "credit", "credits"))
		if t.Credits > 0 {
			spend += fmt.Sprintf(" (%s certain)", thousands(t.Credits))
		}
	}
	b.diags = append(b.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail: fmt.Sprintf("The last enrichment, %s, left a balance of %s; %s.\n\n"+
			"Unless the balance has been topped up since, apply stops at the first enrichment the service refuses (403 Forbidden) and keeps everything done before it. "+
			"The service reports the balance only in the answer of an enrichment, so leadsync cannot check it before apply. "+
			"If you have topped up the enrich credits since, apply as planned; otherwise top them up with the service's operator first, "+
			"or leave the enrichments out of this run (--target the searches and profiles).",
			when, plural(bal, "credit", "credits"), spend),
	})
}
