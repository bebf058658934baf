package config

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/catalog"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// DefaultStatePath is where state lives unless leadsync { state_path } says otherwise.
const DefaultStatePath = ".leadsync/state.db"

// Config is a whole, validated configuration: every *.leads.hcl of a
// directory read as one, with variables resolved and for_each/count expanded.
type Config struct {
	// Dir is the directory the configuration was read from; relative paths
	// (state_path, export paths, file()) are relative to it.
	Dir string
	// Files are the parsed files by name, kept for rendering diagnostics.
	Files map[string]*hcl.File
	// Hash is a hex SHA-256 over the configuration files and the variable
	// values (sensitive ones included only as a hash), used to detect a
	// stale saved plan.
	Hash string
	// Workspace is the workspace the configuration was loaded for
	// (LoadOptions.Workspace; "" for the default one): leadsync.workspace.
	Workspace string

	Settings  Settings
	API       API
	Variables map[string]*Variable
	Catalog   *catalog.Catalog

	// Instances, sorted by address.
	Searches []*Search
	Profiles []*Profile
	// Blocks, in declaration order (a module's after its caller's
	// searches and profiles, before its caller's enrich blocks).
	Enriches []*Enrich
	Tracks   []*Track
	Exports  []*Export
	Excludes []*Exclude
	Imports  []*Import
	// Modules are the instances of module calls, nested ones included,
	// in the order they were read.
	Modules []*Module
	// Moves are the moved blocks, with addresses from the root (see
	// moved.go).
	Moves []*Move
	// Outputs are the root module's output blocks, in declaration order:
	// what leadsync output shows (a module's outputs go to its caller).
	Outputs []*Output

	// evalCtx holds var.*, local.* and the functions, for Match.
	evalCtx *hcl.EvalContext
	// refs maps block and instance addresses to the instances they name,
	// built by Instances when first needed (nil in a Config not made by
	// Load: Instances then scans).
	refs *refCache
	// blockAddrs are the typed addresses of the search and profile blocks
	// (without a key), those without instances too: Addr finds them.
	blockAddrs []address.Address
	// secretRanges are source ranges holding sensitive literals (api_key,
	// defaults and file values of sensitive variables); DiagFiles masks them.
	secretRanges []hcl.Range
	// secretValues are sensitive strings, longest first; Scrub removes them.
	secretValues []string
}

// Settings is the leadsync block.
type Settings struct {
	StatePath string // relative to Dir unless absolute; DefaultStatePath when unset
	// Name is leadsync { name }: what the workspaces this configuration
	// fills record as its identity (see Config.Identity); "" when unset.
	Name string
	// ProfileURLTemplate builds a profile link from a page name, e.g.
	// "https://network.example/profile/{pageName}". The spec gives no URL
	// scheme for profiles, so it is configurable; empty means: use the
	// networkUrl of a profile read when there is one, else no link.
	ProfileURLTemplate string
	// Retention is how long a person no search or profile read has seen
	// stays in state: older people are removed at the next apply. 0: kept.
	Retention time.Duration
	// Backend is the backend block (leadsync { backend "pg" { ... } }),
	// as the registry of internal/state/backend knows its kind; nil means
	// the local state file. StatePath still names the local file state
	// push copies. Its secret attributes (conn_str) are never printed.
	Backend *backend.Block
	// Budget is leadsync { budget { ... } }; nil without one.
	Budget *Budget
}

// API is the api block with defaults filled in.
type API struct {
	BaseURL              string
	BaseURLV2            string
	APIKey               string // empty: LEADSYNC_API_KEY (resolved by the caller). Never print it.
	Generation           api.Generation
	RateLimit            float64 // calls per second; default 1
	Parallelism          int     // default api.DefaultParallelism: a ceiling; calls in flight adapt to latency
	Timeout              time.Duration
	CreditsPerEnrich     int // default 1
	MaxCredits           int // default 500
	MinRemainingRequests int // default 100
	Sandbox              bool
	DeclRange            hcl.Range
}

// Variable is a declared variable with its final value. Value is in clear
// (unmarked) even when Sensitive: never print it then.
type Variable struct {
	Name        string
	Description string
	Sensitive   bool
	Value       cty.Value
	DeclRange   hcl.Range
}

// Search is one instance of a search block.
type Search struct {
	Address string // search.cto["Berlin"], search.cto[0] or search.cto; module.dach.search.cto in a module
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr  address.Address
	Block string // search.cto; module.dach.search.cto
	Name  string // cto
	// Module is the module instance that declares it, "" in the root:
	// module.dach, module.dach["de"].
	Module string
	// Request is what is sent: Params by service name (keywords, searchUrl,
	// city, industryFilter, ...) and Raw.
	Request    api.SearchRequest
	MaxResults int           // 0: keep all results
	Refresh    time.Duration // 0: never refresh
	// SplitBy are the dimensions a saturated search is split by, in the
	// order they are used (split_by); nil without split_by. Dimensions the
	// search sets to a single value are left out: there is nothing to
	// split. SplitBy is part of what makes a run current: a change reruns.
	SplitBy []SplitDimension
	// SplitNames are the attribute names of split_by as written, the
	// skipped ones included (for messages).
	SplitNames []string
	// Label is label: words for the people who read the sheets, shown in
	// the Found in column instead of the address; "" when not set.
	Label     string
	DeclRange hcl.Range
}

// SplitDimension is one array filter a saturated search is split by: one
// sub-search per value.
type SplitDimension struct {
	Attribute string   // industry_filter
	Param     string   // industryFilter, the service's name
	Values    []string // the values split across, in the catalog's order or as the search sets them
}

// MaxSplitResults is the largest max_results of a search with split_by.
const MaxSplitResults = 100000

// Profile is one instance of a profile block.
type Profile struct {
	Address string
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr    address.Address
	Block   string
	Name    string
	Module  string // as Search.Module
	Request api.PageRequest
	// PageName is the page name of the person: page_name, or the last path
	// segment of profile_url.
	PageName  string
	Refresh   time.Duration
	Label     string // as Search.Label
	DeclRange hcl.Range
}

// Enrich is an enrich block.
type Enrich struct {
	Address string // enrich.cto_contacts; module.dach.enrich.cto_contacts in a module
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr   address.Address
	Name   string
	Module string // as Search.Module
	// From are the referenced blocks or instances, as addresses
	// ("search.cto", "search.cto[\"Berlin\"]", "profile.founder"), in order.
	From []string
	// Where is nil when absent; see Config.Match.
	Where   hcl.Expression
	Limit   int // 0: no limit
	Refresh time.Duration
	// RefreshOn are the fields (RefreshOnFields) whose change, seen after
	// a person's enrichment, makes the block enrich them again: their
	// e-mail and domain belong to the old employer.
	RefreshOn []string
	DeclRange hcl.Range

	// ctx is the evaluation context of where: the module's variables and
	// locals.
	ctx *hcl.EvalContext
	// leadKeys, when narrow, are the lead fields where reads, each only
	// by name (lead.company): Match gives lead only those (whereLeadKeys).
	leadKeys []string
	narrow   bool
	// memo is what where gave, by the values of leadKeys (whereMemo).
	memo *whereMemo
}

// RefreshOnFields are the values of an enrich block's refresh_on.
var RefreshOnFields = []string{"company", "title"}

// Export is an export block.
type Export struct {
	Address string // export.marketing; module.dach.export.marketing in a module
	// Addr is Address typed, set once by the loader: what needs the
	// address's kind or parts asks it, not the text.
	Addr      address.Address
	Name      string
	Module    string // as Search.Module
	Path      string // as written; relative to Config.Dir, in a module too (path.module is the module's folder)
	Format    string // the name of its exportformat.Format: "xlsx", "csv"
	Sheets    []*Sheet
	DeclRange hcl.Range
	// PathRange is where path is set, for messages.
	PathRange hcl.Range
	// AllowOutside lets path (and the files derived from it) be outside
	// the configuration folder; false refuses such a path.
	AllowOutside bool
}

// Sheet is a sheet block of an export.
type Sheet struct {
	Name    string
	From    []string // as Enrich.From
	Columns []string // never empty: the defaults when not given
	Dedupe  bool     // default true
	// Labels are the header texts the configuration sets, by column name
	// (labels = { email = "Work e-mail" }); other columns get
	// ColumnLabels. See Header.
	Labels map[string]string
	// OnlyNew keeps the people first seen in the latest run of the sheet's
	// sources (what is new since the run before).
	OnlyNew bool
	// Where keeps the people for whom it is true (nil: everyone); it reads
	// person.<field>, the fields of PersonAttributes, named in WhereFields. See
	// Config.MatchPerson.
	Where       hcl.Expression
	WhereFields []string
	// ctx is the evaluation context of Where: its module's variables and
	// locals.
	ctx *hcl.EvalContext
	// Changes, when set, makes the sheet list changes instead of people:
	// one row per change (state.Drift) that these blocks or instances saw
	// (search, profile, enrich and track addresses), ChangeColumns; Since
	// limits them to the last Since (0: all).
	Changes []string
	Since   time.Duration

	// columnRanges are where each of Columns is written, when columns is
	// set (nil with the default columns), for messages about a column.
	columnRanges []hcl.Range
}

// ColumnLabels are the header texts of the columns unless a sheet's labels
// say otherwise: words a person reads, not the service's field names. The
// labels of the person fields' columns are their rows' in person.PersonFields;
// stateColumnLabels are the others'.
var ColumnLabels = columnLabels()

// stateColumnLabels label the columns that are no field of the service:
// what the state knows of a person (where they were found, when, the link
// to their profile, their photo from any answer) and what raw search
// results add (RawColumns).
var stateColumnLabels = map[string]string{
	"profileUrl":      "Profile",
	"foundIn":         "Found in",
	"firstSeen":       "First seen",
	"lastSeen":        "Last seen",
	"enrichedAt":      "Enriched at",
	"photoUrl":        "Photo",
	"topSkills":       "Top skills",
	"experience":      "Experience",
	"education":       "Education",
	"highlights":      "Search highlights",
	"contactsCount":   "Contacts",
	"sharedContacts":  "Shared contacts",
	"contactDistance": "Contact distance",
	"permissions":     "Permissions",
}

func columnLabels() map[string]string {
	m := make(map[string]string, len(person.PersonFields)+len(stateColumnLabels))
	for _, f := range person.PersonFields {
		if f.Column != "" {
			m[f.Column] = f.Label
		}
	}
	for k, v := range stateColumnLabels {
		m[k] = v
	}
	return m
}

// Label returns the header text of column name on this sheet: its label
// from labels, else the default label, else the name itself.
func (s *Sheet) Label(name string) string {
	if l, ok := s.Labels[name]; ok {
		return l
	}
	if l, ok := ColumnLabels[name]; ok {
		return l
	}
	return name
}

// Header returns the header texts of the sheet's columns, in order.
func (s *Sheet) Header() []string {
	out := make([]string, len(s.Columns))
	for i, c := range s.Columns {
		out[i] = s.Label(c)
	}
	return out
}

// DefaultColumns are the columns of a sheet that names none, in order: the
// person fields whose row in person.PersonFields is Default, then where the
// person was found and when.
var DefaultColumns = concat(fieldColumns(true), []string{"profileUrl", "foundIn", "firstSeen", "lastSeen"})

// ExtraColumns are known columns not in the default set: the enrichment
// time, the other person fields that have a column (what a profile read
// adds), the avatar, and what raw search results add (RawColumns).
var ExtraColumns = concat([]string{"enrichedAt"}, fieldColumns(false), []string{"photoUrl"}, RawColumns)

// RawColumns are the columns filled from raw search results only (a search
// with raw = true, first generation): empty for people no raw search found.
var RawColumns = []string{
	"topSkills", "experience", "education", "highlights", "contactsCount", "sharedContacts", "contactDistance", "permissions",
}

// PersonAttributes are the attributes of `person` in a sheet's where: every
// column a sheet can show, with the value its cell shows (text, a number,
// true or false; a time as text in RFC 3339, "" when unknown).
var PersonAttributes = concat(DefaultColumns, ExtraColumns)

// ChangeColumns are the columns of a changes sheet, in order, with their
// header texts.
var ChangeColumns = []struct{ Name, Label string }{
	{"person", "Person"}, {"field", "Field"}, {"before", "Before"}, {"after", "After"},
	{"seenAt", "Seen at"}, {"seenBy", "Seen by"}, {"currentEmail", "Current e-mail"}, {"profileUrl", "Profile"},
}

// LeadFields are the attributes of `lead` in a where expression: the
// person fields whose row in person.PersonFields has Where, those every
// search result has. What only profile reads or raw results give
// (workHistory, topSkills, contactsCount, ...) is not among them: a where
// on it would pass over everyone found by a plain search.
var LeadFields = whereKeys()

// fieldColumns lists the columns of the person fields that are (or are
// not) default columns, in table order.
func fieldColumns(isDefault bool) []string {
	var out []string
	for _, f := range person.PersonFields {
		if f.Column != "" && f.Default == isDefault {
			out = append(out, f.Column)
		}
	}
	return out
}

func whereKeys() []string {
	var out []string
	for _, f := range person.LeadFields {
		if f.Where {
			out = append(out, f.Key)
		}
	}
	return out
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Identity names the configuration in the state it fills
// (state.State.Configuration): leadsync { name } when set, else where the
// configuration sits in its git repository, the same in every clone and
// on every machine: the repository's origin (its address without scheme,
// user or .git) and the folder's path in it, like
// "github.com/acme/leads/dach". "" when neither is known (no name, not
// in a clone with an origin): then no workspace is refused for it.
func (c *Config) Identity() string {
	if c.Settings.Name != "" {
		return c.Settings.Name
	}
	return gitIdentity(c.Dir)
}

// Labels are the labels of the searches and profiles that set one, by
// address (the Found in column shows them instead); nil when none does.
func (c *Config) Labels() map[string]string {
	var m map[string]string
	add := func(addr, label string) {
		if label == "" {
			return
		}
		if m == nil {
			m = map[string]string{}
		}
		m[addr] = label
	}
	for _, s := range c.Searches {
		add(s.Address, s.Label)
	}
	for _, p := range c.Profiles {
		add(p.Address, p.Label)
	}
	return m
}

// Output is an output block of the root module.
type Output struct {
	Name        string
	Description string
	// Addresses are the blocks and instances its value names, from the
	// root, as written (search.cto, module.uk.search.cto["London"]).
	Addresses []string
	DeclRange hcl.Range
}
