package local

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/version"
)

// A push from one SQLite database into another copies the people's rows
// inside SQLite (INSERT ... SELECT from the source, attached to the
// target's connection) instead of passing each person through Go: no
// value is bound, no row decoded to be written. The people are still
// read and checked as a push checks them (backend.PushSource), in the
// same transaction, so that the check and the copy see one snapshot of
// the source: a broken state is refused as before, and nothing is
// written. At 3,000,000 people it takes about half the CPU
// (docs/performance.md).

// srcSchema is the name the source database is attached under.
const srcSchema = "leadsync_src"

// errNotCopied says the source cannot be copied in SQLite (it cannot be
// attached or read, calls of an interrupted apply wait in it, a person's
// rows are not as leadsync writes them, it is the target itself): nothing
// was written, and the push passes the people through Go instead, which
// says what is wrong with the source if anything is.
var errNotCopied = errors.New("the state is not copied row by row in SQLite")

// pushCopied is pushInto of src, a SQLite database, into the database d
// of ws: errNotCopied when it cannot be copied in SQLite. serial is the
// workspace's serial.
func (ws *Workspace) pushCopied(d *dbStore, src *dbStream, serial uint64) (*backend.Pushed, error) {
	uri, ok := attachURI(src.d.path, d.path)
	if !ok {
		return nil, errNotCopied
	}
	entries, err := ws.Erasures()
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was copied", err)
	}
	// The header is read again in the copy's transaction: the stream's
	// (its searches' lists, 130 MB at 3,000,000 people) is let go of,
	// and read again if the people pass through Go after all.
	src.header = nil
	d.mu.Lock()
	defer d.mu.Unlock()
	defer d.closeIdle()
	c := &rowCopy{d: d, srcWS: src.d.ws, what: src.what, entries: entries, serial: serial}
	err = d.writeAttached("writing the state", false, uri, c.write)
	switch {
	case c.srcErr != nil:
		return nil, c.srcErr
	case err != nil:
		return nil, err
	}
	err = d.afterErasure(c.ps.Header)
	d.seenN = 0
	if err != nil {
		return nil, err
	}
	return &c.ps.Pushed, nil
}

// attachURI is the URI that attaches the database at path read-only;
// false when it is the target's own file or cannot be named.
func attachURI(path, target string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(abs)
	if err != nil || fi.IsDir() {
		return "", false
	}
	if ti, err := os.Stat(target); err == nil && os.SameFile(fi, ti) {
		return "", false
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: "mode=ro"}
	return u.String(), true
}

// rowCopy is one push copied in SQLite.
type rowCopy struct {
	d       *dbStore
	srcWS   string
	what    string
	entries []*state.Suppression
	serial  uint64
	ps      *backend.PushSource
	// srcErr is an error of the source (a broken state), returned as it is.
	srcErr error
}

// write reads the source's header, checks it and its people as a push
// does, and writes the state: the header's rows, then the people's
// copied from the source.
func (c *rowCopy) write(w *sqlstate.Writer) error {
	ctx := context.Background()
	r := &sqlstate.Reader{D: sqlstate.SQLite.InSchema(srcSchema), Q: w.Tx, WS: c.srcWS}
	h, pending, found, err := r.ReadHeader(ctx)
	if err != nil || pending || !found {
		return fmt.Errorf("%w: %v", errNotCopied, err) // the stream says what is wrong
	}
	src := &attachedStream{r: r, header: h, what: c.what}
	if c.ps, err = backend.PreparePush(src, c.entries); err != nil {
		return c.source(err)
	}
	h.Serial = max(h.Serial, c.serial) + 1
	h.LeadsyncVersion, h.FormatVersion, h.Journal = version.String(), state.FormatVersion, nil
	rebuild, err := dropIndexes(ctx, w.Tx)
	if err == nil {
		c.d.emptied, err = emptyPeopleAlone(ctx, w.Tx, w.WS)
	}
	if err != nil {
		return err
	}
	people := func(func([]*state.Person) error) error {
		c.ps.ReleaseLists() // their rows are written
		var want rowCounts
		if err := c.ps.People(want.add); err != nil {
			return c.source(err)
		}
		// The people read are garbage: returned to the system before
		// SQLite's copy and its indexes' sorts take memory of their own
		// (at 3,000,000 people 137 MB during the copy instead of 180).
		debug.FreeOSMemory()
		return copyPeopleRows(ctx, w.Tx, w.WS, c.srcWS, c.ps.Erased(), want)
	}
	if err := w.ReplaceStream(ctx, h, people, sqlstate.SQLite.TimeValue(c.d.now())); err != nil {
		return err
	}
	return rebuild()
}

// source keeps err, an error of the source, to be returned as it is
// (errNotCopied is not one).
func (c *rowCopy) source(err error) error {
	if !errors.Is(err, errNotCopied) {
		c.srcErr = err
	}
	return err
}

// attachedStream reads the attached source in the push's transaction.
// Its people are checked only (their rows are copied as they are). A
// found_by out of order needs no pass through Go: it holds numbers,
// which every read gives as names in order.
type attachedStream struct {
	r      *sqlstate.Reader
	header *state.State
	what   string
}

func (s *attachedStream) Describe() string     { return s.what }
func (s *attachedStream) Header() *state.State { return s.header }
func (s *attachedStream) Close() error         { return nil }

func (s *attachedStream) People(fn func([]*state.Person) error) error {
	var ferr error
	err := s.r.PeopleBatches(context.Background(), backend.StreamBatch, func(b []*state.Person) error {
		ferr = fn(b)
		return ferr
	})
	if ferr != nil {
		return ferr
	}
	if err != nil {
		// The stream reads it again and says what is wrong.
		return fmt.Errorf("%w: %v", errNotCopied, err)
	}
	return nil
}

// copyPeopleRows copies the rows of the people of the source's workspace
// srcWS, their enrichments and their histories, into the workspace ws,
// but the people erased. The histories are numbered from 0, as a push
// that writes each person numbers them. Only rows whose times are
// written as leadsync writes them are copied (canonicalTimes); want
// counts the rows the check passed: fewer copied is errNotCopied, and
// the people pass through Go, which writes each time in that form.
func copyPeopleRows(ctx context.Context, tx *sql.Tx, ws, srcWS string, erased map[string]bool, want rowCounts) error {
	ids := make([]string, 0, len(erased))
	for id := range erased {
		ids = append(ids, id)
	}
	leftOut, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	if err := copyAddresses(ctx, tx, ws, srcWS); err != nil {
		return err
	}
	hist := slices.Clone(sqlstate.HistoryCols)
	hist[slices.Index(hist, "n")] = "row_number() OVER (PARTITION BY person_id ORDER BY n) - 1"
	for i, t := range []struct {
		table, id string
		cols, sel []string
	}{
		{"people", "id", sqlstate.PeopleCols, sqlstate.PeopleCols},
		{"enrichments", "person_id", sqlstate.EnrichmentCols, sqlstate.EnrichmentCols},
		{"person_history", "person_id", sqlstate.HistoryCols, hist},
	} {
		q := `INSERT INTO main.` + t.table + ` (` + strings.Join(t.cols, ", ") + `) SELECT ?1, ` + strings.Join(t.sel[1:], ", ") +
			` FROM ` + srcSchema + `.` + t.table + ` WHERE workspace = ?2 AND ` + t.id + ` NOT IN (SELECT value FROM json_each(?3))` +
			canonicalTimes(t.table) + ` ORDER BY ` + t.id
		res, err := tx.ExecContext(ctx, q, ws, srcWS, string(leftOut))
		if err != nil {
			return fmt.Errorf("copying %s: %w", t.table, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != int64(want[i]) {
			return fmt.Errorf("%w: %d rows of %s copied, %d checked (%v)", errNotCopied, n, t.table, want[i], err)
		}
	}
	return nil
}

// copyAddresses copies the numbers of the source's addresses, which the
// people's found_by hold, into the workspace ws, whose people are gone.
func copyAddresses(ctx context.Context, tx *sql.Tx, ws, srcWS string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM main.addresses WHERE workspace = ?1`, ws); err != nil {
		return fmt.Errorf("copying addresses: %w", err)
	}
	q := `INSERT INTO main.addresses (workspace, n, address) SELECT ?1, n, address FROM ` + srcSchema + `.addresses WHERE workspace = ?2`
	if _, err := tx.ExecContext(ctx, q, ws, srcWS); err != nil {
		return fmt.Errorf("copying addresses: %w", err)
	}
	return nil
}

// detach detaches the source from conn, or has database/sql discard the
// connection.
func detach(ctx context.Context, conn *sql.Conn) {
	if _, err := conn.ExecContext(ctx, `DETACH DATABASE `+srcSchema); err != nil {
		conn.Raw(func(any) error { return driver.ErrBadConn })
	}
}
