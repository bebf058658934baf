package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"time"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// showOptions are the inputs of `leadsync show`.
type showOptions struct {
	state     stateFlags
	json      bool
	markdown  bool
	compareTo string
}

func newShowCmd(f *Factory) *cobra.Command {
	opts := &showOptions{}
	cmd := &cobra.Command{
		Use:   "show [PLANFILE]",
		Short: "Show the state, or a saved plan",
		Long: `Show without an argument summarises the state: each search with when it ran
and how many results it had, each profile read, how many people and
enrichments the state holds, the last failures and the last known usage.
It prints no personal data; leadsync state show ADDRESS does, for one
address.

Show PLANFILE prints a plan saved by leadsync plan --out, as plan printed it;
with --markdown as a pull-request comment (and --compare-to BASE.json, the
difference from the base branch's plan --json).`,
		Example: `  leadsync show
  leadsync show --json
  leadsync show tomorrow.plan
  leadsync show --markdown --compare-to base-plan.json leads.plan > comment.md`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.markdown && opts.json {
				return errors.New("--markdown and --json cannot be used together: choose one form")
			}
			if opts.compareTo != "" && !opts.markdown {
				return errors.New("--compare-to needs --markdown: the difference is shown in the pull-request comment")
			}
			if len(args) == 1 {
				return showPlan(f, args[0], opts.json, opts.markdown, opts.compareTo)
			}
			if opts.markdown {
				return errors.New("--markdown shows a saved plan: leadsync show --markdown PLANFILE")
			}
			return showState(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print one JSON object")
	cmd.Flags().BoolVar(&opts.markdown, "markdown", false, "print a saved plan as a pull-request comment (GitHub Markdown)")
	cmd.Flags().StringVar(&opts.compareTo, "compare-to", "", "with --markdown: show the difference from the plan --json in `FILE`")
	opts.state.register(cmd)
	return cmd
}

// stateSummary is the --json form of `leadsync show` (and the data of the
// human form). Lists are never null.
type stateSummary struct {
	FormatVersion string `json:"format_version"`
	State         struct {
		Path            string `json:"path"`
		Exists          bool   `json:"exists"`
		Lineage         string `json:"lineage"`
		Serial          uint64 `json:"serial"`
		LeadsyncVersion string `json:"leadsync_version"`
		// JournalPending: an interrupted apply left calls in the journal;
		// they are included here and folded in by the next apply.
		JournalPending bool `json:"journal_pending"`
	} `json:"state"`
	Lock     *backend.LockInfo `json:"lock,omitempty"`
	Searches []searchSummary   `json:"searches"`
	Profiles []profileSummary  `json:"profiles"`
	People   struct {
		Total int `json:"total"`
		// Unlisted are people no search or profile in the state found in
		// its last run or kept (they stay in state, enrichments and all,
		// until retention removes them).
		Unlisted int `json:"unlisted"`
	} `json:"people"`
	Enrichments struct {
		Total    int            `json:"total"`
		ByStatus map[string]int `json:"by_status"`
	} `json:"enrichments"`
	Failures []failureSummary `json:"failures"`
	Usage    state.Usage      `json:"usage"`
	// CallsSinceQuotaCheck counts the calls that use the monthly quota
	// (first generation) recorded as completed after the quota was read:
	// the requests left are at least that many fewer now.
	CallsSinceQuotaCheck int `json:"calls_since_quota_check"`
	// Suppressed counts the people erased with leadsync forget.
	Suppressed int `json:"suppressed"`
	// SplitsUnderway are split searches whose run stopped in the middle
	// (the next apply resumes them).
	SplitsUnderway []splitUnderway `json:"splits_underway"`
}

type searchSummary struct {
	Address     string    `json:"address"`
	Generation  int       `json:"generation"`
	RanAt       time.Time `json:"ran_at"`
	ResultCount int       `json:"result_count"`
	Kept        int       `json:"kept"`
	Capped      bool      `json:"capped"`
	// FirstRun: the last run was the search's first (state written before
	// runs were counted says false); Added then counts every person kept.
	FirstRun bool `json:"first_run"`
	Added    int  `json:"added"`
	Removed  int  `json:"removed"`
	// Split is the completeness of a split search's last run (sub-searches
	// run, people found, leaves still at the cap); absent otherwise.
	Split *state.SplitSummary `json:"split,omitempty"`
}

// splitUnderway is a split search's run stopped in the middle.
type splitUnderway struct {
	Address     string `json:"address"`
	SubSearches int    `json:"sub_searches_done"`
}

type profileSummary struct {
	Address    string    `json:"address"`
	Generation int       `json:"generation"`
	ReadAt     time.Time `json:"read_at"`
}

type failureSummary struct {
	Address string    `json:"address"`
	At      time.Time `json:"at"`
	Status  int       `json:"status"`
	Message string    `json:"message"`
}

// summarizeState gathers what show prints.
func summarizeState(src *stateSource, s *state.State, exists bool) *stateSummary {
	sum := &stateSummary{FormatVersion: "1", Searches: []searchSummary{}, Profiles: []profileSummary{}, Failures: []failureSummary{}, SplitsUnderway: []splitUnderway{}}
	sum.State.Exists = exists
	if exists {
		sum.State.Lineage, sum.State.Serial, sum.State.LeadsyncVersion = s.Lineage, s.Serial, s.LeadsyncVersion
	}
	sum.State.Path = src.backend.Describe()
	if path, ok := backend.FilePath(src.backend); ok {
		sum.State.Path = path
	}
	_, sum.State.JournalPending = backend.JournalPending(src.backend)
	sum.Lock = backend.LockHolder(src.backend)
	for _, addr := range slices.Sorted(maps.Keys(s.Searches)) {
		sr := s.Searches[addr]
		first, added := sr.Runs == 1, sr.Added
		if first {
			added = len(sr.LeadIDs) // all new to the search
		}
		sum.Searches = append(sum.Searches, searchSummary{Address: addr, Generation: int(sr.Generation), RanAt: sr.RanAt,
			ResultCount: sr.ResultCount, Kept: len(sr.LeadIDs), Capped: sr.Capped, FirstRun: first, Added: added, Removed: sr.Removed,
			Split: sr.SplitSummary()})
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Splits)) {
		sum.SplitsUnderway = append(sum.SplitsUnderway, splitUnderway{Address: addr, SubSearches: len(s.Splits[addr].Nodes)})
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Profiles)) {
		pr := s.Profiles[addr]
		sum.Profiles = append(sum.Profiles, profileSummary{Address: addr, Generation: int(pr.Generation), ReadAt: pr.ReadAt})
	}
	sum.People.Total = len(s.People)
	sum.Enrichments.ByStatus = map[string]int{api.StatusValid: 0, api.StatusCatchAll: 0, api.StatusEmpty: 0}
	for _, p := range s.People {
		if len(p.FoundBy) == 0 {
			sum.People.Unlisted++
		}
		if p.Enrichment != nil {
			sum.Enrichments.Total++
			status := p.Enrichment.Result.ValidationStatus
			if status == "" {
				status = api.StatusEmpty
			}
			sum.Enrichments.ByStatus[status]++
		}
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Failures)) {
		fl := s.Failures[addr]
		sum.Failures = append(sum.Failures, failureSummary{Address: addr, At: fl.At, Status: fl.Status, Message: fl.Message})
	}
	sum.Usage = s.Usage
	if s.Usage.CheckedAt != nil {
		sum.CallsSinceQuotaCheck = export.QuotaCallsSince(s, *s.Usage.CheckedAt)
	}
	sum.Suppressed = len(s.Suppressed)
	return sum
}

// showState is the state branch of `leadsync show`.
func showState(f *Factory, opts *showOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	s, err := src.backend.Load()
	if err != nil {
		return err
	}
	exists := src.exists(s)
	sum := summarizeState(src, s, exists)
	if opts.json {
		sum.State.Path = src.describe(f)
		enc := json.NewEncoder(f.IO.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(sum)
	}
	if !exists && !sum.State.JournalPending {
		fmt.Fprintf(f.IO.Out, "No state yet at %s: leadsync apply creates it.\n", src.describe(f))
		return nil
	}
	return writeStateSummary(newStateWriter(f.IO.Out), f, src, sum)
}

func writeStateSummary(w *stateWriter, f *Factory, src *stateSource, sum *stateSummary) error {
	now := f.Now()
	w.printf("State %s: serial %d, lineage %s, written by leadsync %s.\n",
		src.describe(f), sum.State.Serial, sum.State.Lineage, sum.State.LeadsyncVersion)
	if journal, ok := backend.JournalPending(src.backend); ok {
		w.printf("It includes the calls an interrupted apply recorded in %s; the next apply folds them in.\n", stateRelPath(f, journal))
	}
	if l := sum.Lock; l != nil {
		w.printf("Locked by %s (pid %d) for %q since %s; lock ID %s.\n", l.Who, l.PID, l.Operation, stateWhen(l.Created, now), l.ID)
	}

	rows := make([][]string, 0, len(sum.Searches))
	for _, sr := range sum.Searches {
		res := fmt.Sprintf("%s, %s kept", textfmt.Plural(sr.ResultCount, "result"), textfmt.Thousands(sr.Kept))
		switch {
		case sr.Split != nil:
			res = fmt.Sprintf("%s found by %s, %s kept: %s", textfmt.Plural(sr.Split.People, "person"), textfmt.Plural(sr.Split.SubSearches, "sub-search"), textfmt.Thousands(sr.Kept), sr.Split.Verdict())
		case sr.Capped:
			res += " (capped at 300)"
		}
		change := ""
		if sr.FirstRun {
			change = "first run"
		} else if sr.Added+sr.Removed > 0 {
			change = "+" + textfmt.Thousands(sr.Added) + " -" + textfmt.Thousands(sr.Removed)
		}
		rows = append(rows, []string{sr.Address, "ran " + stateWhen(sr.RanAt, now), res, change})
	}
	w.printf("\nSearches: %d\n", len(sum.Searches))
	writeColumns(w, rows)
	for _, sr := range sum.Searches {
		if sr.Split == nil || len(sr.Split.Saturated) == 0 {
			continue
		}
		w.printf("%s: sub-searches still at the cap of 300:\n", sr.Address)
		for _, leaf := range sr.Split.Saturated {
			w.printf("  %s\n", leaf)
		}
	}
	for _, u := range sum.SplitsUnderway {
		w.printf("%s: a split run stopped after %s; the next apply resumes it.\n", u.Address, textfmt.Plural(u.SubSearches, "sub-search"))
	}

	rows = rows[:0]
	for _, pr := range sum.Profiles {
		rows = append(rows, []string{pr.Address, "read " + stateWhen(pr.ReadAt, now)})
	}
	w.printf("\nProfiles: %d\n", len(sum.Profiles))
	writeColumns(w, rows)

	w.printf("\nPeople: %s", textfmt.Thousands(sum.People.Total))
	if sum.People.Unlisted > 0 {
		w.printf(" (%s no longer found by any search or profile, still kept in state)", textfmt.Thousands(sum.People.Unlisted))
	}
	w.printf("\n")
	by := sum.Enrichments.ByStatus
	w.printf("Enrichments: %s (%s valid, %s catch all, %s empty", textfmt.Thousands(sum.Enrichments.Total),
		textfmt.Thousands(by[api.StatusValid]), textfmt.Thousands(by[api.StatusCatchAll]), textfmt.Thousands(by[api.StatusEmpty]))
	var other []string
	for k := range by {
		if k != api.StatusValid && k != api.StatusCatchAll && k != api.StatusEmpty {
			other = append(other, k)
		}
	}
	sort.Strings(other)
	for _, k := range other {
		w.printf(", %s %s", textfmt.Thousands(by[k]), k)
	}
	w.printf(")\n")
	if sum.Suppressed > 0 {
		w.printf("Suppressed: %s erased with leadsync forget (results naming them are dropped)\n", textfmt.Plural(sum.Suppressed, "person"))
	}

	if len(sum.Failures) > 0 {
		rows = rows[:0]
		for _, fl := range sum.Failures {
			msg := fl.Message
			if fl.Status != 0 {
				msg = fmt.Sprintf("HTTP %d: %s", fl.Status, msg)
			}
			rows = append(rows, []string{fl.Address, stateWhen(fl.At, now), msg})
		}
		w.printf("\nFailures of the last runs: %d\n", len(sum.Failures))
		writeColumns(w, rows)
	}

	u := sum.Usage
	w.printf("\nUsage: ")
	if u.RemainingRequests != nil {
		w.printf("%s requests left this month", textfmt.Thousands(*u.RemainingRequests))
		if u.CheckedAt != nil {
			w.printf(" (checked %s", stateAge(now.Sub(*u.CheckedAt)))
			if n := sum.CallsSinceQuotaCheck; n > 0 {
				// The figure is the service's, read before those calls.
				w.printf("; %s recorded since, so at least %s fewer now", textfmt.Plural(n, "call"), textfmt.Thousands(n))
			}
			w.printf(")")
		}
	} else {
		w.printf("requests left unknown")
	}
	if u.CreditBalance != nil {
		w.printf("; credit balance %s", textfmt.Thousands(*u.CreditBalance))
		if u.CreditBalanceAt != nil {
			w.printf(" (%s)", stateAge(now.Sub(*u.CreditBalanceAt)))
		}
	}
	w.printf("; %s spent in all runs", textfmt.Plural(u.CreditsSpent, "credit"))
	if u.CreditsUnknown > 0 {
		w.printf(" (and %s that may have been charged: enrichments whose outcome is unknown)", textfmt.Thousands(u.CreditsUnknown))
	}
	w.printf(".\n")
	return w.flush()
}

// writeColumns prints rows indented by two spaces with aligned columns.
func writeColumns(w *stateWriter, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			if n := textfmt.Width(c); n > width[i] {
				width[i] = n
			}
		}
	}
	for _, r := range rows {
		line := " "
		for i, c := range r {
			if i == len(r)-1 {
				line += " " + c
				break
			}
			line += " " + textfmt.PadRight(c, width[i]) + " "
		}
		w.printf("%s\n", trimRight(line))
	}
}

func trimRight(s string) string {
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}
