package state

import (
	"encoding/json"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// FormatVersion is the version of the state file format this build writes.
// A state file with a higher format_version is refused, never overwritten.
const FormatVersion = 1

// State is everything leadsync knows about what was fetched. It is the
// content of .leadsync/state.json.
//
// Code that changes a State (Fold, RemovePerson, ...) names what it
// changed with the touch* methods of changes.go: the PostgreSQL backend
// writes only those rows. TestChangesNameEveryChange checks it; a new kind
// of change needs a step there.
type State struct {
	FormatVersion   int    `json:"format_version"`
	Lineage         string `json:"lineage"` // UUID made when the state is first created
	Serial          uint64 `json:"serial"`  // raised on every write
	LeadsyncVersion string `json:"leadsync_version"`
	// Service names the service the state was filled from: "sandbox", or
	// the base URL's host and the account (api.AccountID, a hash of the
	// key, never the key), as "host account". "" in a state written
	// before it was recorded. See SetService.
	Service string `json:"service,omitempty"`
	// Configuration names the configuration that fills the state
	// (config.Config.Identity: leadsync { name }, else its folder's name).
	// "" in a state written before it was recorded. See SetConfiguration.
	Configuration string `json:"configuration,omitempty"`

	// Searches by instance address, e.g. search.cto["Berlin"].
	Searches map[string]*Search `json:"searches"`
	// Profiles by instance address, e.g. profile.founder.
	Profiles map[string]*ProfileRead `json:"profiles"`
	// People by person ID (see PersonID).
	People map[string]*Person `json:"people"`
	// Failures by address: the last failed call of that address, cleared by
	// its next success.
	Failures map[string]*Failure `json:"failures"`
	// Usage is the last known quota and credit balance.
	Usage Usage `json:"usage"`
	// UnknownEnrichments by person ID: enrichments whose outcome is
	// unknown (they may have been charged), until the person is enriched.
	UnknownEnrichments map[string]*UnknownEnrichment `json:"unknown_enrichments,omitempty"`
	// Suppressed is the suppression list: one entry per person erased with
	// leadsync forget, holding only hashes of their identifiers (see
	// SuppressionKey). Results that name a suppressed person are dropped
	// when recorded, so no later search, profile read or enrichment brings
	// them back. Never shortened by leadsync.
	Suppressed []*Suppression `json:"suppressed"`
	// ErasedEnrichments counts, by enrich block address, the enrichments of
	// people since removed from state (leadsync forget, retention): their
	// credits were spent, so they keep counting against the block's limit
	// and a freed place is not spent on someone new. Only counts, no
	// personal data. An enrichment whose outcome was unknown counts too: it
	// held its place, as it may have been charged.
	ErasedEnrichments map[string]int `json:"erased_enrichments,omitempty"`
	// Splits are the runs of split searches (split_by) under way, by search
	// address: the sub-searches completed so far. A run is kept here until
	// its last sub-search completes, when it becomes the search's record
	// (Searches[addr].Split) and leaves this map; a run stopped or killed
	// in the middle resumes from it without repeating a sub-search. Nil or
	// empty when none is under way.
	Splits map[string]*SplitTree `json:"splits,omitempty"`
	// Imports are the records of the import blocks' last imports, by
	// address (import.evaboot); nil or empty when nothing was imported.
	Imports map[string]*ImportRecord `json:"imports,omitempty"`
	// Marks holds, by EventMark.Run, the place of the last marked event
	// of that run folded in: Fold skips an event at or below it, so that
	// an event that reached two places (the backend, whose write seemed to
	// fail, and the rescue file) counts once. Nil when no marked event was
	// folded (see mark.go).
	Marks map[string]uint64 `json:"marks,omitempty"`
	// Journal names the journal whose events this state already contains
	// (up to Seq), so that a journal left behind by a crash after it was
	// folded in is never applied twice. Nil when no journal was involved.
	Journal *JournalMark `json:"journal,omitempty"`
	// Epoch names the making of the workspace the state was loaded from
	// (not stored in the state): a workspace deleted and made again, then
	// given the same lineage and serials (pushed from one file), has
	// another. Part of DataMark. Set by the backend: the pg backend's
	// workspace row's created_at, the local backend's workspace's epoch
	// file; "" when the backend has none (a state file named with
	// --state, a local workspace made before epochs).
	Epoch string `json:"-"`

	// idx finds people by page name; built lazily, kept up to date by Fold.
	idx *index
	// changes records what Fold changed, when a backend tracks it (Track).
	changes *Changes
	// lastDrifts are the drifts the last Fold recorded (LastDrifts).
	lastDrifts []SeenDrift
	// erased is true when a forget_people event removed someone since the
	// state was loaded or last written (PeopleErased).
	erased bool
	// sup is the suppression list as a set of keys, built lazily for the
	// first len(Suppressed) == supLen entries (the list only grows).
	sup    map[string]bool
	supLen int
	// honoured is what the erasure record changed when s was read
	// (HonourErasures).
	honoured *Honoured
	// partial is set when s holds only the people it read (partial.go).
	partial *partial
	// counts are the store's numbers of lead IDs of searches whose lists
	// were not read, by address (Base.CountLeads): all a plan that only
	// counts them asks (LeadCount).
	counts map[string]int
	// sketches are people read as TrackSketches keeps them (tracksketch.go).
	sketches *TrackSketches
}

// Suppression is one erased person on the suppression list.
type Suppression struct {
	// Keys are SuppressionKey values of the person's networkId and page
	// name (hashes, not the identifiers).
	Keys []string `json:"keys"`
	// At is when the person was erased.
	At time.Time `json:"at"`
}

// JournalMark identifies a journal and the last of its events a state holds.
type JournalMark struct {
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
}

// Search is the record of the last successful run of one search instance.
type Search struct {
	Address     string          `json:"address"`
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`      // body as sent (no key)
	RequestHash string          `json:"request_hash"` // see RequestHash
	RanAt       time.Time       `json:"ran_at"`
	// ResultCount is how many results the service returned (before max_results).
	ResultCount int `json:"result_count"`
	// MaxResults is the max_results the run kept results up to; 0: the
	// network's cap (KeepAtMost).
	MaxResults int `json:"max_results"`
	// Capped is true when the service returned exactly api.MaxResults results:
	// the network probably cut the list off.
	Capped bool `json:"capped"`
	// LeadIDs are the person IDs kept (at most max_results, and at most the
	// network's cap: KeepAtMost), in result order.
	// A lowered max_results cuts them without a run (EventTrim).
	LeadIDs []string `json:"lead_ids"`
	// Added and Removed compare LeadIDs with the previous run (0 on the first).
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Runs counts the successful runs of this address, this one included
	// (0 in states written before it was recorded).
	Runs int `json:"runs"`
	// Changed counts the people of this run whose title, company or
	// location it found changed since state last saw them (Person.History).
	Changed int `json:"changed,omitempty"`
	// Suppressed counts the results of the last run (and the people erased
	// since) that name a suppressed person: dropped, not in LeadIDs.
	Suppressed int `json:"suppressed,omitempty"`
	// Split is the tree of sub-searches of the last run of a search with
	// split_by; nil otherwise. For a split search, ResultCount is the
	// number of distinct people all sub-searches found and Capped means
	// incomplete: some leaf sub-searches still returned the cap.
	Split *SplitTree `json:"split,omitempty"`
	// Packed is the lead list a plan's Base.Reading, or an apply's
	// partial state (State.ReadLeadsPacked), read in place of LeadIDs,
	// which is nil then (read both through Leads); nil otherwise. It is
	// never written.
	Packed *IDList `json:"-"`
}

// SplitTree is one run of a split search: the search itself (the root
// node, with an empty Path) and every sub-search it was split into. A node
// that returned the network's cap (Saturated) is split by the next
// dimension: one child per value. All fields are plain data.
type SplitTree struct {
	// Hash identifies what the run splits: the generation, the search's
	// request and the dimensions with their values (see SplitHash). A run
	// under way continues only with the same Hash.
	Hash string `json:"hash"`
	// Generation, Request and RequestHash are the search's own (the root's
	// request), as in Search.
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
	// Dimensions are the array filters split by, in order.
	Dimensions []SplitDimension `json:"dimensions"`
	// MaxResults is the max_results people are kept up to; 0: all.
	MaxResults int `json:"max_results"`
	// Nodes are the sub-searches completed, in the order they completed.
	Nodes []*SplitNode `json:"nodes"`
}

// SplitDimension is one array filter split by: its service parameter
// (industryFilter) and the values split across, in order.
type SplitDimension struct {
	Param  string   `json:"param"`
	Values []string `json:"values"`
}

// Attribute is the dimension's name as the configuration writes it in
// split_by (industry_filter): the name everything a person reads uses.
func (d SplitDimension) Attribute() string { return api.AttributeName(d.Param) }

// SplitNode is one completed sub-search of a split run.
type SplitNode struct {
	// Path holds the value of each of the first len(Path) dimensions this
	// sub-search sets, in dimension order; empty for the search itself.
	Path []string `json:"path"`
	// Results is how many results the service returned (at most
	// api.MaxResults); Saturated is Results == api.MaxResults.
	Results   int       `json:"results"`
	Saturated bool      `json:"saturated"`
	RanAt     time.Time `json:"ran_at"`
	// LeadIDs are the people returned, in order, while the run is under
	// way; a completed run drops them (the search's LeadIDs hold the
	// merge).
	LeadIDs []string `json:"lead_ids,omitempty"`
	// Suppressed counts the results naming people erased with leadsync
	// forget: dropped, not in LeadIDs.
	Suppressed int `json:"suppressed,omitempty"`
}

// ProfileRead is the record of the last successful read of one profile block instance.
type ProfileRead struct {
	Address     string          `json:"address"`
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
	ReadAt      time.Time       `json:"read_at"`
	PersonID    string          `json:"person_id"`
}

// Person is one member of the network, shared by every block that found them.
type Person struct {
	ID        string      `json:"id"`
	Lead      person.Lead `json:"lead"`
	FirstSeen time.Time   `json:"first_seen"`
	LastSeen  time.Time   `json:"last_seen"`
	// FoundBy are the addresses (searches and profiles) whose last run
	// returned this person, sorted.
	FoundBy []string `json:"found_by"`
	// Profile is the last profile read, with its time.
	Profile       *person.Profile `json:"profile,omitempty"`
	ProfileReadAt *time.Time      `json:"profile_read_at,omitempty"`
	// Enrichment is the last enrichment; nil when never enriched.
	Enrichment *Enrichment `json:"enrichment,omitempty"`
	// Raw is the last raw search item for this person, when raw = true.
	Raw json.RawMessage `json:"raw,omitempty"`
	// History are the changes of what the person shows (title, company,
	// location, e-mail, whether they are on the network), oldest first:
	// each time a search, profile read, track read or enrichment brought
	// another value than state held (drift.go). Nil when none.
	History []Drift `json:"history,omitempty"`
	// Status is what the last profile read found: "" (a public profile, or
	// never read), StatusPrivate or StatusLeft; StatusSince is when it was
	// first found so.
	Status      string     `json:"status,omitempty"`
	StatusSince *time.Time `json:"status_since,omitempty"`
	// CheckedAt is when a profile read (of a profile block or a track)
	// last looked at the person, whatever it found; nil when never (a
	// state written before it was kept: ProfileReadAt).
	CheckedAt *time.Time `json:"checked_at,omitempty"`
	// CheckedGeneration is the generation of the track read made at
	// CheckedAt (a first-generation one used a request of the monthly
	// quota); 0 when unknown (no track read, or a state written before
	// it was kept).
	CheckedGeneration api.Generation `json:"checked_generation,omitempty"`
	// Tracked is the record the track blocks keep of the person: by track
	// address, when that track last read them (whatever it found); nil
	// when no track read them. leadsync state rm track.X drops X's entry
	// (tracks.go).
	Tracked map[string]time.Time `json:"tracked,omitempty"`
}

// Enrichment is one enrich result kept for a person.
type Enrichment struct {
	EnrichedAt time.Time              `json:"enriched_at"`
	By         string                 `json:"by"` // enrich block address
	Result     person.EnrichedProfile `json:"result"`
	// CopiedBy is the enrich block that copied an enrichment from
	// another workspace (By is then "reused:" and that workspace): the
	// copy holds one of its places under its limit.
	CopiedBy string `json:"copied_by,omitempty"`
}

// Failure is the last failed call for an address.
type Failure struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
	Status  int       `json:"status,omitempty"` // HTTP status, 0 when none
}

// Usage is the last known quota and credit balance.
type Usage struct {
	RemainingRequests  *int       `json:"remaining_requests,omitempty"`
	InvoicingStartDate string     `json:"invoicing_start_date,omitempty"`
	CheckedAt          *time.Time `json:"checked_at,omitempty"`
	CreditBalance      *int       `json:"credit_balance,omitempty"`
	CreditBalanceAt    *time.Time `json:"credit_balance_at,omitempty"`
	// CreditsSpent counts the credits of every enrichment recorded in this
	// state, all runs: credits the service charged.
	CreditsSpent int `json:"credits_spent"`
	// CreditsByMonth counts the same credits by the UTC month ("2006-01")
	// of the run that was charged them. States written before it was kept
	// hold fewer here than CreditsSpent: the months of the rest are unknown.
	CreditsByMonth map[string]int `json:"credits_by_month,omitempty"`
	// CreditsUnknown counts the credits of enrichments whose outcome was
	// unknown, all runs: they may have been charged.
	CreditsUnknown int `json:"credits_unknown,omitempty"`
}

// EventKind says which call an Event records.
type EventKind string

// Event kinds.
const (
	EventSearch  EventKind = "search"
	EventProfile EventKind = "profile"
	EventEnrich  EventKind = "enrich"
	EventBilling EventKind = "billing"
	EventFailure EventKind = "failure"
	EventForget  EventKind = "forget" // an address removed from the configuration
	// EventForgetPeople removes people: an erasure (leadsync forget) or
	// retention. Its address is PeopleAddress.
	EventForgetPeople EventKind = "forget_people"
	EventSplit        EventKind = "split" // one sub-search of a split search
	// EventImport adopts the people of a list file (an import block): no
	// call, no credit.
	EventImport EventKind = "import"
	// EventReuse copies a person's enrichment from another workspace of
	// the backend: no call, no credit. Its address is the enrich block's.
	EventReuse EventKind = "reuse"
)

// Event is one completed call (or forget), as appended to the journal and
// folded into the state. Folding the same sequence of events into the same
// state always gives the same result.
type Event struct {
	Seq     uint64    `json:"seq"`
	At      time.Time `json:"at"`
	Kind    EventKind `json:"kind"`
	Address string    `json:"address"`

	Search  *SearchEvent       `json:"search,omitempty"`
	Profile *ProfileEvent      `json:"profile,omitempty"`
	Enrich  *EnrichEvent       `json:"enrich,omitempty"`
	Billing *api.Usage         `json:"billing,omitempty"`
	Failure *Failure           `json:"failure,omitempty"`
	Split   *SplitEvent        `json:"split,omitempty"`
	People  *ForgetPeopleEvent `json:"people,omitempty"`
	Trim    *TrimEvent         `json:"trim,omitempty"`   // EventTrim
	Share   *ProfileShareEvent `json:"share,omitempty"`  // EventProfileShare
	Import  *ImportEvent       `json:"import,omitempty"` // EventImport
	Reuse   *ReuseEvent        `json:"reuse,omitempty"`  // EventReuse
	Track   *TrackEvent        `json:"track,omitempty"`  // EventTrack
	Move    *MoveEvent         `json:"move,omitempty"`   // EventMove
	// Mark places the event among those of the operation that recorded
	// it (see EventMark); nil for an event recorded without one.
	Mark *EventMark `json:"mark,omitempty"`
}

// ForgetPeopleEvent removes people from the state with their enrichments.
// For an erasure (Reason ForgetErasure) their suppression keys, and Keys,
// join State.Suppressed; for retention (ForgetRetention) nothing is kept.
type ForgetPeopleEvent struct {
	Reason    string   `json:"reason"`
	PersonIDs []string `json:"person_ids"`
	// Keys are suppression keys to add besides those of PersonIDs: an
	// erasure of someone the state does not hold yet.
	Keys []string `json:"keys,omitempty"`
}

// SplitEvent is one completed sub-search of a split search (the root
// included). Folding the event that completes the tree makes the run the
// search's record.
type SplitEvent struct {
	// Hash, Generation, Request, RequestHash, Dimensions and MaxResults
	// describe the run, as in SplitTree.
	Hash        string           `json:"hash"`
	Generation  api.Generation   `json:"generation"`
	Request     json.RawMessage  `json:"request"`
	RequestHash string           `json:"request_hash"`
	Dimensions  []SplitDimension `json:"dimensions"`
	MaxResults  int              `json:"max_results"`
	// Path is the node's (see SplitNode.Path); NodeRequest the body sent.
	Path        []string        `json:"path"`
	NodeRequest json.RawMessage `json:"node_request"`
	Leads       []person.Lead   `json:"leads"`         // every result, in order
	Raw         []api.RawLead   `json:"raw,omitempty"` // raw items, when raw = true
}

// SearchEvent is a completed search.
type SearchEvent struct {
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
	Leads       []person.Lead   `json:"leads"`         // every result, in order
	Raw         []api.RawLead   `json:"raw,omitempty"` // raw items, when raw = true
	MaxResults  int             `json:"max_results"`   // 0: keep all
}

// ProfileEvent is a completed profile read.
type ProfileEvent struct {
	Generation  api.Generation  `json:"generation"`
	Request     json.RawMessage `json:"request"`
	RequestHash string          `json:"request_hash"`
	PageName    string          `json:"page_name"` // from page_name, or derived from profile_url
	Profile     person.Profile  `json:"profile"`
}

// EnrichEvent is a completed enrichment of one person; it spent credits.
type EnrichEvent struct {
	PersonID string                 `json:"person_id"`
	Credits  int                    `json:"credits"`
	Result   person.EnrichedProfile `json:"result"`
}
