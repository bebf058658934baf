package pg

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
)

// streamBatch is how many pages of people streamPages asks for in one
// round trip.
const streamBatch = 8

// streamPages reads the people of the pages of IDs next gives
// (sqlstate.Reader.PageStream, state.PageStreamer): the three queries of
// each page (its people, their enrichments, their histories) are sent
// streamBatch pages at a time in one round trip (a pgx batch), and their
// rows read as they come. A page a question, an export of 1,000,000 rows
// waited on 1,500 round trips, each a wake-up of the server's process and
// then of leadsync's on a loaded machine. The rows are decoded as Load
// decodes them (pgx's own rows, not database/sql's). It runs on a
// connection of its own in the snapshot of pinned (inSnapshot), as
// streamIDs does.
func (b *Backend) streamPages(ctx context.Context, pinned sqlstate.Querier, next func() ([]string, bool), fn func([]*state.Person) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	// Cancelled first when fn stops early, as streamIDs does: the
	// connection is closed rather than the batch read to its end.
	defer cancel()
	c, tx, err := b.inSnapshot(ctx, pinned)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	// A workspace without any history (the most) is not asked for that of
	// each page: a probe of the index for each person, finding nothing.
	var history bool
	if err := tx.QueryRow(ctx, b.sql(someHistoryQuery), b.workspace).Scan(&history); err != nil {
		return err
	}
	// The addresses by number, once: the snapshot's.
	names, err := addressNames(ctx, tx, b, b.workspace)
	if err != nil {
		return err
	}
	for {
		var pages [][]string
		for len(pages) < streamBatch {
			ids, ok := next()
			if !ok {
				break
			}
			pages = append(pages, ids)
		}
		if len(pages) == 0 {
			return nil
		}
		more, err := b.readPages(ctx, tx, names, pages, history, func(people []*state.Person) bool {
			if !fn(people) {
				cancel()
				return false
			}
			return true
		})
		if err != nil || !more {
			return err
		}
	}
}

// readPages sends the queries of pages in one batch (names: the
// addresses by number) (those of their
// histories when history) and hands fn each page's people in order; more
// is false when fn stopped.
func (b *Backend) readPages(ctx context.Context, tx pgx.Tx, names map[int32]string, pages [][]string, history bool, fn func([]*state.Person) bool) (more bool, err error) {
	batch := &pgx.Batch{}
	for _, ids := range pages {
		args := []any{b.workspace, ids}
		batch.Queue(b.sql(pagePeopleQuery), args...)
		batch.Queue(b.sql(pageEnrichmentsQuery), args...)
		if history {
			batch.Queue(b.sql(pageHistoryQuery), args...)
		}
	}
	br := tx.SendBatch(ctx, batch)
	defer br.Close()
	for _, ids := range pages {
		people, err := readPage(br, names, len(ids), history)
		if err != nil {
			return false, err
		}
		if !fn(people) {
			return false, nil
		}
	}
	return true, br.Close()
}

// readPage reads the results of one page's queries from br.
func readPage(br pgx.BatchResults, names map[int32]string, n int, history bool) ([]*state.Person, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	byID := make(map[string]*state.Person, n)
	people := make([]*state.Person, 0, n)
	if err := scanPeople(rows, names, func(p *state.Person) {
		byID[p.ID] = p
		people = append(people, p)
	}); err != nil {
		return nil, err
	}
	if rows, err = br.Query(); err != nil {
		return nil, err
	}
	enrichments, err := scanEnrichments(rows, names)
	if err != nil {
		return nil, err
	}
	for _, e := range enrichments {
		if p := byID[e.id]; p != nil {
			p.Enrichment = e.e
		}
	}
	if !history {
		return people, nil
	}
	if rows, err = br.Query(); err != nil {
		return nil, err
	}
	changes, err := scanHistory(rows, names)
	if err != nil {
		return nil, err
	}
	attachHistory(&state.State{People: byID}, changes)
	return people, nil
}

// The queries of a page of people ($2, their IDs) of the workspace $1:
// the columns of readPeople, readEnrichmentsOf and readHistoryOf.
var (
	someHistoryQuery = `SELECT EXISTS (SELECT 1 FROM {s}.person_history WHERE workspace = $1)`
	pagePeopleQuery  = `SELECT id, ` + strings.Join(fieldColumns(leadCols), ", ") + `,
		first_seen, last_seen, found_by, profile, profile_read_at, raw, extra, status, status_since, checked_at FROM {s}.people WHERE workspace = $1 AND id = ANY($2)`
	pageEnrichmentsQuery = enrichmentsQuery + ` AND person_id = ANY($2)`
	pageHistoryQuery     = historyQuery + ` AND person_id = ANY($2) ORDER BY person_id, n`
)
