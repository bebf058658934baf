package sqlstate

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// Columns model every field the state has today. A field added to the
// state later (or written by a newer build) that no column models goes,
// as JSON, into the row's extra column, so that it is kept, never lost;
// ExtraCodec finds such fields by reflection, at no cost while there are
// none. The state's header (lineage, serial, versions, usage and the
// state-level fields without a column, in extra) is one row of the
// workspaces table: a new header field is one column there.
var (
	StateExtra  = NewExtra(reflect.TypeOf(state.State{}), "format_version", "lineage", "serial", "leadsync_version", "searches", "profiles", "people", "failures", "usage", "journal")
	PersonExtra = NewExtra(reflect.TypeOf(state.Person{}), "id", "lead", "first_seen", "last_seen", "found_by", "profile", "profile_read_at", "enrichment", "raw",
		"history", "status", "status_since", "checked_at")
	LeadExtra       = NewExtra(reflect.TypeOf(person.Lead{}), fieldKeys(LeadCols)...)
	SearchExtra     = NewExtra(reflect.TypeOf(state.Search{}), "address", "generation", "request", "request_hash", "ran_at", "result_count", "max_results", "capped", "lead_ids", "added", "removed", "runs", "changed")
	DriftExtra      = NewExtra(reflect.TypeOf(state.Drift{}), "field", "before", "after", "at", "by", "call")
	ProfileExtra    = NewExtra(reflect.TypeOf(state.ProfileRead{}), "address", "generation", "request", "request_hash", "read_at", "person_id")
	FailureExtra    = NewExtra(reflect.TypeOf(state.Failure{}), "at", "message", "status")
	EnrichmentExtra = NewExtra(reflect.TypeOf(state.Enrichment{}), "enriched_at", "by", "copied_by", "result")
	ResultExtra     = NewExtra(reflect.TypeOf(person.EnrichedProfile{}), fieldKeys(ResultCols)...)
)

// LeadCols and ResultCols are the person fields (person.PersonFields) with a
// column of their own in the people and the enrichments table: those whose
// row names one (PG). A field without one is kept in the row's extra
// column, by LeadExtra and ResultExtra.
var (
	LeadCols   = pgFields(person.LeadFields)
	ResultCols = pgFields(person.EnrichedFields)
)

func pgFields(rows []*person.PersonField) []*person.PersonField {
	var out []*person.PersonField
	for _, f := range rows {
		if f.PG != "" {
			out = append(out, f)
		}
	}
	return out
}

// fieldKeys are the JSON keys of fields.
func fieldKeys(fields []*person.PersonField) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Key
	}
	return out
}

// FieldColumns are the columns of fields.
func FieldColumns(fields []*person.PersonField) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.PG
	}
	return out
}

// cat joins lists of column names.
func cat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// ExtraCodec keeps the JSON fields of a type that no column models.
type ExtraCodec struct {
	known map[string]bool
	// Has is true when the type has such fields.
	Has bool
	// extra are those fields, encoded one by one (a type with an
	// embedded field is encoded whole and filtered instead: slow).
	extra []extraField
	whole bool
}

// extraField is one field no column models: its index, JSON key and
// whether it is left out when empty.
type extraField struct {
	index     int
	key       string
	omitEmpty bool
}

// NewExtra returns the codec of t's fields whose JSON keys are not known.
func NewExtra(t reflect.Type, known ...string) ExtraCodec {
	c := ExtraCodec{known: map[string]bool{}}
	for _, k := range known {
		c.known[k] = true
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous {
			c.whole = true
		}
		if name == "" {
			name = f.Name
		}
		if !c.known[name] {
			c.Has = true
			c.extra = append(c.extra, extraField{index: i, key: name, omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
		}
	}
	return c
}

// Encode returns the JSON of v's fields no column models (v a pointer to
// the codec's type); nil when none, or when all are empty and left out.
func (c ExtraCodec) Encode(v any) ([]byte, error) {
	if !c.Has {
		return nil, nil
	}
	if c.whole {
		return c.encodeWhole(v)
	}
	rv := reflect.Indirect(reflect.ValueOf(v))
	var m map[string]json.RawMessage
	for _, f := range c.extra {
		fv := rv.Field(f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		b, err := json.Marshal(fv.Interface())
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = map[string]json.RawMessage{}
		}
		m[f.key] = b
	}
	if m == nil {
		return nil, nil
	}
	return json.Marshal(m)
}

// isEmptyValue is encoding/json's omitempty test.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// encodeWhole is Encode of a type with an embedded field: the whole value
// encoded, the known keys dropped.
func (c ExtraCodec) encodeWhole(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k := range m {
		if c.known[k] {
			delete(m, k)
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return json.Marshal(m)
}

// Decode sets the fields of v that b holds.
func (c ExtraCodec) Decode(b []byte, v any) error {
	if len(b) == 0 || string(b) == "null" {
		return nil
	}
	return json.Unmarshal(b, v)
}

// StripMaps returns a shallow copy of s without its big maps, for encoding
// its other fields.
func StripMaps(s *state.State) *state.State {
	c := &state.State{FormatVersion: s.FormatVersion, Lineage: s.Lineage, Serial: s.Serial, LeadsyncVersion: s.LeadsyncVersion, Usage: s.Usage}
	if StateExtra.Has {
		// Copy every exported field, then drop the maps.
		rv := reflect.ValueOf(c).Elem()
		sv := reflect.ValueOf(s).Elem()
		for i := 0; i < rv.NumField(); i++ {
			if rv.Type().Field(i).IsExported() {
				rv.Field(i).Set(sv.Field(i))
			}
		}
		c.Searches, c.Profiles, c.People, c.Failures, c.Journal = nil, nil, nil, nil, nil
	}
	return c
}

// NewID is a random identifier (a recording's, a lock's).
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("leadsync: crypto/rand: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

func jsonOrNil(v any, isNil bool) ([]byte, error) {
	if isNil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Column lists, in the order of the values PersonValues etc. return.
var (
	PeopleCols = cat([]string{"workspace", "id"}, FieldColumns(LeadCols), []string{"first_seen", "last_seen", "found_by", "profile", "profile_read_at", "raw", "extra",
		"status", "status_since", "checked_at", "page_key"})
	EnrichmentCols  = cat([]string{"workspace", "person_id", "enriched_at", "by_n"}, FieldColumns(ResultCols), []string{"extra", "copied_n"})
	SearchCols      = []string{"workspace", "address", "generation", "request", "request_hash", "ran_at", "result_count", "max_results", "capped", "lead_ids", "added", "removed", "runs", "extra", "changed"}
	HistoryCols     = []string{"workspace", "person_id", "n", "field", "value_before", "value_after", "at", "by_n", "call"}
	ProfileReadCols = []string{"workspace", "address", "generation", "request", "request_hash", "read_at", "person_id", "extra"}
	FailureCols     = []string{"workspace", "address", "at", "message", "status", "extra"}
)

// withExtra puts the JSON sub of fields no column models under key into
// the extra document of the row.
func withExtra(extra []byte, key string, sub []byte) []byte {
	if sub == nil {
		return extra
	}
	var m map[string]json.RawMessage
	if extra != nil {
		json.Unmarshal(extra, &m)
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	m[key] = sub
	out, _ := json.Marshal(m)
	return out
}

// PersonValues are the values of p's row of PeopleCols in workspace ws;
// nums number its found_by (addrs.go).
func PersonValues(d *Dialect, ws string, p *state.Person, nums *Numbers) ([]any, error) {
	return AppendPersonValues(make([]any, 0, len(PeopleCols)), d, ws, p, nums)
}

// AppendPersonValues appends PersonValues to v.
func AppendPersonValues(v []any, d *Dialect, ws string, p *state.Person, nums *Numbers) ([]any, error) {
	extra, err := PersonExtra.Encode(p)
	if err != nil {
		return nil, err
	}
	lx, err := LeadExtra.Encode(&p.Lead)
	if err != nil {
		return nil, err
	}
	// Lead fields no column models travel inside the person's extra.
	extra = withExtra(extra, "lead", lx)
	prof, err := jsonOrNil(p.Profile, p.Profile == nil)
	if err != nil {
		return nil, err
	}
	var raw any
	if len(p.Raw) > 0 {
		raw = string(p.Raw)
	}
	fb, err := foundByValue(d, nums, p.FoundBy)
	if err != nil {
		return nil, err
	}
	v = append(v, ws, p.ID)
	for _, f := range LeadCols {
		v = append(v, *f.Lead(&p.Lead))
	}
	return append(v, d.Time(p.FirstSeen), d.Time(p.LastSeen), fb, d.JSON(prof), d.TimePtr(p.ProfileReadAt), raw, d.JSON(extra),
		p.Status, d.TimePtr(p.StatusSince), d.TimePtr(p.CheckedAt), state.PageKey(p.Lead.PageName)), nil
}

// HistoryValues are the values of the n-th entry of a person's history;
// nums number its address (addrs.go).
func HistoryValues(d *Dialect, ws, id string, n int, h *state.Drift, nums *Numbers) ([]any, error) {
	by, err := nums.Of(h.By)
	if err != nil {
		return nil, err
	}
	return []any{ws, id, n, h.Field, h.Before, h.After, d.TimeValue(h.At), by, h.Call}, nil
}

// AppendHistoryValues appends the values of every entry of p's history
// from the n-th on.
func AppendHistoryValues(v []any, d *Dialect, ws string, p *state.Person, from int, nums *Numbers) ([]any, error) {
	for i := max(0, from); i < len(p.History); i++ {
		h, err := HistoryValues(d, ws, p.ID, i, &p.History[i], nums)
		if err != nil {
			return nil, err
		}
		v = append(v, h...)
	}
	return v, nil
}

// EnrichmentValues are the values of the enrichment row of person id;
// nums number its block and the block that copied it (addrs.go).
func EnrichmentValues(d *Dialect, ws, id string, e *state.Enrichment, nums *Numbers) ([]any, error) {
	return AppendEnrichmentValues(make([]any, 0, len(EnrichmentCols)), d, ws, id, e, nums)
}

// AppendEnrichmentValues appends EnrichmentValues to v.
func AppendEnrichmentValues(v []any, d *Dialect, ws, id string, e *state.Enrichment, nums *Numbers) ([]any, error) {
	by, err := nums.Of(e.By)
	if err != nil {
		return nil, err
	}
	copied, err := nums.OfOptional(e.CopiedBy)
	if err != nil {
		return nil, err
	}
	extra, err := EnrichmentExtra.Encode(e)
	if err != nil {
		return nil, err
	}
	rx, err := ResultExtra.Encode(&e.Result)
	if err != nil {
		return nil, err
	}
	// Result fields no column models travel inside the extra column.
	extra = withExtra(extra, "result", rx)
	v = append(v, ws, id, d.TimeValue(e.EnrichedAt), by)
	for _, f := range ResultCols {
		if f.EnrichedInt != nil {
			v = append(v, *f.EnrichedInt(&e.Result))
		} else {
			v = append(v, *f.Enriched(&e.Result))
		}
	}
	return append(v, d.JSON(extra), copied), nil
}

// SearchValues are the values of a search's row.
func SearchValues(d *Dialect, ws string, sr *state.Search) ([]any, error) {
	extra, err := SearchExtra.Encode(sr)
	if err != nil {
		return nil, err
	}
	ids, err := d.List(sr.LeadIDs)
	if err != nil {
		return nil, err
	}
	return []any{ws, sr.Address, int(sr.Generation), string(sr.Request), sr.RequestHash, d.Time(sr.RanAt), sr.ResultCount, sr.MaxResults, sr.Capped,
		ids, sr.Added, sr.Removed, sr.Runs, d.JSON(extra), sr.Changed}, nil
}

// ProfileReadValues are the values of a profile read's row.
func ProfileReadValues(d *Dialect, ws string, pr *state.ProfileRead) ([]any, error) {
	extra, err := ProfileExtra.Encode(pr)
	if err != nil {
		return nil, err
	}
	return []any{ws, pr.Address, int(pr.Generation), string(pr.Request), pr.RequestHash, d.Time(pr.ReadAt), pr.PersonID, d.JSON(extra)}, nil
}

// FailureValues are the values of the failure row of addr.
func FailureValues(d *Dialect, ws, addr string, f *state.Failure) ([]any, error) {
	extra, err := FailureExtra.Encode(f)
	if err != nil {
		return nil, err
	}
	return []any{ws, addr, d.Time(f.At), f.Message, f.Status, d.JSON(extra)}, nil
}

// UpsertSQL is an INSERT of cols into table that updates every column but
// the key (the first two) on conflict, in PostgreSQL's spelling (both
// engines take it: Dialect.Rewrite). Made once per table.
func UpsertSQL(table string, cols []string) string {
	upsertMu.Lock()
	defer upsertMu.Unlock()
	if q, ok := upserts[table]; ok {
		return q
	}
	var ph, set []string
	for i, c := range cols {
		ph = append(ph, fmt.Sprintf("$%d", i+1))
		if i >= 2 {
			set = append(set, c+" = excluded."+c)
		}
	}
	q := fmt.Sprintf("INSERT INTO {s}.%s (%s) VALUES (%s) ON CONFLICT (%s, %s) DO UPDATE SET %s",
		table, strings.Join(cols, ", "), strings.Join(ph, ", "), cols[0], cols[1], strings.Join(set, ", "))
	upserts[table] = q
	return q
}

var (
	upsertMu sync.Mutex
	upserts  = map[string]string{}
)
