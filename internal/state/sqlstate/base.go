package sqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/state"
)

// ReadRecords reads the workspace's state without its people (a Base's
// records, state.NewStoredBase): the header, searches (without their lead
// IDs: kept counts them by address), profile reads and failures. pending is true when an apply recorded calls not folded in
// yet: folding them needs the people, so the caller reads the state whole
// (Read) instead. found is false when the workspace has no row.
func (r *Reader) ReadRecords(ctx context.Context) (s *state.State, kept map[string]int, pending, found bool, err error) {
	return r.readRecords(ctx, false)
}

// readRecords is ReadRecords, or ReadHeader with leads (the searches'
// lead IDs read, kept nil).
func (r *Reader) readRecords(ctx context.Context, leads bool) (s *state.State, kept map[string]int, pending, found bool, err error) {
	s, found, err = r.header(ctx)
	if err != nil || !found {
		return nil, nil, false, found, err
	}
	if !leads {
		kept = map[string]int{}
	}
	searches := func(ctx context.Context, s *state.State) error { return r.searchesWith(ctx, s, kept) }
	for _, read := range []func(context.Context, *state.State) error{searches, r.profileReads, r.failures} {
		if err := read(ctx, s); err != nil {
			return nil, nil, false, false, err
		}
	}
	var n int
	if err := r.Q.QueryRowContext(ctx, r.D.Rewrite(CountEvents), r.WS).Scan(&n); err != nil {
		return nil, nil, false, false, err
	}
	return s, kept, n > 0, true, nil
}

// People is the state.PeopleStore of a Reader's snapshot: done ends it
// (rolls its read transaction back), wrap says where an error came from.
// live is the database the snapshot's transaction was begun on: once
// unpinned (state.Unpinner), the store reads every question from it.
func (r *Reader) People(ctx context.Context, live Querier, done func() error, wrap func(error) error) state.PeopleStore {
	return wrapped{&peopleStore{r: r, ctx: ctx, live: live, done: done, dec: newPersonDecoder()}, wrap}
}

type peopleStore struct {
	r    *Reader
	ctx  context.Context
	live Querier
	done func() error
	// dec decodes the people of every read (nil: each read its own).
	dec *personDecoder
}

// Unpin ends the snapshot (state.Unpinner): each later question is
// read from the database as committed, in a transaction of its own.
func (w wrapped) Unpin() error {
	p := w.p
	if p.live == nil || p.r.Q == p.live {
		return nil
	}
	if tx, ok := p.r.Q.(interface{ Rollback() error }); ok {
		if err := tx.Rollback(); err != nil {
			return w.err(err)
		}
	}
	p.r.Q = p.live
	return nil
}

func (p *peopleStore) Close() error { return p.done() }

// errNoIDStream is StreamIDs' when the Reader has no IDStream: the IDs
// are then read in pages (IDs).
var errNoIDStream = errors.New("no stream of IDs on this database")

// StreamIDs reads every ID in one pass through the Reader's IDStream
// (state.IDStreamer), in the store's snapshot until Unpin ends it.
func (w wrapped) StreamIDs(fn func(id string) bool) error {
	p := w.p
	if p.r.IDStream == nil {
		return errNoIDStream
	}
	return w.err(p.r.IDStream(p.ctx, p.pinned(), fn))
}

// pinned is the Querier of the store's snapshot a stream reads in
// (IDStream, PageStream): nil when the store reads live, not pinned.
func (p *peopleStore) pinned() Querier {
	if p.live != nil && p.r.Q == p.live {
		return nil
	}
	return p.r.Q
}

// wrapped wraps the errors of a store.
type wrapped struct {
	p    *peopleStore
	wrap func(error) error
}

func (w wrapped) Get(ids []string) ([]*state.Person, error) {
	ps, err := w.p.Get(ids)
	return ps, w.err(err)
}

func (w wrapped) After(id string, n int) ([]*state.Person, error) {
	ps, err := w.p.After(id, n)
	return ps, w.err(err)
}

func (w wrapped) Tracks() ([]string, error) {
	ids, err := w.p.ids(SelectTracks)
	slices.Sort(ids)
	return ids, w.err(err)
}

func (w wrapped) LeadIDs(addr string) ([]string, error) {
	var ids sql.NullString
	q := strings.Replace(SelectLeadIDs, "lead_ids", w.p.r.D.listText("lead_ids"), 1)
	err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(q), w.p.r.WS, addr).Scan(&ids)
	if err != nil {
		return nil, w.err(err)
	}
	out, err := readList(ids)
	return out, w.err(err)
}

var _ state.LeadLister = wrapped{}

func (w wrapped) LeadLists(addrs []string) (map[string][]string, error) {
	out, err := w.p.leadLists(addrs)
	return out, w.err(err)
}

func (w wrapped) Tracked(addr string) ([]string, error) {
	ids, err := w.p.ids(SelectTracked, addr)
	return ids, w.err(err)
}

func (w wrapped) Enriched(addr string) ([]string, error) {
	ids, err := w.p.enriched(addr)
	return ids, w.err(err)
}

func (w wrapped) CountEnriched(addr string) (int, error) {
	n, err := w.p.countEnriched(addr)
	return n, w.err(err)
}

func (w wrapped) IDs(after string, n int) ([]string, error) {
	ids, err := w.p.idsAfter(after, n)
	return ids, w.err(err)
}

func (w wrapped) Facts(quotaSince *time.Time) (state.PeopleFacts, error) {
	f, err := w.p.Facts(quotaSince)
	return f, w.err(err)
}

func (w wrapped) Changed() ([]string, error) {
	ids, err := w.p.ids(SelectChanged)
	slices.Sort(ids)
	return ids, w.err(err)
}

func (w wrapped) Exist(ids []string) ([]string, error) {
	return w.idsAmong(SelectPeopleIDs+" AND "+w.p.r.D.inList("id", "$2"), ids)
}

var _ state.AbsentFinder = wrapped{}

// Absent asks, of each ID of ids, whether the people's primary key holds
// it (one look each, NOT EXISTS), and sends back only those it does not.
// A question about 1,800,000 IDs held answers with empty texts, not
// their IDs (the plan of an enrich block at its limit).
func (w wrapped) Absent(ids []string) ([]string, error) {
	return w.idsAmong(`SELECT asked.value AS id FROM `+w.p.r.D.listRows("$2", "asked")+
		` WHERE NOT EXISTS (SELECT 1 FROM {s}.people p WHERE p.workspace = $1 AND p.id = asked.value)`, ids)
}

// idsAmong runs q, a query of IDs given the workspace ($1) and the list
// of ids ($2), and reads its answer as one JSON array (packIDs), as
// idsAfter reads a page.
func (w wrapped) idsAmong(q string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := w.p.r.D.List(ids)
	if err != nil {
		return nil, err
	}
	var packed string
	if err := w.p.r.Q.QueryRowContext(w.p.ctx, w.p.r.D.Rewrite(w.p.r.D.packIDs(q)), w.p.r.WS, list).Scan(&packed); err != nil {
		return nil, w.err(err)
	}
	found, err := splitTexts(packed)
	return found, w.err(err)
}

func (w wrapped) CompanyDomains(keep func(string) bool) ([]state.CompanyDomain, error) {
	out, err := w.p.companyDomains(keep)
	return out, w.err(err)
}

func (w wrapped) Names() (state.Names, error) {
	n, err := w.p.Names()
	return n, w.err(err)
}

func (w wrapped) Naming(addrs []string) ([]string, error) {
	ids, err := w.p.naming(addrs)
	return ids, w.err(err)
}

func (w wrapped) Paged(keys []string) ([]string, error) {
	ids, err := w.p.paged(keys)
	return ids, w.err(err)
}

func (w wrapped) SeenBefore(t time.Time, n int) ([]string, error) {
	ids, err := w.p.ids(SelectSeenBefore, w.p.r.D.TimeValue(t), n)
	return ids, w.err(err)
}

func (w wrapped) Close() error { return w.p.Close() }

func (w wrapped) err(err error) error {
	if err == nil {
		return nil
	}
	return w.wrap(err)
}

// Get reads the people of ids with their enrichments and histories.
func (p *peopleStore) Get(ids []string) ([]*state.Person, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	list, err := p.r.D.List(ids)
	if err != nil {
		return nil, err
	}
	w := where{person: func(col string) string { return p.r.D.inList(col, "$2") }, args: []any{list}}
	s, err := p.read(w, w, len(ids), slices.Min(ids), slices.Max(ids))
	if err != nil {
		return nil, err
	}
	return inAskedOrder(ids, s.People), nil
}

// inAskedOrder are the people of got in the order of ids, each once (an
// ID asked twice is given once); got loses them.
func inAskedOrder(ids []string, got map[string]*state.Person) []*state.Person {
	out := make([]*state.Person, 0, len(got))
	for _, id := range ids {
		if q := got[id]; q != nil {
			out = append(out, q)
			delete(got, id)
		}
	}
	return out
}

// After reads up to n people whose IDs sort after id, in ID order.
func (p *peopleStore) After(id string, n int) ([]*state.Person, error) {
	order := p.r.D.byteOrder
	page := where{person: func(col string) string { return col + order + " > $2" }, args: []any{id},
		tail: fmt.Sprintf(" ORDER BY id%s LIMIT %d", order, n)}
	s := &state.State{People: map[string]*state.Person{}}
	if err := p.r.peopleWhere(p.ctx, s, page, p.dec); err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	if len(s.People) == 0 {
		return nil, nil
	}
	ids := slices.Sorted(func(yield func(string) bool) {
		for id := range s.People {
			if !yield(id) {
				return
			}
		}
	})
	// The page's enrichments and histories: those of the IDs from its
	// first to its last.
	span := where{person: func(col string) string { return col + order + " >= $2 AND " + col + order + " <= $3" },
		args: []any{ids[0], ids[len(ids)-1]}}
	if err := p.attach(s, span, "", ""); err != nil {
		return nil, err
	}
	out := make([]*state.Person, len(ids))
	for i, id := range ids {
		out[i] = s.People[id]
	}
	return out, nil
}

// read reads the people w names (about n) and attaches what aw names of
// theirs; lo and hi bound their IDs (attach).
func (p *peopleStore) read(w, aw where, n int, lo, hi string) (*state.State, error) {
	s := &state.State{People: make(map[string]*state.Person, n)}
	if err := p.r.peopleWhere(p.ctx, s, w, p.dec); err != nil {
		return nil, fmt.Errorf("people: %w", err)
	}
	if len(s.People) == 0 {
		return s, nil
	}
	return s, p.attach(s, aw, lo, hi)
}

// attach gives the people of s the enrichments and histories w names.
// When lo and hi bound the people's IDs, SQLite first asks whether any
// history lies between them: its IN list of w is made into a table even
// when no row is then looked up (0.11 s for 150,000 people).
func (p *peopleStore) attach(s *state.State, w where, lo, hi string) error {
	names, err := p.blockNames()
	if err != nil {
		return err
	}
	if err := p.r.enrichmentsWhere(p.ctx, s, w, names); err != nil {
		return err
	}
	if lo != "" {
		if none, err := p.noHistoryBetween(lo, hi); err != nil || none {
			return err
		}
	}
	return p.r.historyWhere(p.ctx, s, w, names)
}

// noHistoryBetween reports, on SQLite, that the workspace holds no change
// of a person whose ID is from lo to hi (SomeHistoryBetween): an IN list
// is made into a table even when no row is then looked up. Elsewhere it
// reports false: the question would cost what it spares.
func (p *peopleStore) noHistoryBetween(lo, hi string) (bool, error) {
	if !p.r.D.packRows {
		return false, nil
	}
	var some bool
	err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(SomeHistoryBetween), p.r.WS, lo, hi).Scan(&some)
	return !some, err
}

// SomeHistoryBetween: whether the workspace holds a change of a person
// whose ID is from $2 to $3 (byte order: SQLite's).
const SomeHistoryBetween = `SELECT EXISTS (SELECT 1 FROM {s}.person_history WHERE workspace = $1 AND person_id >= $2 AND person_id <= $3)`

// Facts counts the people with a few queries (grouped counts; the people
// whose e-mail may no longer be current, and those read by a track since
// quotaSince, are read to decide as state does).
func (p *peopleStore) Facts(quotaSince *time.Time) (state.PeopleFacts, error) {
	f := state.PeopleFacts{ByStatus: map[string]int{}, History: state.DriftCounts{ByField: map[string]int{}}}
	for _, field := range state.DriftFields {
		f.History.ByField[field] = 0
	}
	q := p.r
	if err := q.Q.QueryRowContext(p.ctx, q.D.Rewrite(CountPeople), q.WS).Scan(&f.Total); err != nil {
		return f, err
	}
	if err := q.Q.QueryRowContext(p.ctx, q.D.Rewrite(CountUnlisted), q.WS).Scan(&f.Unlisted); err != nil {
		return f, err
	}
	for status, n := range map[string]*int{state.StatusLeft: &f.History.Left, state.StatusPrivate: &f.History.Private} {
		if err := q.Q.QueryRowContext(p.ctx, q.D.Rewrite(CountStatus), q.WS, status).Scan(n); err != nil {
			return f, err
		}
	}
	err := p.groups(CountEnrichmentsBy, func(by string, n int) {
		f.Enriched += n
		e := state.Enrichment{By: by}
		switch {
		case e.ImportedEnrichment():
			f.Imported += n
		case e.ReusedFrom() != "":
			f.Reused += n
		}
	})
	if err != nil {
		return f, err
	}
	err = p.groups(CountEnrichmentsByStatus, func(status string, n int) {
		f.ByStatus[state.EmailStatus(status)] += n
	})
	if err != nil {
		return f, err
	}
	err = p.groups(CountHistoryByField, func(field string, n int) {
		f.History.ByField[field] += n
		f.History.Changes += n
	})
	if err != nil {
		return f, err
	}
	if err := q.Q.QueryRowContext(p.ctx, q.D.Rewrite(CountPeopleWithHistory), q.WS).Scan(&f.History.People); err != nil {
		return f, err
	}
	if err := p.emails(&f); err != nil {
		return f, err
	}
	if quotaSince != nil {
		if err := p.quotaCalls(&f, *quotaSince); err != nil {
			return f, err
		}
	}
	return f, nil
}

// Names counts the addresses the people's records name (state.Names),
// one grouped count each.
func (p *peopleStore) Names() (state.Names, error) {
	n := state.Names{Enriched: map[string]int{}, Copied: map[string]int{}, Tracked: map[string]int{}, History: map[string]int{}}
	for q, m := range map[string]map[string]int{CountEnrichmentsBy: n.Enriched, CountCopiedBy: n.Copied, CountTracks: n.Tracked, CountHistoryBy: n.History} {
		if err := p.groups(q, func(addr string, c int) { m[addr] += c }); err != nil {
			return n, err
		}
	}
	return n, nil
}

// naming are the IDs of the people whose enrichment or history names one
// of addrs (PeopleStore.Naming), each once.
func (p *peopleStore) naming(addrs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	for _, addr := range addrs {
		for _, q := range []string{SelectEnrichedBy, SelectCopiedBy, SelectHistoryBy} {
			ids, err := p.ids(q, addr)
			if err != nil {
				return nil, err
			}
			for _, id := range ids {
				if !seen[id] {
					seen[id] = true
					out = append(out, id)
				}
			}
		}
	}
	return out, nil
}

// paged are the people whose page name, in lower case (state.PageKey),
// is one of keys: SelectPaged finds them by their stored page key; the
// key is computed again here, so that a row whose page_key was not
// written by leadsync (an edit with sqlite3) finds no one wrongly.
func (p *peopleStore) paged(keys []string) ([]string, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	want := make(map[string]bool, len(keys))
	for _, k := range keys {
		want[k] = true
	}
	arg, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}
	rows, err := p.r.query(p.ctx, SelectPaged, p.r.WS, string(arg))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, page string
		if err := rows.Scan(&id, &page); err != nil {
			return nil, err
		}
		if want[state.PageKey(page)] {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}

// groups runs a query of (text, count) rows and hands each to add.
func (p *peopleStore) groups(query string, add func(string, int)) error {
	rows, err := p.r.query(p.ctx, query, p.r.WS)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return err
		}
		add(key, n)
	}
	return rows.Err()
}

// idsAfter reads up to n person IDs after id, in ID order, as one JSON
// array: each row read costs calls into SQLite, and a round of the
// protocol's rows on PostgreSQL.
func (p *peopleStore) idsAfter(after string, n int) ([]string, error) {
	q := fmt.Sprintf(SelectIDsAfter, p.r.D.byteOrder, p.r.D.byteOrder, n)
	var packed string
	err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(p.r.D.packIDs(q)), p.r.WS, after).Scan(&packed)
	if err != nil {
		return nil, err
	}
	return splitTexts(packed)
}

// enriched are the people holding an enrichment the enrich block at addr
// made (the index enrichments_by), or copied from another workspace
// (copies).
func (p *peopleStore) enriched(addr string) ([]string, error) {
	// One text of every ID (packIDs): at 1,000,000 enrichments in SQLite
	// 2.0 s of CPU, most of it the table's pages, against 2.5 s a row each.
	q := p.r.D.packIDs(strings.Replace(SelectEnrichedBy, "SELECT person_id FROM", "SELECT person_id AS id FROM", 1))
	var packed string
	if err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(q), p.r.WS, addr).Scan(&packed); err != nil {
		return nil, err
	}
	ids, err := splitTexts(packed)
	if err != nil || len(ids) == 0 {
		ids = nil // none: as a row each gave them
	}
	if err != nil {
		return nil, err
	}
	copied, err := p.copies(addr)
	return append(ids, copied...), err
}

// countEnriched counts the people of enriched: those the block enriched
// from the index alone.
func (p *peopleStore) countEnriched(addr string) (int, error) {
	var n int
	if err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(CountEnrichedBy), p.r.WS, addr).Scan(&n); err != nil {
		return 0, err
	}
	copied, err := p.copies(addr)
	return n + len(copied), err
}

// copies are the people holding an enrichment the enrich block at addr
// copied from another workspace (the index enrichments_copied).
func (p *peopleStore) copies(addr string) ([]string, error) { return p.ids(SelectCopiedBy, addr) }

// companyDomains runs SelectCompanyDomains. With keep, it reads the
// distinct domains first (SelectEnrichedDomains: the enrichments alone),
// and asks for the pairs of the domains keep keeps only, so that the
// people of the other enrichments are not read: the join to the people
// was most of the question (0.46 s of 0.8 s at 1,000,000 enrichments).
func (p *peopleStore) companyDomains(keep func(string) bool) ([]state.CompanyDomain, error) {
	q, args := SelectCompanyDomains, []any{p.r.WS}
	if keep != nil {
		domains, err := p.ids(SelectEnrichedDomains)
		if err != nil {
			return nil, err
		}
		domains = slices.DeleteFunc(domains, func(d string) bool { return !keep(d) })
		if len(domains) == 0 {
			return nil, nil
		}
		list, err := p.r.D.List(domains)
		if err != nil {
			return nil, err
		}
		q, args = q+" AND "+p.r.D.inList("e.company_domain", "$2"), append(args, list)
	}
	rows, err := p.r.query(p.ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []state.CompanyDomain
	for rows.Next() {
		var c state.CompanyDomain
		if err := rows.Scan(&c.Company, &c.Domain); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// ids runs a query of person IDs.
func (p *peopleStore) ids(query string, args ...any) ([]string, error) {
	rows, err := p.r.query(p.ctx, query, append([]any{p.r.WS}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

// emails counts the e-mails no longer current: only people holding an
// enrichment who left the network or have a history can have one; they
// are read and asked (Person.EmailNotCurrent).
func (p *peopleStore) emails(f *state.PeopleFacts) error {
	changed, err := p.ids(SelectChanged)
	if err != nil {
		return err
	}
	left, err := p.ids(SelectLeft)
	if err != nil {
		return err
	}
	ids := slices.Compact(slices.Sorted(slices.Values(append(changed, left...))))
	return p.each(ids, func(q *state.Person) {
		switch q.EmailNotCurrent() {
		case state.EmailFormerEmployer:
			f.History.StaleEmails++
		case state.EmailLeftNetwork:
			f.History.LeftEmails++
		}
	})
}

// quotaCalls counts the enrichments made after t and the track reads of
// the first generation after t (Person.QuotaCallsSince).
func (p *peopleStore) quotaCalls(f *state.PeopleFacts, t time.Time) error {
	var n int
	if err := p.r.Q.QueryRowContext(p.ctx, p.r.D.Rewrite(CountEnrichedAfter), p.r.WS, p.r.D.TimeValue(t)).Scan(&n); err != nil {
		return err
	}
	f.QuotaCalls += n
	ids, err := p.ids(SelectCheckedAfter, p.r.D.TimeValue(t))
	if err != nil {
		return err
	}
	return p.each(ids, func(q *state.Person) {
		q.Enrichment = nil // counted above
		f.QuotaCalls += q.QuotaCallsSince(t)
	})
}

// each reads the people of ids a page at a time and hands each to fn.
func (p *peopleStore) each(ids []string, fn func(*state.Person)) error {
	for start := 0; start < len(ids); start += state.PeoplePage {
		ps, err := p.Get(ids[start:min(start+state.PeoplePage, len(ids))])
		if err != nil {
			return err
		}
		for _, q := range ps {
			fn(q)
		}
	}
	return nil
}

// header reads the workspace's row into a new state.
func (r *Reader) header(ctx context.Context) (*state.State, bool, error) {
	return ScanWorkspaceRow(r.Q.QueryRowContext(ctx, r.D.Rewrite(SelectHeader), r.WS).Scan)
}

// ScanWorkspaceRow makes a new state of the workspace's row, the answer
// of SelectHeader, that scan reads (sql.Row's, or a driver's own): its
// serial, usage, service and configuration, no record. found is false
// when there is no row (sql.ErrNoRows).
func ScanWorkspaceRow(scan func(dest ...any) error) (s *state.State, found bool, err error) {
	s = state.New()
	var usage string
	var extra sql.NullString
	err = scan(&s.Lineage, &s.Serial, &s.FormatVersion, &s.LeadsyncVersion, &usage, &extra)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if s.FormatVersion > state.FormatVersion {
		return nil, false, fmt.Errorf("the workspace holds a state of format_version %d (written by leadsync %s); this leadsync reads format_version %d or older: upgrade leadsync", s.FormatVersion, s.LeadsyncVersion, state.FormatVersion)
	}
	if usage != "" {
		if err := json.Unmarshal([]byte(usage), &s.Usage); err != nil {
			return nil, false, fmt.Errorf("usage: %w", err)
		}
	}
	if err := StateExtra.Decode([]byte(extra.String), s); err != nil {
		return nil, false, err
	}
	return s, true, nil
}
