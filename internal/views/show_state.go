package views

import (
	"fmt"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/export"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// StateWhere is what the caller knows of where a state lives, for show.
type StateWhere struct {
	// Path names the state: its file relative to the working folder, or
	// what the backend says of itself.
	Path string
	// Exists is false while nothing was ever written.
	Exists bool
	// Journal is the journal of an interrupted apply whose calls the
	// state includes (relative to the working folder); "" when none.
	// JournalPending says there is one (a backend may have no path).
	Journal        string
	JournalPending bool
	// Lock is who holds the state's lock; nil when nobody does.
	Lock *backend.LockInfo
	// InFlight, when an apply holds the lock, counts its enrichments in
	// flight (set aside from the unknown outcomes: run.RunningOn).
	InFlight *InFlight
}

// InFlight counts the enrichments a running apply has sent and not yet
// recorded an outcome for.
type InFlight struct {
	Enrichments int `json:"enrichments"`
	Credits     int `json:"credits"`
}

// StateSummary is the --json form of `leadsync show` and the data of its
// human form. Lists are never null.
type StateSummary struct {
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
	Lock *backend.LockInfo `json:"lock,omitempty"`
	// InFlight is set while an apply holds the lock (StateWhere.InFlight).
	InFlight *InFlight        `json:"in_flight,omitempty"`
	Searches []SearchSummary  `json:"searches"`
	Profiles []ProfileSummary `json:"profiles"`
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
	// History counts the changes state recorded in people's histories
	// (leadsync state show person.<id> lists them).
	History  state.DriftCounts `json:"history"`
	Failures []FailureSummary  `json:"failures"`
	Usage    state.Usage       `json:"usage"`
	// CallsSinceQuotaCheck counts the calls that use the monthly quota
	// (first generation) recorded as completed after the quota was read:
	// the requests left are at least that many fewer now.
	CallsSinceQuotaCheck int `json:"calls_since_quota_check"`
	// Suppressed counts the people erased with leadsync forget.
	Suppressed int `json:"suppressed"`
	// NotPaid counts the enrichments the state holds that no credit was
	// spent on here: from imports, and copied from other workspaces of
	// the backend (each saved a credits_per_enrich). People kept out by
	// exclude blocks are counted by plan and apply, which read the
	// configuration's lists.
	NotPaid struct {
		Imported int `json:"imported"`
		Reused   int `json:"reused"`
	} `json:"not_paid"`
	// SplitsUnderway are split searches whose run stopped in the middle
	// (the next apply resumes them).
	SplitsUnderway []SplitUnderway `json:"splits_underway"`

	// journal is where the pending journal is, for the human form.
	journal string
}

// SearchSummary is one search in a StateSummary.
type SearchSummary struct {
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
	// Changed counts the people of the last run whose title, company or
	// location it found changed since state last saw them.
	Changed int `json:"changed"`
	// Split is the completeness of a split search's last run (sub-searches
	// run, people found, leaves still at the cap); absent otherwise.
	Split *state.SplitSummary `json:"split,omitempty"`
}

// SplitUnderway is a split search's run stopped in the middle.
type SplitUnderway struct {
	Address     string `json:"address"`
	SubSearches int    `json:"sub_searches_done"`
}

// ProfileSummary is one profile read in a StateSummary.
type ProfileSummary struct {
	Address    string    `json:"address"`
	Generation int       `json:"generation"`
	ReadAt     time.Time `json:"read_at"`
}

// FailureSummary is the last failure of one address in a StateSummary.
type FailureSummary struct {
	Address string    `json:"address"`
	At      time.Time `json:"at"`
	Status  int       `json:"status"`
	Message string    `json:"message"`
}

// SummarizeState gathers what show prints of the state b, which lives
// where says: its records, and counts of its people that the store
// answers (state.PeopleFacts) without reading them all. It holds no
// personal data.
func SummarizeState(b *state.Base, where StateWhere) (*StateSummary, error) {
	s := b.Records
	sum := &StateSummary{FormatVersion: "1", Searches: []SearchSummary{}, Profiles: []ProfileSummary{}, Failures: []FailureSummary{},
		SplitsUnderway: []SplitUnderway{}, Lock: where.Lock, InFlight: where.InFlight, journal: where.Journal}
	sum.State.Path, sum.State.Exists, sum.State.JournalPending = where.Path, where.Exists, where.JournalPending
	if where.Exists {
		sum.State.Lineage, sum.State.Serial, sum.State.LeadsyncVersion = s.Lineage, s.Serial, s.LeadsyncVersion
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Searches)) {
		sum.Searches = append(sum.Searches, summarizeSearch(addr, s.Searches[addr], b.Kept(addr)))
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Splits)) {
		sum.SplitsUnderway = append(sum.SplitsUnderway, SplitUnderway{Address: addr, SubSearches: len(s.Splits[addr].Nodes)})
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Profiles)) {
		pr := s.Profiles[addr]
		sum.Profiles = append(sum.Profiles, ProfileSummary{Address: addr, Generation: int(pr.Generation), ReadAt: pr.ReadAt})
	}
	facts, err := b.PeopleFacts(s.Usage.CheckedAt)
	if err != nil {
		return nil, err
	}
	sum.People.Total, sum.People.Unlisted = facts.Total, facts.Unlisted
	sum.Enrichments.Total = facts.Enriched
	sum.Enrichments.ByStatus = map[string]int{person.StatusValid: 0, person.StatusCatchAll: 0, person.StatusEmpty: 0}
	for status, n := range facts.ByStatus {
		sum.Enrichments.ByStatus[status] += n
	}
	for _, addr := range slices.Sorted(maps.Keys(s.Failures)) {
		fl := s.Failures[addr]
		sum.Failures = append(sum.Failures, FailureSummary{Address: addr, At: fl.At, Status: fl.Status, Message: fl.Message})
	}
	sum.History = facts.History
	sum.Usage = s.Usage
	if s.Usage.CheckedAt != nil {
		sum.CallsSinceQuotaCheck = export.RecordQuotaCallsSince(s, *s.Usage.CheckedAt) + facts.QuotaCalls
	}
	sum.Suppressed = len(s.Suppressed)
	sum.NotPaid.Imported, sum.NotPaid.Reused = facts.Imported, facts.Reused
	return sum, nil
}

func summarizeSearch(addr string, sr *state.Search, kept int) SearchSummary {
	first, added := sr.Runs == 1, sr.Added
	if first {
		added = kept // all new to the search
	}
	return SearchSummary{Address: addr, Generation: int(sr.Generation), RanAt: sr.RanAt,
		ResultCount: sr.ResultCount, Kept: kept, Capped: sr.Capped, FirstRun: first, Added: added, Removed: sr.Removed,
		Changed: sr.Changed, Split: sr.SplitSummary()}
}

// ShowState is the view of `leadsync show` without a plan file: the
// state summarised, without personal data.
type ShowState interface {
	Show(sum *StateSummary) error
}

// NewShowState returns the JSON or the human view of show, writing to w;
// now is the clock the human form says ages by.
func NewShowState(w io.Writer, asJSON bool, now func() time.Time) ShowState {
	if asJSON {
		return showStateJSON{w}
	}
	return showStateHuman{w, now}
}

var (
	_ ShowState = showStateHuman{}
	_ ShowState = showStateJSON{}
)

type showStateJSON struct{ w io.Writer }

func (v showStateJSON) Show(sum *StateSummary) error { return writeJSONDoc(v.w, sum) }

type showStateHuman struct {
	w   io.Writer
	now func() time.Time
}

// Show prints the summary in parts: where the state is, its searches, its
// profiles, its people and enrichments, the last failures, the usage.
func (v showStateHuman) Show(sum *StateSummary) error {
	if !sum.State.Exists && !sum.State.JournalPending {
		_, err := fmt.Fprintf(v.w, "No state yet at %s: leadsync apply creates it.\n", sum.State.Path)
		return err
	}
	w, now := newLineWriter(v.w), v.now()
	writeStateHeader(w, sum, now)
	writeSearchSummaries(w, sum.Searches, sum.SplitsUnderway, now)
	rows := make([][]string, 0, len(sum.Profiles))
	for _, pr := range sum.Profiles {
		rows = append(rows, []string{pr.Address, "read " + When(pr.ReadAt, now)})
	}
	w.printf("\nProfiles: %d\n", len(sum.Profiles))
	w.columns(rows)
	writePeopleSummary(w, sum)
	writeFailureSummaries(w, sum.Failures, now)
	writeUsageSummary(w, sum.Usage, sum.CallsSinceQuotaCheck, now)
	return w.flush()
}

func writeStateHeader(w *lineWriter, sum *StateSummary, now time.Time) {
	w.printf("State %s: serial %d, lineage %s, written by leadsync %s.\n",
		sum.State.Path, sum.State.Serial, sum.State.Lineage, sum.State.LeadsyncVersion)
	if sum.State.JournalPending {
		w.printf("It includes the events an interrupted command recorded in %s; the next apply folds them in.\n", sum.journal)
	}
	if l := sum.Lock; l != nil {
		w.printf("Locked by %s (pid %d) for %q since %s; lock ID %s.\n", l.Who, l.PID, l.Operation, When(l.Created, now), l.ID)
	}
	if in := sum.InFlight; in != nil {
		w.printf("That apply is running: this is the state as it has recorded it so far")
		if in.Enrichments > 0 {
			their := "their outcomes"
			if in.Enrichments == 1 {
				their = "its outcome"
			}
			w.printf("; %s in flight now (%s being spent; the apply records %s)", textfmt.Plural(in.Enrichments, "enrichment"),
				textfmt.Plural(in.Credits, "credit"), their)
		}
		w.printf(".\n")
	}
}

func writeSearchSummaries(w *lineWriter, searches []SearchSummary, underway []SplitUnderway, now time.Time) {
	rows := make([][]string, 0, len(searches))
	for _, sr := range searches {
		res := fmt.Sprintf("%s, %s kept", textfmt.Plural(sr.ResultCount, "result"), textfmt.Thousands(sr.Kept))
		switch {
		case sr.Split != nil:
			res = fmt.Sprintf("%s found by %s, %s kept: %s", textfmt.Plural(sr.Split.People, "person"), textfmt.Plural(sr.Split.SubSearches, "sub-search"), textfmt.Thousands(sr.Kept), sr.Split.Verdict())
		case sr.ResultCount > api.MaxResults:
			res += " (more than the cap of 300: at most 300 kept)"
		case sr.Capped:
			res += " (capped at 300)"
		}
		change := ""
		if sr.FirstRun {
			change = "first run"
		} else if sr.Added+sr.Removed > 0 {
			change = "+" + textfmt.Thousands(sr.Added) + " -" + textfmt.Thousands(sr.Removed)
		}
		if sr.Changed > 0 {
			change = strings.TrimPrefix(change+", ", ", ") + textfmt.Thousands(sr.Changed) + " changed"
		}
		rows = append(rows, []string{sr.Address, "ran " + When(sr.RanAt, now), res, change})
	}
	w.printf("\nSearches: %d\n", len(searches))
	w.columns(rows)
	for _, sr := range searches {
		if sr.Split == nil || len(sr.Split.Saturated) == 0 {
			continue
		}
		w.printf("%s: sub-searches still at the cap of 300:\n", sr.Address)
		for _, leaf := range sr.Split.Saturated {
			w.printf("  %s\n", leaf)
		}
	}
	for _, u := range underway {
		w.printf("%s: a split run stopped after %s; the next apply resumes it.\n", u.Address, textfmt.Plural(u.SubSearches, "sub-search"))
	}
}

func writePeopleSummary(w *lineWriter, sum *StateSummary) {
	w.printf("\nPeople: %s", textfmt.Thousands(sum.People.Total))
	if sum.People.Unlisted > 0 {
		w.printf(" (%s no longer found by any search or profile, still kept in state)", textfmt.Thousands(sum.People.Unlisted))
	}
	w.printf("\n")
	by := sum.Enrichments.ByStatus
	w.printf("Enrichments: %s (%s valid, %s catch all, %s %s", textfmt.Thousands(sum.Enrichments.Total),
		textfmt.Thousands(by[person.StatusValid]), textfmt.Thousands(by[person.StatusCatchAll]), textfmt.Thousands(by[person.StatusEmpty]), export.NotFound)
	for _, k := range slices.Sorted(maps.Keys(by)) {
		if k != person.StatusValid && k != person.StatusCatchAll && k != person.StatusEmpty {
			w.printf(", %s %s", textfmt.Thousands(by[k]), k)
		}
	}
	w.printf(")\n")
	if n := sum.NotPaid; n.Imported+n.Reused > 0 {
		w.printf("Not paid for: %s from imports, %s copied from other workspaces (no credit spent on them)\n",
			textfmt.Plural(n.Imported, "enrichment"), textfmt.Plural(n.Reused, "enrichment"))
	}
	if h := sum.History; h.Changes > 0 || h.Left+h.Private > 0 {
		w.printf("History: %s\n", historyText(h))
	}
	if sum.Suppressed > 0 {
		w.printf("Suppressed: %s erased with leadsync forget (results naming them are dropped)\n", textfmt.Plural(sum.Suppressed, "person"))
	}
}

// historyText sums the people's histories: "5 changes of 3 people (2
// titles, 2 companies, 1 location); 1 left the network, 1 private; 1
// e-mail of a former employer (not current); 1 e-mail of people who left
// the network (not current)".
func historyText(h state.DriftCounts) string {
	var parts []string
	for _, f := range []struct{ field, one, many string }{
		{state.DriftTitle, "title", "titles"}, {state.DriftCompany, "company", "companies"},
		{state.DriftLocation, "location", "locations"}, {state.DriftEmail, "e-mail", "e-mails"},
		{state.DriftStatus, "status", "statuses"},
	} {
		if n := h.ByField[f.field]; n > 0 {
			parts = append(parts, textfmt.Thousands(n)+" "+map[bool]string{true: f.one, false: f.many}[n == 1])
		}
	}
	t := fmt.Sprintf("%s of %s", textfmt.Plural(h.Changes, "change"), textfmt.Plural(h.People, "person"))
	if len(parts) > 0 {
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	if h.Left > 0 {
		t += "; " + textfmt.Thousands(h.Left) + " left the network"
	}
	if h.Private > 0 {
		t += "; " + textfmt.Thousands(h.Private) + " private"
	}
	if h.StaleEmails > 0 {
		t += "; " + textfmt.Plural(h.StaleEmails, "e-mail") + " of a former employer (not current)"
	}
	if h.LeftEmails > 0 {
		t += "; " + textfmt.Plural(h.LeftEmails, "e-mail") + " of people who left the network (not current)"
	}
	return t
}

func writeFailureSummaries(w *lineWriter, failures []FailureSummary, now time.Time) {
	if len(failures) == 0 {
		return
	}
	rows := make([][]string, 0, len(failures))
	for _, fl := range failures {
		msg := fl.Message
		if fl.Status != 0 {
			msg = fmt.Sprintf("HTTP %d: %s", fl.Status, msg)
		}
		rows = append(rows, []string{fl.Address, When(fl.At, now), msg})
	}
	w.printf("\nFailures of the last runs: %d\n", len(failures))
	w.columns(rows)
}

// writeUsageSummary prints the last known usage: the service's figures,
// with the calls recorded since the quota was read (the figure is the
// service's, read before those calls).
func writeUsageSummary(w *lineWriter, u state.Usage, callsSince int, now time.Time) {
	w.printf("\nUsage: ")
	if u.RemainingRequests != nil {
		w.printf("%s requests left this month", textfmt.Thousands(*u.RemainingRequests))
		if u.CheckedAt != nil {
			w.printf(" (checked %s", Age(now.Sub(*u.CheckedAt)))
			if callsSince > 0 {
				w.printf("; %s recorded since, so at least %s fewer now", textfmt.Plural(callsSince, "call"), textfmt.Thousands(callsSince))
			}
			w.printf(")")
		}
	} else {
		w.printf("requests left unknown")
	}
	if u.CreditBalance != nil {
		w.printf("; credit balance %s", textfmt.Thousands(*u.CreditBalance))
		if u.CreditBalanceAt != nil {
			w.printf(" (%s)", Age(now.Sub(*u.CreditBalanceAt)))
		}
	}
	w.printf("; %s spent in all runs", textfmt.Plural(u.CreditsSpent, "credit"))
	if u.CreditsUnknown > 0 {
		w.printf(" (and %s that may have been charged: enrichments whose outcome is unknown)", textfmt.Thousands(u.CreditsUnknown))
	}
	w.printf(".\n")
}
