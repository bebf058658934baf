package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/state"
)

// FormatVersion is the version of the plan JSON (printed by plan --json and
// kept in saved plan files). A saved plan of another version is refused.
const FormatVersion = "1"

// Action is what apply will do for one address.
type Action string

// Actions, as named in design.md.
const (
	Run     Action = "run"     // a search never run
	Rerun   Action = "rerun"   // a search whose request or generation changed, or --replace
	Refresh Action = "refresh" // a search older than its refresh
	Read    Action = "read"    // a profile read (new, changed, stale or replaced)
	Enrich  Action = "enrich"  // enrichments of an enrich block
	Forget  Action = "forget"  // an address in state that the configuration no longer has
	Write   Action = "write"   // an export file to (re)write; no call
	Update  Action = "update"  // a change of state without a call: kept leads cut to a lowered max_results, a profile read shared
	Moved   Action = "moved"   // a record moved to another address (a moved block); no call
	None    Action = "none"    // up to date
)

// String returns the action as written in the plan.
func (a Action) String() string { return string(a) }

// Reason says why an address has its action, in a form programs can test;
// Change.Detail says it for people.
type Reason string

// Reasons.
const (
	ReasonNew               Reason = "new"                 // never run or read
	ReasonReplace           Reason = "replace"             // --replace
	ReasonGenerationChanged Reason = "generation_changed"  // api.generation differs from the last run
	ReasonRequestChanged    Reason = "request_changed"     // the request differs from the last run
	ReasonMaxResultsRaised  Reason = "max_results_raised"  // the last run kept fewer than max_results now allows
	ReasonMaxResultsLowered Reason = "max_results_lowered" // the last run kept more than max_results now allows (update)
	ReasonSamePerson        Reason = "same_person"         // another profile block reads the same person (update)
	ReasonSplitChanged      Reason = "split_changed"       // split_by (or the values it splits across) differs from the last run
	ReasonResume            Reason = "resume"              // a split search's run stopped in the middle is continued
	ReasonRefresh           Reason = "refresh"             // older than its refresh
	ReasonUpToDate          Reason = "up_to_date"
	ReasonRemoved           Reason = "removed"        // in state, not in the configuration
	ReasonPeople            Reason = "people"         // people to enrich
	ReasonLimitReached      Reason = "limit_reached"  // people left, but the limit is reached
	ReasonStateChanges      Reason = "state_changes"  // an export follows the state this plan changes
	ReasonFileMissing       Reason = "file_missing"   // an export whose file does not exist
	ReasonNoRecord          Reason = "no_record"      // an export this working copy has no record of writing
	ReasonConfigChanged     Reason = "config_changed" // an export whose configuration changed since it was written
	ReasonStateNewer        Reason = "state_newer"    // an export written from an older state (forget, state rm, a teammate's apply)
	ReasonRetention         Reason = "retention"      // people not seen for leadsync { retention }
	ReasonMoved             Reason = "moved"          // a moved block moves the record here
)

// String returns the reason as written in the plan.
func (r Reason) String() string { return string(r) }

// Options are the inputs of Build besides the configuration and the state.
type Options struct {
	// Now is the time the plan is made at; every refresh decision uses it.
	// Zero means time.Now().
	Now time.Time
	// Targets limit the plan to these addresses (instance or block
	// addresses). An enrich or export target pulls in its sources, like
	// terraform -target. Empty: everything.
	Targets []string
	// Replace forces a search to run again or a profile to be read again.
	Replace []string
	// Usage is the result of one billing call made by the caller; nil with
	// --offline or when only the second generation is configured.
	Usage *api.Usage
	// Offline says the caller made no call on purpose (for the quota note).
	Offline bool
	// FileExists reports whether an export's file exists; the path is
	// joined to Config.Dir when relative. Nil: os.Stat.
	FileExists func(path string) bool
	// Budget is the billing month of leadsync { budget } and what the API
	// account spent in it (the backend's ledger); nil without a budget.
	Budget *BudgetState
	// Reuse finds the enrichments other workspaces of the backend hold
	// (backend.CrossWorkspace); nil when they share nothing.
	Reuse ReuseLookup
	// ReuseHeld lists the lookup keys of every person the other
	// workspaces hold an enrichment of (backend.ReuseKeys): with it,
	// EnrichReadsOf reads whole the people those keys find rather than
	// every person. Nil: a plan with Reuse reads every person.
	ReuseHeld func() ([]string, error)
	// ExportRecord returns the working copy's record of the last write of
	// the export at address in Config's workspace (.leadsync/exports.json,
	// read by the caller), nil when it has none. Nil: no export has a
	// record, so every export is written.
	ExportRecord func(address string) *ExportRecord
	// Enrich are the store's counts of an enrich block when the state
	// holds only the people EnrichReadsOf names; nil: the state holds
	// every person.
	Enrich *EnrichFacts
	// Colleagues are the companies and company domains of the state's
	// enrichments, read from the store (Reads.ReadColleagues) when the
	// state holds only the people ReadsOf names: an exclude block by
	// domain learns them from these. Nil: from the state's people.
	Colleagues *Colleagues
	// Expired are the people leadsync { retention } removes, found by the
	// store at Now (ExpiredOf) when the state holds only the people
	// ReadsOf names; nil: the state's people tell them.
	Expired *Expired
	// Moved are the moves of the configuration's moved blocks resolved
	// against the store (MovesOf) when the state holds only the people
	// ReadsOf or EnrichReadsOf names: Build makes them. Nil: Build
	// resolves them against the state (Moves).
	Moved *Moving
}

// ExportRecord is what the plan reads of the record of an export's last
// write (the caller keeps the whole record): the digest of the export's
// configuration and the state the files were written from.
type ExportRecord struct {
	ConfigDigest string
	From         state.DataMark
}

// Plan is what apply will do and what it may cost. Its JSON form is the
// output of plan --json and the content of a saved plan file.
type Plan struct {
	FormatVersion   string `json:"format_version"`
	LeadsyncVersion string `json:"leadsync_version"`
	// Lineage and Serial are those of the state the plan was made from; a
	// saved plan is refused when either has changed (see Stale).
	Lineage string `json:"lineage"`
	Serial  uint64 `json:"serial"`
	// ConfigHash is config.Config.Hash of the configuration planned.
	ConfigHash string `json:"config_hash"`
	// Workspace is the workspace planned, "" for the default one: a saved
	// plan is applied in the workspace it was made in.
	Workspace string `json:"workspace,omitempty"`
	// CreatedAt is Options.Now. Apply should judge staleness (refresh)
	// at this time too, so that it never finds more to do than planned.
	CreatedAt time.Time `json:"created_at"`
	Targets   []string  `json:"targets"`
	Replace   []string  `json:"replace"`
	Changes   []*Change `json:"changes"`
	Totals    Totals    `json:"totals"`
	// ForgetsMost is set when the plan forgets more than half of the
	// searches and profile reads the workspace holds (is the configuration
	// the one that fills it?); absent otherwise.
	ForgetsMost *ForgetsMost `json:"forgets_most,omitempty"`
	Quota       Quota        `json:"quota"`
	// Credits is the last known enrich credit balance (null when none is
	// known) and what the plan may leave of it.
	Credits CreditBalance `json:"credits"`
	// Savings are the credits the plan does not spend, and why.
	Savings Savings `json:"savings"`
	// Budget is the plan against leadsync { budget }; null without one.
	Budget *Budget `json:"budget"`
	// Suppressed is the number of people on the state's suppression list
	// (erased with leadsync forget): searches may still return them, and
	// apply drops them.
	Suppressed  int          `json:"suppressed"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Change is the action planned for one address.
type Change struct {
	Address string    `json:"address"`
	Kind    kind.Kind `json:"kind"`
	Action  Action    `json:"action"`
	// Calls and Credits are certain (given what state holds); CallsMax and
	// CreditsMax are the bounds that apply never exceeds.
	Calls      int    `json:"calls"`
	CallsMax   int    `json:"calls_max"`
	Credits    int    `json:"credits"`
	CreditsMax int    `json:"credits_max"`
	Reason     Reason `json:"reason"`
	// Detail explains the action for people (the request, the age of the
	// last run, the people counted ...). Sensitive values are redacted.
	Detail string `json:"detail"`
	// PersonIDs are, for an enrich change, the people already known that it
	// will enrich (Calls of them), in the order apply takes them; for a
	// track change, the people it reads (all of its Calls), in order: nil
	// for a plan made over sketches, read them with People; for the
	// retention change (kind.People), the people it removes.
	PersonIDs []string `json:"person_ids,omitempty"`
	// due lists, for a track change of people in sketch, its PersonIDs
	// until they are asked (People) or written (MarshalJSON): at
	// 2,430,000 people due, 37 MB of strings that a plan printed as text
	// never shows, nor an apply, which takes them a page at a time
	// (Listed).
	due *dueList
	// Path is an export's file.
	Path string `json:"path,omitempty"`
	// Continued are, for an export written as a workbook, the sheets that
	// may pass a worksheet's row limit and continue on further worksheets.
	Continued []SheetContinued `json:"continued,omitempty"`
	// Reuses counts, for an enrich change, the people already known whose
	// enrichment apply copies from another workspace of the backend (no
	// call, no credit; see Savings.Reused).
	Reuses int `json:"reuses,omitempty"`
	// UnknownOutcomes counts, for an enrich change, the people of
	// PersonIDs whose last enrichment by this block has an unknown outcome
	// (state.UnknownEnrichment): it may have been charged, so enriching
	// them again may cost their credits once more.
	UnknownOutcomes int `json:"unknown_outcomes,omitempty"`
	// Split is set for a search with split_by: its sub-searches and the
	// completeness of its last run.
	Split *SplitPlan `json:"split,omitempty"`
	// SameAs is, for a profile update (ReasonSamePerson), the profile
	// address whose read this one shares: a read of this run, or one
	// state holds.
	SameAs string `json:"same_as,omitempty"`
	// MovedFrom is, for a moved change, the address the record moves
	// from (Address is where it goes).
	MovedFrom string `json:"moved_from,omitempty"`
	// places is, for the enrich change of a block with a limit, the
	// places the limit leaves before the block takes any (env.used), with
	// those the other blocks give back in the claims (freedPlaces),
	// negative past the limit: what Within may lend it past its calls
	// (loans.room). A plan file does not hold it; Within reads it from
	// the plan made again.
	places int
}

// MarshalJSON writes person_ids for every enrich change, [] when it has
// none: omitempty would drop the empty list, and the JSON form promises the
// field for enrich changes. Other kinds have no person_ids.
func (c *Change) MarshalJSON() ([]byte, error) {
	type plain Change // without this method
	if c.Kind != kind.Enrich && c.Kind != kind.Track {
		return json.Marshal((*plain)(c))
	}
	ids := c.PersonIDs
	if c.due != nil {
		ids = c.due.ids() // garbage once written
	}
	if ids == nil {
		ids = []string{}
	}
	return json.Marshal(struct {
		*plain
		PersonIDs []string `json:"person_ids"`
	}{(*plain)(c), ids})
}

// Equal reports whether c and o are the same change as written
// (MarshalJSON), whether or not a track's people due are listed yet
// (due): go-cmp compares changes so.
func (c *Change) Equal(o *Change) bool {
	if c == nil || o == nil {
		return c == o
	}
	a, errA := json.Marshal(c)
	b, errB := json.Marshal(o)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// People are PersonIDs, or, when the plan left them to the change (a
// track's people due in sketch: due), a new list of them each call.
func (c *Change) People() []string {
	if c.due != nil {
		return c.due.ids()
	}
	return c.PersonIDs
}

// Totals sum the changes.
type Totals struct {
	Calls      int `json:"calls"`
	CallsMax   int `json:"calls_max"`
	Credits    int `json:"credits"`
	CreditsMax int `json:"credits_max"`
	// QuotaCalls and QuotaCallsMax count the calls that use the monthly
	// request quota, which applies to the first generation only: every
	// enrichment, and the searches and profile reads when api.generation
	// is 1. Second-generation calls use none.
	QuotaCalls    int `json:"quota_calls"`
	QuotaCallsMax int `json:"quota_calls_max"`
	// DurationSecondsMax is how long apply may take at the rate limit and
	// parallelism when every search takes the spec's 30 s (see duration).
	DurationSecondsMax int `json:"duration_seconds_max"`
	// Calls by kind (profile reads are certain; searches with split_by
	// and enrichments have a certain part and a bound).
	Searches    int `json:"searches"`
	SearchesMax int `json:"searches_max"`
	Profiles    int `json:"profiles"`
	// Tracks counts the profile reads of track blocks: certain, as the
	// people due are known.
	Tracks         int     `json:"tracks"`
	Enrichments    int     `json:"enrichments"`
	EnrichmentsMax int     `json:"enrichments_max"`
	Forgets        int     `json:"forgets"`
	Imports        int     `json:"imports"` // import blocks whose people are adopted (no call)
	Reuses         int     `json:"reuses"`  // enrichments copied from other workspaces (no call), known ones
	Updates        int     `json:"updates"` // changes of state without a call
	Moves          int     `json:"moves"`   // records moved to another address
	Writes         int     `json:"writes"`
	RateLimit      float64 `json:"rate_limit"`
	Parallelism    int     `json:"parallelism"`
}

// Quota is the check of the monthly request quota and the credit cap.
type Quota struct {
	// RemainingRequests is what the billing call said; nil when not
	// checked. Always in the JSON, null when unknown: a reader finds the
	// field and is told it is not known, rather than finding nothing.
	RemainingRequests *int `json:"remaining_requests"`
	Checked           bool `json:"checked"`
	// After is RemainingRequests minus Totals.QuotaCallsMax; null when not
	// checked, as RemainingRequests.
	After *int `json:"after"`
	// Note says why the quota was not checked.
	Note                 string `json:"note,omitempty"`
	MinRemainingRequests int    `json:"min_remaining_requests"`
	MaxCredits           int    `json:"max_credits"`
}

// CreditBalance is the enrich credit balance as last known. The service
// reports it only in the answer of an enrichment (creditBalance) and has no
// operation to read it without spending: Balance is the one the state
// recorded from the last enrichment, CheckedAt when that was. Both are
// null when no enrichment was ever recorded.
type CreditBalance struct {
	Balance   *int       `json:"balance"`
	CheckedAt *time.Time `json:"checked_at"`
	// After is Balance minus Totals.CreditsMax (negative when the plan may
	// need more than the balance); null when the balance is unknown.
	After *int `json:"after"`
}

// Diagnostic is a problem found while planning, in JSON form.
type Diagnostic struct {
	Severity string `json:"severity"` // "error" or "warning"
	Summary  string `json:"summary"`
	Detail   string `json:"detail,omitempty"`
	Address  string `json:"address,omitempty"`
	// Range is where in the configuration, as validate --json says it
	// (file, line, column); absent when the problem has no place.
	Range *DiagnosticRange `json:"range,omitempty"`
}

// DiagnosticRange is a span of a configuration file.
type DiagnosticRange struct {
	Filename string        `json:"filename"`
	Start    DiagnosticPos `json:"start"`
	End      DiagnosticPos `json:"end"`
}

// DiagnosticPos is a position in a configuration file (1-based line and
// column, 0-based byte offset).
type DiagnosticPos struct {
	Line   int `json:"line"`
	Column int `json:"column"`
	Byte   int `json:"byte"`
}

// HasChanges reports whether apply would do anything.
func (p *Plan) HasChanges() bool {
	for _, c := range p.Changes {
		if c.Action != None {
			return true
		}
	}
	return false
}

// Change returns the change of an address, nil when the plan has none.
func (p *Plan) Change(addr string) *Change {
	for _, c := range p.Changes {
		if c.Address == addr {
			return c
		}
	}
	return nil
}

// normalize makes every list non-nil, so that JSON never says null.
func (p *Plan) normalize() {
	if p.Targets == nil {
		p.Targets = []string{}
	}
	if p.Replace == nil {
		p.Replace = []string{}
	}
	if p.Changes == nil {
		p.Changes = []*Change{}
	}
	for _, c := range p.Changes {
		if c != nil && (c.Kind == kind.Enrich || c.Kind == kind.Track) && c.PersonIDs == nil && c.due == nil {
			c.PersonIDs = []string{}
		}
	}
	if p.Diagnostics == nil {
		p.Diagnostics = []Diagnostic{}
	}
	p.Savings.normalize()
}

// JSONDiagnostics converts hcl diagnostics to the plan JSON form (the CLI
// adds the configuration's warnings to a plan with it).
func JSONDiagnostics(ds hcl.Diagnostics) []Diagnostic {
	out := []Diagnostic{}
	for _, d := range ds {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		jd := Diagnostic{Severity: sev, Summary: d.Summary, Detail: d.Detail}
		if r := d.Subject; r != nil {
			jd.Range = &DiagnosticRange{
				Filename: r.Filename,
				Start:    DiagnosticPos{Line: r.Start.Line, Column: r.Start.Column, Byte: r.Start.Byte},
				End:      DiagnosticPos{Line: r.End.Line, Column: r.End.Column, Byte: r.End.Byte},
			}
		}
		out = append(out, jd)
	}
	return out
}

// ForgetsMost counts the records a plan forgets of those the workspace
// holds: Forgotten of Held searches and profile reads.
type ForgetsMost struct {
	Forgotten int `json:"forgotten"`
	Held      int `json:"held"`
}

// Text says it, for the plan's views.
func (f *ForgetsMost) Text() string {
	return fmt.Sprintf("This plan forgets %d of the %d searches and profile reads this workspace holds: more than half. Check that this configuration is the one that fills the workspace.", f.Forgotten, f.Held)
}
