package sqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// Querier is what a database/sql connection pool and a transaction share.
type Querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// Reader reads the state of one workspace through database/sql in
// dialect d (one snapshot: q is a transaction).
type Reader struct {
	D  *Dialect
	Q  Querier
	WS string
	// IDStream, when set, reads every person's ID of the workspace in ID
	// order (byte order) in one pass, calling fn until it returns false:
	// in the snapshot of the transaction pinned (nil: as committed). A
	// backend that can sets it (pg: state.IDStreamer).
	IDStream func(ctx context.Context, pinned Querier, fn func(id string) bool) error
	// PageStream, when set, reads the people of pages of IDs in one pass
	// (state.PageStreamer), in the snapshot of pinned as IDStream.
	PageStream func(ctx context.Context, pinned Querier, next func() ([]string, bool), fn func([]*state.Person) bool) error
}

func (r *Reader) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	return r.Q.QueryContext(ctx, r.D.Rewrite(q), args...)
}

// Folded are the calls an apply recorded but did not fold in yet that a
// Read applied: Last is the number of the last one (0: none), Calls how
// many there were.
type Folded struct {
	Last  int64
	Calls int
}

// Read builds the state of the workspace, with the calls an apply
// recorded but did not fold in yet folded (s tracks its changes from
// before them, so that the next write stores them), and says which it
// folded; found is false when the workspace has no row.
func (r *Reader) Read(ctx context.Context) (s *state.State, folded Folded, found bool, err error) {
	s, found, err = r.header(ctx)
	if err != nil || !found {
		return nil, Folded{}, false, err
	}
	for _, read := range []func(context.Context, *state.State) error{r.people, r.enrichments, r.history, r.searches, r.profileReads, r.failures} {
		if err := read(ctx, s); err != nil {
			return nil, Folded{}, false, err
		}
	}
	events, last, err := r.events(ctx)
	if err != nil {
		return nil, Folded{}, false, err
	}
	s.Track()
	for i := range events {
		if err := s.Fold(events[i]); err != nil {
			return nil, Folded{}, false, fmt.Errorf("a recorded event (%s %s) cannot be applied: %w", events[i].Kind, events[i].Address, err)
		}
	}
	return s, Folded{Last: last, Calls: len(events)}, true, nil
}

// parseTime reads a time kept in TimeLayout (or any RFC 3339 time); the
// zero time for NULL.
func parseTime(v sql.NullString) (time.Time, error) {
	if !v.Valid {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v.String)
	if err != nil {
		return time.Time{}, fmt.Errorf("a time %q is not in the form %s", v.String, TimeLayout)
	}
	return t.UTC(), nil
}

func parseTimePtr(v sql.NullString) (*time.Time, error) {
	if !v.Valid {
		return nil, nil
	}
	t, err := parseTime(v)
	return &t, err
}

// lists shares the lists of one address read (most people are found by
// one search), as the file loader does.
type lists map[string][]string

func (l lists) read(v sql.NullString) ([]string, error) {
	if !v.Valid {
		return nil, nil
	}
	if shared, ok := l[v.String]; ok {
		return shared, nil
	}
	out, err := readList(v)
	if err != nil {
		return nil, err
	}
	if len(out) == 1 {
		l[v.String] = out
	}
	return out, nil
}

// readList reads a list column's text (Dialect.listText), nil for NULL.
func readList(v sql.NullString) ([]string, error) {
	if !v.Valid {
		return nil, nil
	}
	out, err := splitTexts(v.String)
	if err != nil {
		return nil, fmt.Errorf("a list %q is not a JSON array of texts", v.String)
	}
	return out, nil
}

// people reads the people into s.People.
func (r *Reader) people(ctx context.Context, s *state.State) error {
	var n int
	if err := r.Q.QueryRowContext(ctx, r.D.Rewrite(CountPeople), r.WS).Scan(&n); err != nil {
		return err
	}
	s.People = make(map[string]*state.Person, n)
	return r.peopleWhere(ctx, s, where{}, nil)
}

// where narrows a read of people, enrichments or history to some people:
// a condition on the person's ID (id or person_id) with its parameters
// from $2 on, and what follows it (ORDER BY, LIMIT). The zero where reads
// the whole workspace.
type where struct {
	person func(col string) string // the condition on the ID column col
	args   []any
	tail   string
}

func (w where) on(col string) string {
	if w.person == nil {
		return ""
	}
	return " AND " + w.person(col)
}

// peopleWhere reads the people w names into s.People, decoded by d (nil:
// a decoder of this read's own), which it holds meanwhile.
func (r *Reader) peopleWhere(ctx context.Context, s *state.State, w where, d *personDecoder) error {
	if d == nil {
		d = newPersonDecoder()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.names(ctx, r); err != nil {
		return err
	}
	if r.D.packRows {
		return r.peoplePacked(ctx, s, w, d)
	}
	query := strings.Replace(SelectPeople, "found_by,", r.D.listText("found_by")+",", 1)
	rows, err := r.query(ctx, query+w.on("id")+w.tail, append([]any{r.WS}, w.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var first, last, foundBy, prof, profAt, raw, extra, since, checked sql.NullString
	scan := make([]any, 0, 1+len(LeadCols)+10)
	for rows.Next() {
		p := &state.Person{}
		scan = append(scan[:0], &p.ID)
		for _, f := range LeadCols {
			scan = append(scan, f.Lead(&p.Lead))
		}
		scan = append(scan, &first, &last, &foundBy, &prof, &profAt, &raw, &extra, &p.Status, &since, &checked)
		if err := rows.Scan(scan...); err != nil {
			return fmt.Errorf("people: %w", err)
		}
		var err error
		if p.FoundBy, err = d.foundBy(foundBy, false, false); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
		if err := readPerson(p, d, first, last, prof, profAt, raw, extra, since, checked); err != nil {
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
		s.People[p.ID] = p
	}
	return rows.Err()
}

// readPerson sets the fields of p that are neither plain texts nor
// FoundBy.
func readPerson(p *state.Person, d *personDecoder, first, last, prof, profAt, raw, extra, since, checked sql.NullString) error {
	var err error
	if p.FirstSeen, err = d.first.parse(first); err != nil {
		return err
	}
	if p.LastSeen, err = d.last.parse(last); err != nil {
		return err
	}
	if prof.Valid {
		p.Profile = &person.Profile{}
		if err := json.Unmarshal([]byte(prof.String), p.Profile); err != nil {
			return fmt.Errorf("profile: %w", err)
		}
	}
	if p.ProfileReadAt, err = parseTimePtr(profAt); err != nil {
		return err
	}
	if p.StatusSince, err = parseTimePtr(since); err != nil {
		return err
	}
	if p.CheckedAt, err = parseTimePtr(checked); err != nil {
		return err
	}
	if raw.Valid {
		p.Raw = json.RawMessage(raw.String)
	}
	if extra.Valid {
		return PersonExtra.Decode([]byte(extra.String), p)
	}
	return nil
}

// enrichments reads the enrichments and gives each to its person.
func (r *Reader) enrichments(ctx context.Context, s *state.State) error {
	return r.enrichmentsWhere(ctx, s, where{}, &blockNames{ctx: ctx, r: r})
}

// enrichmentsWhere reads the enrichments of the people w names and gives
// each to its person; names name their blocks.
func (r *Reader) enrichmentsWhere(ctx context.Context, s *state.State, w where, names *blockNames) error {
	if r.D.packRows {
		return r.enrichmentsPacked(ctx, s, w, names)
	}
	rows, err := r.query(ctx, SelectEnrichments+w.on("person_id"), append([]any{r.WS}, w.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var at, extra sql.NullString
	var by, copied sql.NullInt64
	scan := make([]any, 0, 4+len(ResultCols)+1)
	for rows.Next() {
		var id string
		e := &state.Enrichment{}
		scan = append(scan[:0], &id, &at, &by, &copied)
		for _, f := range ResultCols {
			if f.EnrichedInt != nil {
				scan = append(scan, f.EnrichedInt(&e.Result))
			} else {
				scan = append(scan, f.Enriched(&e.Result))
			}
		}
		scan = append(scan, &extra)
		if err := rows.Scan(scan...); err != nil {
			return fmt.Errorf("enrichments: %w", err)
		}
		if e.EnrichedAt, err = parseTime(at); err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if err := EnrichmentExtra.Decode([]byte(extra.String), e); err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if e.By, err = names.of(by); err == nil {
			e.CopiedBy, err = names.of(copied)
		}
		if err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		if p := s.People[id]; p != nil {
			p.Enrichment = e
		}
	}
	return rows.Err()
}

// history reads the people's histories, by person and position.
func (r *Reader) history(ctx context.Context, s *state.State) error {
	return r.historyWhere(ctx, s, where{}, &blockNames{ctx: ctx, r: r})
}

// historyWhere reads the histories of the people w names; names name
// their calls.
func (r *Reader) historyWhere(ctx context.Context, s *state.State, w where, names *blockNames) error {
	rows, err := r.query(ctx, SelectHistory+w.on("person_id")+" ORDER BY person_id, n", append([]any{r.WS}, w.args...)...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int
		var at sql.NullString
		var by sql.NullInt64
		var d state.Drift
		if err := rows.Scan(&id, &n, &d.Field, &d.Before, &d.After, &at, &by, &d.Call); err != nil {
			return fmt.Errorf("person history: %w", err)
		}
		if d.By, err = names.of(by); err != nil {
			return fmt.Errorf("person history of %s: %w", id, err)
		}
		if d.At, err = parseTime(at); err != nil {
			return fmt.Errorf("person history of %s: %w", id, err)
		}
		if p := s.People[id]; p != nil {
			p.History = append(p.History, d)
		}
	}
	return rows.Err()
}

// searches reads the search records.
func (r *Reader) searches(ctx context.Context, s *state.State) error {
	return r.searchesWith(ctx, s, nil)
}

// searchesWith reads the search records; with kept, without their lead
// IDs, whose number it gets by address instead.
func (r *Reader) searchesWith(ctx context.Context, s *state.State, kept map[string]int) error {
	query := strings.Replace(SelectSearches, "lead_ids,", r.D.listText("lead_ids")+",", 1)
	if kept != nil {
		query = strings.Replace(SelectSearches, "lead_ids,", r.D.listLength("lead_ids")+",", 1)
	}
	rows, err := r.query(ctx, query, r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	shared := lists{}
	for rows.Next() {
		sr := &state.Search{}
		var gen int
		var req string
		var ranAt, ids, extra sql.NullString
		if err := rows.Scan(&sr.Address, &gen, &req, &sr.RequestHash, &ranAt, &sr.ResultCount, &sr.MaxResults, &sr.Capped, &ids,
			&sr.Added, &sr.Removed, &sr.Runs, &extra, &sr.Changed); err != nil {
			return fmt.Errorf("searches: %w", err)
		}
		sr.Generation, sr.Request = api.Generation(gen), json.RawMessage(req)
		if sr.RanAt, err = parseTime(ranAt); err != nil {
			return fmt.Errorf("search %s: %w", sr.Address, err)
		}
		if kept != nil {
			if kept[sr.Address], err = strconv.Atoi(ids.String); err != nil {
				return fmt.Errorf("search %s: the number of its leads: %w", sr.Address, err)
			}
		} else if sr.LeadIDs, err = shared.read(ids); err != nil {
			return fmt.Errorf("search %s: %w", sr.Address, err)
		}
		if err := SearchExtra.Decode([]byte(extra.String), sr); err != nil {
			return fmt.Errorf("search %s: %w", sr.Address, err)
		}
		s.Searches[sr.Address] = sr
	}
	return rows.Err()
}

// profileReads reads the profile reads.
func (r *Reader) profileReads(ctx context.Context, s *state.State) error {
	rows, err := r.query(ctx, SelectProfileReads, r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		pr := &state.ProfileRead{}
		var gen int
		var req string
		var readAt, extra sql.NullString
		if err := rows.Scan(&pr.Address, &gen, &req, &pr.RequestHash, &readAt, &pr.PersonID, &extra); err != nil {
			return fmt.Errorf("profile reads: %w", err)
		}
		pr.Generation, pr.Request = api.Generation(gen), json.RawMessage(req)
		if pr.ReadAt, err = parseTime(readAt); err != nil {
			return fmt.Errorf("profile %s: %w", pr.Address, err)
		}
		if err := ProfileExtra.Decode([]byte(extra.String), pr); err != nil {
			return fmt.Errorf("profile %s: %w", pr.Address, err)
		}
		s.Profiles[pr.Address] = pr
	}
	return rows.Err()
}

// failures reads the last failure of each address.
func (r *Reader) failures(ctx context.Context, s *state.State) error {
	rows, err := r.query(ctx, SelectFailures, r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		f := &state.Failure{}
		var addr string
		var at, extra sql.NullString
		if err := rows.Scan(&addr, &at, &f.Message, &f.Status, &extra); err != nil {
			return fmt.Errorf("failures: %w", err)
		}
		if f.At, err = parseTime(at); err != nil {
			return fmt.Errorf("failure %s: %w", addr, err)
		}
		if err := FailureExtra.Decode([]byte(extra.String), f); err != nil {
			return fmt.Errorf("failure %s: %w", addr, err)
		}
		s.Failures[addr] = f
	}
	return rows.Err()
}

// events reads the calls an apply recorded but did not fold in yet, in
// order, and the number of the last.
func (r *Reader) events(ctx context.Context) ([]state.Event, int64, error) {
	rows, err := r.query(ctx, SelectEvents, r.WS)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var events []state.Event
	var last int64
	for rows.Next() {
		var raw string
		if err := rows.Scan(&last, &raw); err != nil {
			return nil, 0, err
		}
		var e state.Event
		if err := json.Unmarshal([]byte(raw), &e); err != nil {
			return nil, 0, fmt.Errorf("a recorded event cannot be read: %w", err)
		}
		events = append(events, e)
	}
	return events, last, rows.Err()
}

// selectList is "a, b, c".
func selectList(cols []string) string { return strings.Join(cols, ", ") }
