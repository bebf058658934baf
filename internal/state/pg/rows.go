package pg

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// The model both engines share: sqlstate's codecs, columns and values.
var (
	stateExtra      = sqlstate.StateExtra
	personExtra     = sqlstate.PersonExtra
	enrichmentExtra = sqlstate.EnrichmentExtra
	searchExtra     = sqlstate.SearchExtra
	driftExtra      = sqlstate.DriftExtra
	profileExtra    = sqlstate.ProfileExtra
	failureExtra    = sqlstate.FailureExtra
	leadCols        = sqlstate.LeadCols
	resultCols      = sqlstate.ResultCols
	peopleCols      = sqlstate.PeopleCols
	enrichmentCols  = sqlstate.EnrichmentCols
	searchCols      = sqlstate.SearchCols
	historyCols     = sqlstate.HistoryCols
	profileReadCols = sqlstate.ProfileReadCols
	failureCols     = sqlstate.FailureCols
	fieldColumns    = sqlstate.FieldColumns
	stripMaps       = sqlstate.StripMaps
	newID           = sqlstate.NewID
)

// resultTargets are the fields of r that resultCols name, in their order:
// what a scan of those columns fills.
func resultTargets(r *person.EnrichedProfile) []any {
	out := make([]any, len(resultCols))
	for i, f := range resultCols {
		if f.EnrichedInt != nil {
			out[i] = f.EnrichedInt(r)
		} else {
			out[i] = f.Enriched(r)
		}
	}
	return out
}

// tsUTC turns a loaded timestamptz into UTC (the zero time for NULL).
func tsUTC(t pgtype.Timestamptz) time.Time {
	if !t.Valid {
		return time.Time{}
	}
	return t.Time.UTC()
}

// rowStrings sets each dst to the text of the raw value at its index, all
// sharing one allocation. Values are text columns in pgx's binary or text
// format (both the UTF-8 bytes).
func rowStrings(raw [][]byte, dst ...*string) {
	n := 0
	for _, r := range raw {
		n += len(r)
	}
	var sb strings.Builder
	sb.Grow(n)
	for _, r := range raw {
		sb.Write(r)
	}
	all := sb.String()
	off := 0
	for i, r := range raw {
		*dst[i] = all[off : off+len(r)]
		off += len(r)
	}
}

// tsUTCPtr is tsUTC for an optional time: nil for NULL.
func tsUTCPtr(t pgtype.Timestamptz) *time.Time {
	if !t.Valid {
		return nil
	}
	u := tsUTC(t)
	return &u
}

// utc turns a loaded time into UTC (the zero time for NULL).
func utc(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// queueHistory queues the writes of person id's history that ch names:
// the entries appended since the last write (n of them), or, for n < 0,
// the whole history again.
func (b *Backend) queueHistory(batch *pgx.Batch, ws string, p *state.Person, n int, nums *sqlstate.Numbers) error {
	from := len(p.History) - n
	if n < 0 {
		batch.Queue(b.sql(`DELETE FROM {s}.person_history WHERE workspace = $1 AND person_id = $2`), ws, p.ID)
		from = 0
	}
	for i := max(0, from); i < len(p.History); i++ {
		v, err := sqlstate.HistoryValues(b.dialect, ws, p.ID, i, &p.History[i], nums)
		if err != nil {
			return err
		}
		batch.Queue(b.sql(sqlstate.InsertHistory), v...)
	}
	return nil
}

// upsertSQL is sqlstate.UpsertSQL in this backend's schema.
func (b *Backend) upsertSQL(table string, cols []string) string {
	return b.sql(sqlstate.UpsertSQL(table, cols))
}

// renames runs, in tx, the renames of the moves a partial state folded
// (state.Changes.Renames), before the people read are numbered and
// written: each statement whose If holds. Workspace row first: tx holds
// the workspace's row (writeTx's ensureWorkspace) before a rename locks
// rows of addresses, whose trigger then updates that row
// (countAddressChanges).
func (b *Backend) renames(ctx context.Context, tx pgx.Tx, ch *state.Changes) error {
	for _, st := range sqlstate.RenameStmts(b.dialect, b.workspace, ch.Renames) {
		if st.If != "" {
			var ok bool
			if err := tx.QueryRow(ctx, b.dialect.Rewrite(st.If), st.Args...).Scan(&ok); err != nil {
				return fmt.Errorf("renaming moved addresses: %w", err)
			}
			if !ok {
				continue
			}
		}
		if _, err := tx.Exec(ctx, b.dialect.Rewrite(st.Q), st.Args...); err != nil {
			return fmt.Errorf("renaming moved addresses: %w", err)
		}
	}
	return nil
}

// prepareWrite checks ch against s and makes its renames, then gives the
// numbers of the addresses of the people ch names.
func (b *Backend) prepareWrite(ctx context.Context, tx pgx.Tx, s *state.State, ch *state.Changes) (*sqlstate.Numbers, error) {
	if err := s.CheckWrite(ch); err != nil {
		return nil, err
	}
	if err := b.renames(ctx, tx, ch); err != nil {
		return nil, err
	}
	people := make([]*state.Person, 0, len(ch.People))
	for id := range ch.People {
		people = append(people, s.People[id])
	}
	return b.numbers(ctx, tx, b.workspace, people)
}

// queueChanges queues the writes of the rows ch names: an upsert for a key
// s has, a delete for one it does not.
func (b *Backend) queueChanges(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, s *state.State, ch *state.Changes) error {
	if ch == nil {
		return nil
	}
	ws := b.workspace
	nums, err := b.prepareWrite(ctx, tx, s, ch)
	if err != nil {
		return err
	}
	if err := b.queuePeople(batch, s, ch, nums); err != nil {
		return err
	}
	for addr := range ch.Searches {
		sr := s.Searches[addr]
		if sr == nil {
			batch.Queue(b.sql(`DELETE FROM {s}.searches WHERE workspace = $1 AND address = $2`), ws, addr)
			continue
		}
		v, err := sqlstate.SearchValues(b.dialect, ws, sr)
		if err != nil {
			return fmt.Errorf("search %s: %w", addr, err)
		}
		batch.Queue(b.upsertSQL("searches", searchCols), v...)
	}
	for addr := range ch.Profiles {
		pr := s.Profiles[addr]
		if pr == nil {
			batch.Queue(b.sql(`DELETE FROM {s}.profile_reads WHERE workspace = $1 AND address = $2`), ws, addr)
			continue
		}
		v, err := sqlstate.ProfileReadValues(b.dialect, ws, pr)
		if err != nil {
			return fmt.Errorf("profile %s: %w", addr, err)
		}
		batch.Queue(b.upsertSQL("profile_reads", profileReadCols), v...)
	}
	for addr := range ch.Failures {
		f := s.Failures[addr]
		if f == nil {
			batch.Queue(b.sql(`DELETE FROM {s}.failures WHERE workspace = $1 AND address = $2`), ws, addr)
			continue
		}
		v, err := sqlstate.FailureValues(b.dialect, ws, addr, f)
		if err != nil {
			return fmt.Errorf("failure %s: %w", addr, err)
		}
		batch.Queue(b.upsertSQL("failures", failureCols), v...)
	}
	if ch.Usage {
		u, err := json.Marshal(&s.Usage)
		if err != nil {
			return err
		}
		batch.Queue(b.sql(`UPDATE {s}.workspaces SET usage = $2 WHERE name = $1`), ws, u)
	}
	return nil
}

// queuePeople queues the rows of the people ch names: many removed are
// deleted in pages (sqlstate.RemovalPages), the others one by one; the
// lead lists the store cuts (sqlstate.CutLeadLists) in between.
func (b *Backend) queuePeople(batch *pgx.Batch, s *state.State, ch *state.Changes, nums *sqlstate.Numbers) error {
	ws := b.workspace
	gone := sqlstate.RemovedIDs(s, ch) // many removed: deleted in pages
	for page := range sqlstate.RemovalPages(gone) {
		// Their enrichments and history go with them (ON DELETE CASCADE).
		batch.Queue(b.sql(`DELETE FROM {s}.people WHERE workspace = $1 AND id = ANY($2)`), ws, page)
	}
	if cut := sqlstate.CutAddrs(ch); cut != nil {
		// After the deletes, before anyone is written again.
		batch.Queue(b.sql(sqlstate.CutLeadLists(b.dialect)), ws, cut)
	}
	for id := range ch.People {
		p := s.People[id]
		if p == nil && gone != nil {
			continue // deleted in its page
		}
		if p == nil {
			batch.Queue(b.sql(`DELETE FROM {s}.people WHERE workspace = $1 AND id = $2`), ws, id)
			continue
		}
		v, err := sqlstate.PersonValues(b.dialect, ws, p, nums)
		if err != nil {
			return fmt.Errorf("person %s: %w", id, err)
		}
		batch.Queue(b.upsertSQL("people", peopleCols), v...)
		if n := ch.History[id]; n != 0 {
			if err := b.queueHistory(batch, ws, p, n, nums); err != nil {
				return fmt.Errorf("history of %s: %w", id, err)
			}
		}
		if p.Enrichment == nil {
			batch.Queue(b.sql(`DELETE FROM {s}.enrichments WHERE workspace = $1 AND person_id = $2`), ws, id)
			continue
		}
		v, err = sqlstate.EnrichmentValues(b.dialect, ws, id, p.Enrichment, nums)
		if err != nil {
			return fmt.Errorf("enrichment of %s: %w", id, err)
		}
		batch.Queue(b.upsertSQL("enrichments", enrichmentCols), v...)
	}
	return nil
}

// readRows reads the rows of workspace ws into s.
// readPeople reads the people of workspace ws into s.People.
func readPeople(ctx context.Context, q querier, b *Backend, ws string, s *state.State) error {
	// Maps made to size once: growing a 300,000-entry map rehashes it
	// over and over.
	var nPeople int
	if err := q.QueryRow(ctx, b.sql(`SELECT count(*) FROM {s}.people WHERE workspace = $1`), ws).Scan(&nPeople); err != nil {
		return err
	}
	s.People = make(map[string]*state.Person, nPeople)
	names, err := addressNames(ctx, q, b, ws)
	if err != nil {
		return err
	}
	// People first: the other tables refer to them.
	rows, err := q.Query(ctx, b.sql(`SELECT id, `+strings.Join(fieldColumns(leadCols), ", ")+`,
		first_seen, last_seen, found_by, profile, profile_read_at, raw, extra, status, status_since, checked_at FROM {s}.people WHERE workspace = $1`), ws)
	if err != nil {
		return err
	}
	return scanPeople(rows, names, func(p *state.Person) { s.People[p.ID] = p })
}

// scanPeople reads the people of rows (readPeople's columns) and closes
// rows; put takes each person.
func scanPeople(rows pgx.Rows, names map[int32]string, put func(*state.Person)) error {
	var err error
	lists := newFoundByLists(names)
	tm := rows.Conn().TypeMap()
	// The text columns (the ID and the lead fields) become one string each
	// row shares (one allocation instead of ten); lists of one address are
	// shared. They are scanned as nil and read from the raw values.
	nText := 1 + len(leadCols)
	fbCol := nText + 2
	var first, last, profAt, since, checked pgtype.Timestamptz
	var prof, extra []byte
	var raw *string
	// status is scanned into each person (scan[len(scan)-3]).
	scan := append(make([]any, nText), &first, &last, nil, &prof, &profAt, &raw, &extra, nil, &since, &checked)
	texts := make([]*string, nText)
	for rows.Next() {
		p := &state.Person{}
		first, last, profAt, since, checked, prof, extra, raw = pgtype.Timestamptz{}, pgtype.Timestamptz{}, pgtype.Timestamptz{}, pgtype.Timestamptz{}, pgtype.Timestamptz{}, nil, nil, nil
		scan[len(scan)-3] = &p.Status
		if err := rows.Scan(scan...); err != nil {
			rows.Close()
			return fmt.Errorf("people: %w", err)
		}
		rv := rows.RawValues()
		texts[0] = &p.ID
		for i, f := range leadCols {
			texts[1+i] = f.Lead(&p.Lead)
		}
		rowStrings(rv[:nText], texts...)
		p.FirstSeen, p.LastSeen = tsUTC(first), tsUTC(last)
		if p.FoundBy, err = lists.read(tm, rows.FieldDescriptions()[fbCol], rv[fbCol]); err != nil {
			rows.Close()
			return fmt.Errorf("people: found_by of %s: %w", p.ID, err)
		}
		if prof != nil {
			p.Profile = &person.Profile{}
			if err := json.Unmarshal(prof, p.Profile); err != nil {
				rows.Close()
				return fmt.Errorf("profile of %s: %w", p.ID, err)
			}
		}
		p.ProfileReadAt, p.StatusSince, p.CheckedAt = tsUTCPtr(profAt), tsUTCPtr(since), tsUTCPtr(checked)
		if raw != nil {
			p.Raw = json.RawMessage(*raw)
		}
		if err := personExtra.Decode(extra, p); err != nil {
			rows.Close()
			return fmt.Errorf("person %s: %w", p.ID, err)
		}
		put(p)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("people: %w", err)
	}
	return nil
}

// readOthers reads the enrichments (returned, to be attached to the people
// once they are read), searches, profile reads and failures of ws into s.
func readOthers(ctx context.Context, q querier, b *Backend, ws string, s *state.State) ([]enrichmentRow, error) {
	var nSearches int
	if err := q.QueryRow(ctx, b.sql(`SELECT count(*) FROM {s}.searches WHERE workspace = $1`), ws).Scan(&nSearches); err != nil {
		return nil, err
	}
	s.Searches = make(map[string]*state.Search, nSearches)
	enrichments, err := readEnrichments(ctx, q, b, ws)
	if err != nil {
		return nil, err
	}
	if err := readSearches(ctx, q, b, ws, s); err != nil {
		return nil, err
	}
	if err := readProfileReads(ctx, q, b, ws, s); err != nil {
		return nil, err
	}
	if err := readFailures(ctx, q, b, ws, s); err != nil {
		return nil, err
	}
	return enrichments, nil
}

// readEnrichments reads the enrichments of ws, to be attached to the
// people once they are read.
func readEnrichments(ctx context.Context, q querier, b *Backend, ws string) ([]enrichmentRow, error) {
	names, err := addressNames(ctx, q, b, ws)
	if err != nil {
		return nil, err
	}
	return readEnrichmentsOf(ctx, q, b, ws, nil, names)
}

// readEnrichmentsOf is readEnrichments of the people ids only (nil: all).
// names are the workspace's addresses by number (addressNames).
func readEnrichmentsOf(ctx context.Context, q querier, b *Backend, ws string, ids []string, names map[int32]string) ([]enrichmentRow, error) {
	cond, args := ofPeople(ws, ids)
	rows, err := q.Query(ctx, b.sql(enrichmentsQuery+cond), args...)
	if err != nil {
		return nil, err
	}
	return scanEnrichments(rows, names)
}

// enrichmentsQuery and historyQuery are the columns scanEnrichments and
// scanHistory read, of the workspace $1: their addresses' numbers, which
// the scans name.
var (
	enrichmentsQuery = `SELECT person_id, enriched_at, by_n, copied_n, ` + strings.Join(fieldColumns(resultCols), ", ") + `, extra
		FROM {s}.enrichments WHERE workspace = $1`
	historyQuery = `SELECT person_id, n, field, value_before, value_after, at, by_n, call
		FROM {s}.person_history WHERE workspace = $1`
)

// nameOf is the address numbered n among names ("" for NULL).
func nameOf(names map[int32]string, n pgtype.Int4) (string, error) {
	if !n.Valid {
		return "", nil
	}
	a, ok := names[n.Int32]
	if !ok {
		return "", fmt.Errorf("the address number %d is not in the table addresses", n.Int32)
	}
	return a, nil
}

// scanEnrichments reads the enrichments of rows (readEnrichmentsOf's
// columns) and closes rows.
func scanEnrichments(rows pgx.Rows, names map[int32]string) ([]enrichmentRow, error) {
	var enrichments []enrichmentRow
	// As for people: the text columns (the person's ID, the result's text
	// fields) are read from the raw values into one string; whole numbers
	// are scanned, the blocks' named. The block that copied it may be NULL.
	var at pgtype.Timestamptz
	var by, copied pgtype.Int4
	var extra []byte
	scan := make([]any, 4+len(resultCols)+1)
	scan[1], scan[2], scan[3], scan[len(scan)-1] = &at, &by, &copied, &extra
	textAt := []int{0}
	for i, f := range resultCols {
		if f.EnrichedInt == nil {
			textAt = append(textAt, 4+i)
		}
	}
	raws, texts := make([][]byte, len(textAt)), make([]*string, len(textAt))
	for rows.Next() {
		var id string
		at, by, copied, extra = pgtype.Timestamptz{}, pgtype.Int4{}, pgtype.Int4{}, nil
		e := &state.Enrichment{}
		r := &e.Result
		texts[0] = &id
		k := 1
		for i, f := range resultCols {
			if f.EnrichedInt != nil {
				scan[4+i] = f.EnrichedInt(r)
			} else {
				texts[k] = f.Enriched(r)
				k++
			}
		}
		if err := rows.Scan(scan...); err != nil {
			rows.Close()
			return nil, fmt.Errorf("enrichments: %w", err)
		}
		rv := rows.RawValues()
		for i, c := range textAt {
			raws[i] = rv[c]
		}
		rowStrings(raws, texts...)
		e.EnrichedAt = tsUTC(at)
		if err := enrichmentExtra.Decode(extra, e); err != nil {
			rows.Close()
			return nil, fmt.Errorf("enrichment of %s: %w", id, err)
		}
		var err error
		if e.By, err = nameOf(names, by); err == nil {
			e.CopiedBy, err = nameOf(names, copied)
		}
		if err != nil {
			rows.Close()
			return nil, fmt.Errorf("enrichment of %s: %w", id, err)
		}
		enrichments = append(enrichments, enrichmentRow{id, e})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("enrichments: %w", err)
	}
	return enrichments, nil
}

// readSearches reads the search records of ws into s.
func readSearches(ctx context.Context, q querier, b *Backend, ws string, s *state.State) error {
	rows, err := q.Query(ctx, b.sql(`SELECT address, generation, request, request_hash, ran_at, result_count, max_results, capped, lead_ids, added, removed, runs, extra, changed
		FROM {s}.searches WHERE workspace = $1`), ws)
	if err != nil {
		return err
	}
	for rows.Next() {
		sr := &state.Search{}
		var gen int
		var req string
		var ranAt *time.Time
		var extra []byte
		if err := rows.Scan(&sr.Address, &gen, &req, &sr.RequestHash, &ranAt, &sr.ResultCount, &sr.MaxResults, &sr.Capped, &sr.LeadIDs,
			&sr.Added, &sr.Removed, &sr.Runs, &extra, &sr.Changed); err != nil {
			rows.Close()
			return fmt.Errorf("searches: %w", err)
		}
		sr.Generation, sr.Request, sr.RanAt = api.Generation(gen), json.RawMessage(req), utc(ranAt)
		if err := searchExtra.Decode(extra, sr); err != nil {
			rows.Close()
			return fmt.Errorf("search %s: %w", sr.Address, err)
		}
		s.Searches[sr.Address] = sr
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("searches: %w", err)
	}
	return nil
}

// readProfileReads reads the profile reads of ws into s.
func readProfileReads(ctx context.Context, q querier, b *Backend, ws string, s *state.State) error {
	rows, err := q.Query(ctx, b.sql(`SELECT address, generation, request, request_hash, read_at, person_id, extra FROM {s}.profile_reads WHERE workspace = $1`), ws)
	if err != nil {
		return err
	}
	for rows.Next() {
		pr := &state.ProfileRead{}
		var gen int
		var req string
		var readAt *time.Time
		var extra []byte
		if err := rows.Scan(&pr.Address, &gen, &req, &pr.RequestHash, &readAt, &pr.PersonID, &extra); err != nil {
			rows.Close()
			return fmt.Errorf("profile reads: %w", err)
		}
		pr.Generation, pr.Request, pr.ReadAt = api.Generation(gen), json.RawMessage(req), utc(readAt)
		if err := profileExtra.Decode(extra, pr); err != nil {
			rows.Close()
			return fmt.Errorf("profile %s: %w", pr.Address, err)
		}
		s.Profiles[pr.Address] = pr
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("profile reads: %w", err)
	}
	return nil
}

// readFailures reads the last failure of each address of ws into s.
func readFailures(ctx context.Context, q querier, b *Backend, ws string, s *state.State) error {
	rows, err := q.Query(ctx, b.sql(`SELECT address, at, message, status, extra FROM {s}.failures WHERE workspace = $1`), ws)
	if err != nil {
		return err
	}
	for rows.Next() {
		f := &state.Failure{}
		var addr string
		var at *time.Time
		var extra []byte
		if err := rows.Scan(&addr, &at, &f.Message, &f.Status, &extra); err != nil {
			rows.Close()
			return fmt.Errorf("failures: %w", err)
		}
		f.At = utc(at)
		if err := failureExtra.Decode(extra, f); err != nil {
			rows.Close()
			return fmt.Errorf("failure %s: %w", addr, err)
		}
		s.Failures[addr] = f
	}
	rows.Close()
	return rows.Err()
}

// enrichmentRow is an enrichment read before its person.
type enrichmentRow struct {
	id string
	e  *state.Enrichment
}

// historyRow is one entry of a person's history, read before its person
// is attached.
type historyRow struct {
	id string
	n  int
	d  state.Drift
}

// readHistory reads the people's histories of workspace ws, by person and
// position.
func readHistory(ctx context.Context, q querier, b *Backend, ws string) ([]historyRow, error) {
	names, err := addressNames(ctx, q, b, ws)
	if err != nil {
		return nil, err
	}
	return readHistoryOf(ctx, q, b, ws, nil, names)
}

// readHistoryOf is readHistory of the people ids only (nil: all); names
// are the workspace's addresses by number.
func readHistoryOf(ctx context.Context, q querier, b *Backend, ws string, ids []string, names map[int32]string) ([]historyRow, error) {
	cond, args := ofPeople(ws, ids)
	rows, err := q.Query(ctx, b.sql(historyQuery+cond+` ORDER BY person_id, n`), args...)
	if err != nil {
		return nil, err
	}
	return scanHistory(rows, names)
}

// scanHistory reads the changes of rows (readHistoryOf's columns) and
// closes rows.
func scanHistory(rows pgx.Rows, names map[int32]string) ([]historyRow, error) {
	defer rows.Close()
	var out []historyRow
	for rows.Next() {
		var h historyRow
		var at time.Time
		var by pgtype.Int4
		err := rows.Scan(&h.id, &h.n, &h.d.Field, &h.d.Before, &h.d.After, &at, &by, &h.d.Call)
		if err == nil {
			h.d.By, err = nameOf(names, by)
		}
		if err != nil {
			return nil, fmt.Errorf("person history: %w", err)
		}
		h.d.At = at.UTC()
		out = append(out, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("person history: %w", err)
	}
	return out, nil
}

// attachHistory gives each person their history; an entry whose person is
// not in state (the foreign key makes this impossible) is dropped.
func attachHistory(s *state.State, rows []historyRow) {
	for _, h := range rows {
		if p := s.People[h.id]; p != nil {
			p.History = append(p.History, h.d)
		}
	}
}

// ofPeople is the condition and the arguments of a query of workspace ws
// that reads the rows of the people ids only (nil: all).
func ofPeople(ws string, ids []string) (cond string, args []any) {
	if ids == nil {
		return "", []any{ws}
	}
	return " AND person_id = ANY($2)", []any{ws, ids}
}
