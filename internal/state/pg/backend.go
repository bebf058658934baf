package pg

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"regexp"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/sqlstate"
	"github.com/leadsync/leadsync/internal/version"
)

// Options says where the state is.
type Options struct {
	// ConnStr is the connection string (a secret: never printed).
	ConnStr string
	// Schema is the schema of the tables; DefaultSchema when empty.
	Schema string
	// Workspace is the workspace; DefaultWorkspace when empty.
	Workspace string

	// Now is the clock for lock times; time.Now when nil.
	Now func() time.Time
	// User, Host and PID identify this process as a lock holder; the OS's
	// when unset.
	User func() string
	Host func() string
	PID  int
	// StallLimit is how long a step of a push or a migration (a
	// statement, a batch of people written) may go on before the work is
	// taken to be stalled and rolled back; DefaultStallLimit when 0.
	StallLimit time.Duration
}

// Backend is the state of one workspace in PostgreSQL. It implements
// backend.Backend. Its methods may be used from several goroutines.
type Backend struct {
	opts      Options
	schema    string
	quoted    string
	dialect   *sqlstate.Dialect
	workspace string

	mu    sync.Mutex
	conn  *pgx.Conn // for loads and writes; the lock has its own
	conn2 *pgx.Conn // a second reader for Load, opened on first use
	// lockPID is the database session that holds this backend's workspace
	// lock, 0 when this process holds none: each recorded call checks that
	// the lock is still held.
	lockPID int
	held    *Lock // the lock this backend holds, nil when none
	seenN   int64 // the last recorded call the last Load applied
	// seenCalls is how many recorded calls the last Load applied (while
	// seenN is not 0).
	seenCalls int
	rec       *recorder
	migrated  bool
	// unchecked says the last push wrote its rows without their keys'
	// checks (skipKeyChecks).
	unchecked bool
	// keyOff says the last push checked the people's key to their
	// workspace once at its end (takeOffWorkspaceKey).
	keyOff bool
	// stallTimer times the steps of a push or a migration (a test's
	// clock); time.AfterFunc when nil.
	stallTimer stallTimer
}

var _ backend.Backend = (*Backend)(nil)

// New returns the backend of opts; nothing is connected yet.
func New(opts Options) (*Backend, error) {
	if opts.Schema == "" {
		opts.Schema = DefaultSchema
	}
	if opts.Workspace == "" {
		opts.Workspace = DefaultWorkspace
	}
	if err := CheckSchemaName(opts.Schema); err != nil {
		return nil, err
	}
	if err := CheckWorkspaceName(opts.Workspace); err != nil {
		return nil, err
	}
	if err := CheckConnStr(opts.ConnStr); err != nil {
		return nil, err
	}
	return &Backend{
		opts:      opts,
		schema:    opts.Schema,
		quoted:    pgx.Identifier{opts.Schema}.Sanitize(),
		dialect:   sqlstate.Postgres(pgx.Identifier{opts.Schema}.Sanitize()),
		workspace: opts.Workspace,
	}, nil
}

// Workspace is the backend's workspace.
func (b *Backend) Workspace() string { return b.workspace }

// Describe names where the state is, for messages.
func (b *Backend) Describe() string {
	return fmt.Sprintf("workspace %q in PostgreSQL (schema %s)", b.workspace, b.schema)
}

// Close closes the backend's connection (a held lock has its own).
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.conn2 != nil {
		b.closeDataConn(b.conn2)
		b.conn2 = nil
	}
	if b.conn == nil {
		return nil
	}
	err := b.closeDataConn(b.conn)
	b.conn = nil
	return err
}

func (b *Backend) now() time.Time {
	if b.opts.Now != nil {
		return b.opts.Now()
	}
	return time.Now()
}

func (b *Backend) user() string {
	if b.opts.User != nil {
		return b.opts.User()
	}
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if u := os.Getenv("USER"); u != "" {
		return u
	}
	return "unknown"
}

func (b *Backend) host() string {
	if b.opts.Host != nil {
		return b.opts.Host()
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "unknown-host"
}

func (b *Backend) pid() int {
	if b.opts.PID != 0 {
		return b.opts.PID
	}
	return os.Getpid()
}

// Load reads the workspace's state from one consistent snapshot (a
// read-only REPEATABLE READ transaction: it neither blocks nor waits for an
// apply), with the calls an interrupted apply recorded applied on top. A
// workspace with nothing stored gives an empty state. The state returned
// tracks its changes, so that Commit writes only what changed. The
// schema's erasure record is applied to it (erasures.go), as to a pushed
// state.
func (b *Backend) Load() (*state.State, error) {
	var s *state.State
	found, err := b.reading(func(ctx context.Context, c *pgx.Conn) error {
		return b.inTx(ctx, c, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
			// A second connection reads the other tables from the same
			// snapshot while this one reads the people: the two halves
			// take about as long.
			var q2 querier
			if t2 := b.sharedSnapshot(ctx, tx); t2 != nil {
				defer t2.Rollback(ctx)
				q2 = t2
			}
			st, found, err := b.read(ctx, tx, q2, b.workspace)
			switch {
			case err != nil:
				return b.wrap("reading the state", err)
			case !found && b.workspace != DefaultWorkspace:
				return noWorkspace(b.workspace)
			case !found:
				st = b.empty()
			}
			// An erasure made elsewhere (another workspace, before this
			// one was made) holds here too.
			s = st
			return b.honour(ctx, tx, s)
		})
	})
	switch {
	case err != nil:
		return nil, err
	case !found && b.workspace != DefaultWorkspace:
		return nil, noWorkspace(b.workspace)
	case !found:
		return b.empty(), nil
	}
	return s, nil
}

// NoWorkspaceError is returned for a workspace that was never created (the
// same error as the local backend's, naming PostgreSQL).
type NoWorkspaceError = backend.NoWorkspaceError

// noWorkspace is the error for workspace ws, which does not exist.
func noWorkspace(ws string) error { return &NoWorkspaceError{Workspace: ws, In: "PostgreSQL"} }

func (b *Backend) empty() *state.State {
	s := state.New()
	s.Track()
	return s
}

// sharedSnapshot starts, on the backend's second connection, a read-only
// transaction that sees exactly what tx sees; nil when that cannot be done
// (the caller then reads everything through tx).
func (b *Backend) sharedSnapshot(ctx context.Context, tx pgx.Tx) pgx.Tx {
	if b.conn2 == nil || b.conn2.IsClosed() {
		c, err := b.dataConn(ctx)
		if err != nil {
			return nil
		}
		b.conn2 = c
	}
	var snap string
	if err := tx.QueryRow(ctx, `SELECT pg_export_snapshot()`).Scan(&snap); err != nil || !snapshotRe.MatchString(snap) {
		return nil
	}
	t2, err := b.conn2.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil
	}
	if _, err := t2.Exec(ctx, `SET TRANSACTION SNAPSHOT '`+snap+`'`); err != nil {
		t2.Rollback(ctx)
		return nil
	}
	return t2
}

var snapshotRe = regexp.MustCompile(`^[0-9A-Fa-f-]+$`)

// read builds the state of workspace ws from q (a snapshot), reading all
// but the people through q2 at the same time when q2 is not nil (the same
// snapshot).
// decodeHeader sets what the workspace's row holds beside its plain
// columns: the epoch (its created_at), the usage and the extra fields; a
// state of a newer format is refused.
func decodeHeader(s *state.State, created time.Time, usage, extra []byte) error {
	s.Epoch = epoch(created)
	if s.FormatVersion > state.FormatVersion {
		return fmt.Errorf("the workspace holds a state of format_version %d (written by leadsync %s); this leadsync reads format_version %d or older: upgrade leadsync", s.FormatVersion, s.LeadsyncVersion, state.FormatVersion)
	}
	if len(usage) > 0 {
		if err := json.Unmarshal(usage, &s.Usage); err != nil {
			return fmt.Errorf("usage: %w", err)
		}
	}
	return stateExtra.Decode(extra, s)
}

func (b *Backend) read(ctx context.Context, q, q2 querier, ws string) (*state.State, bool, error) {
	s := state.New()
	var usage, extra []byte
	var created time.Time
	err := q.QueryRow(ctx, b.sql(`SELECT lineage, serial, format_version, leadsync_version, service, configuration, usage, extra, created_at FROM {s}.workspaces WHERE name = $1`), ws).
		Scan(&s.Lineage, &s.Serial, &s.FormatVersion, &s.LeadsyncVersion, &s.Service, &s.Configuration, &usage, &extra, &created)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if err := decodeHeader(s, created, usage, extra); err != nil {
		return nil, false, err
	}
	if err := b.readRows(ctx, q, q2, ws, s); err != nil {
		return nil, false, err
	}
	// Calls an apply recorded but did not fold in yet (it was killed).
	events, maxN, err := b.readEvents(ctx, q, ws)
	if err != nil {
		return nil, false, err
	}
	s.Track()
	for i := range events {
		if err := s.Fold(events[i]); err != nil {
			return nil, false, fmt.Errorf("a recorded event (%s %s) cannot be applied: %w", events[i].Kind, events[i].Address, err)
		}
	}
	b.seenN, b.seenCalls = maxN, len(events)
	return s, true, nil
}

// readRows reads the rows of workspace ws into s: the people through q,
// and the rest through q2 at the same time when q2 is not nil (the same
// snapshot), else through q; then each person's enrichment and history.
func (b *Backend) readRows(ctx context.Context, q, q2 querier, ws string, s *state.State) error {
	var enrichments []enrichmentRow
	if q2 != nil {
		var oerr error
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer recovered.Catch(&oerr) // a bug: the read's error
			enrichments, oerr = readOthers(ctx, q2, b, ws, s)
		}()
		perr := readPeople(ctx, q, b, ws, s)
		<-done
		if err := recovered.First(perr, oerr); err != nil {
			return err
		}
	} else {
		if err := readPeople(ctx, q, b, ws, s); err != nil {
			return err
		}
		var err error
		if enrichments, err = readOthers(ctx, q, b, ws, s); err != nil {
			return err
		}
	}
	for _, r := range enrichments {
		if p := s.People[r.id]; p != nil {
			p.Enrichment = r.e
		}
	}
	history, err := readHistory(ctx, q, b, ws)
	if err != nil {
		return err
	}
	attachHistory(s, history)
	return nil
}

// readEvents reads the calls an apply of ws recorded but did not fold in
// yet, in order, and the number of the last.
func (b *Backend) readEvents(ctx context.Context, q querier, ws string) ([]state.Event, int64, error) {
	rows, err := q.Query(ctx, b.sql(`SELECT n, event FROM {s}.events WHERE workspace = $1 ORDER BY n`), ws)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var events []state.Event
	var maxN int64
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&maxN, &raw); err != nil {
			return nil, 0, err
		}
		var e state.Event
		if err := json.Unmarshal(raw, &e); err != nil {
			return nil, 0, fmt.Errorf("a recorded event cannot be read: %w", err)
		}
		events = append(events, e)
	}
	return events, maxN, rows.Err()
}

// OpenJournal starts recording the calls of one apply that will change s
// (from Load, under the lock). Calls a killed apply left, which Load
// applied to s, are written into the tables first.
func (b *Backend) OpenJournal(s *state.State) (backend.Recorder, error) {
	var rec *recorder
	err := b.locked(func(ctx context.Context) error {
		if b.rec != nil && !b.rec.closed {
			return fmt.Errorf("a recording is already open for %s", b.Describe())
		}
		if !s.Tracking() {
			return fmt.Errorf("OpenJournal: the state was not loaded from %s", b.Describe())
		}
		if _, err := b.flush(ctx, s, flushOpts{foldSeen: true}); err != nil {
			return err
		}
		b.seenN = 0
		rec = &recorder{b: b, s: s, id: newID()}
		b.rec = rec
		return nil
	})
	if err != nil {
		return nil, err
	}
	return rec, nil
}

// Commit writes what changed in s (never the whole state) and raises the
// serial. A state that was not loaded from this backend (it does not track
// its changes) replaces the workspace's state.
func (b *Backend) Commit(s *state.State) error {
	return b.locked(func(ctx context.Context) error {
		if r := b.rec; r != nil && !r.closed {
			if r.s != s {
				return fmt.Errorf("commit: the recording is open for another state value")
			}
			r.closed = true
		}
		if !s.Tracking() {
			return b.replace(ctx, s)
		}
		fo := flushOpts{foldSeen: true, bump: true, meta: true}
		if r := b.rec; r != nil && r.s == s {
			if r.lost {
				return &LockLostError{Where: b.Describe()}
			}
			if r.failed {
				return errCheckpointFailed(b.Describe())
			}
			fo.journal, fo.foldOwn = r.id, true
		}
		serial, err := b.flush(ctx, s, fo)
		if err != nil {
			return err
		}
		b.seenN = 0
		s.Serial = serial
		s.LeadsyncVersion = version.String()
		s.FormatVersion = state.FormatVersion
		s.Journal = nil
		return nil
	})
}

// flushOpts says what one write transaction does besides the changed rows.
type flushOpts struct {
	event   *state.Event // a new call to record (Append)
	journal string       // its recording
	// foldSeen deletes the recorded calls the last Load applied to s, and
	// foldOwn those of this recording (journal): they are in s now. Calls
	// recorded by others since (a run that lost its lock) are never deleted.
	foldSeen, foldOwn bool
	bump              bool // raise the serial (and set the version)
	meta              bool // write the state's extra fields
}

// flush writes, in one transaction, the rows s changed since the last
// flush, plus what fo asks, and returns the workspace's serial. On error
// nothing is written and the changes are kept for the next flush. The
// caller holds b.mu.
func (b *Backend) flush(ctx context.Context, s *state.State, fo flushOpts) (uint64, error) {
	c, err := b.writable(ctx)
	if err != nil {
		return 0, err
	}
	ch := s.TakeChanges()
	serial, err := b.flushTx(ctx, c, s, ch, fo)
	if err != nil {
		s.PutBackChanges(ch)
		return 0, err
	}
	return serial, nil
}

// flushTx writes, in one transaction, the event of a call (fo.event) and
// the changes ch of s, folds the events s holds now, and raises the
// workspace's serial; it returns the serial.
func (b *Backend) flushTx(ctx context.Context, c *pgx.Conn, s *state.State, ch *state.Changes, fo flushOpts) (serial uint64, err error) {
	lost := false
	err = b.inTx(ctx, c, pgx.TxOptions{}, func(tx pgx.Tx) error {
		var err error
		serial, lost, err = b.writeTx(ctx, tx, s, ch, fo)
		return err
	})
	if err == nil && lost {
		return 0, &LockLostError{Where: b.Describe()}
	}
	return serial, err
}

// writeTx is the transaction of flushTx. When the lock was lost to
// another run it records the call's event only (lost).
func (b *Backend) writeTx(ctx context.Context, tx pgx.Tx, s *state.State, ch *state.Changes, fo flushOpts) (serial uint64, lost bool, err error) {
	if err := b.ensureWorkspace(ctx, tx, s); err != nil {
		return 0, false, err
	}
	batch := &pgx.Batch{}
	if (fo.event != nil || fo.foldOwn) && b.lockPID != 0 {
		if lost, err = b.lockLost(ctx, tx); err != nil {
			return 0, false, err
		}
	}
	if lost && fo.event == nil {
		// Nothing paid for to keep: no row is written under the other
		// run's feet.
		return 0, true, nil
	}
	if fo.event != nil {
		if err := b.insertEvent(ctx, tx, fo.event, fo.journal); err != nil {
			return 0, false, err
		}
		if lost {
			return 0, true, nil
		}
		// The calls before this one are in s now: fold them.
		batch.Queue(b.sql(`DELETE FROM {s}.events WHERE workspace = $1 AND journal_id = $2 AND seq < $3`), b.workspace, fo.journal, int64(fo.event.Seq))
	}
	if err := b.queueChanges(ctx, tx, batch, s, ch); err != nil {
		return 0, false, err
	}
	if fo.foldSeen && b.seenN > 0 {
		// The calls the last Load applied to s (left by a killed run).
		batch.Queue(b.sql(`DELETE FROM {s}.events WHERE workspace = $1 AND n <= $2`), b.workspace, b.seenN)
	}
	if fo.foldOwn {
		// This recording's calls: the caller applied every one of them.
		batch.Queue(b.sql(`DELETE FROM {s}.events WHERE workspace = $1 AND journal_id = $2`), b.workspace, fo.journal)
	}
	if fo.meta || (ch != nil && ch.Meta) {
		// State-level fields no column models (the split runs under way).
		extra, err := stateExtra.Encode(stripMaps(s))
		if err != nil {
			return 0, false, err
		}
		batch.Queue(b.sql(`UPDATE {s}.workspaces SET extra = $2, format_version = $3, leadsync_version = $4, service = $5, configuration = $6 WHERE name = $1`),
			b.workspace, extra, state.FormatVersion, version.String(), s.Service, s.Configuration)
	}
	if batch.Len() > 0 {
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return 0, false, b.wrap("writing the state", err)
		}
	}
	var ser int64
	if fo.bump || fo.event != nil || !ch.Empty() {
		err = tx.QueryRow(ctx, b.sql(`UPDATE {s}.workspaces SET serial = serial + 1 WHERE name = $1 RETURNING serial`), b.workspace).Scan(&ser)
	} else {
		err = tx.QueryRow(ctx, b.sql(`SELECT serial FROM {s}.workspaces WHERE name = $1`), b.workspace).Scan(&ser)
	}
	if err != nil {
		return 0, false, b.wrap("raising the serial", err)
	}
	return uint64(ser), false, nil
}

// lockLost reports whether the workspace's lock was lost: a lock whose
// connection was closed (a network cut, an idle timeout) may be taken by
// another run, so the run stops before spending more. A lock let go but
// free is taken again. When another run holds it now, the call at hand is
// paid for: it is recorded (its event only, which the next load applies;
// no row is written under the other run's feet), then the run stops.
func (b *Backend) lockLost(ctx context.Context, tx pgx.Tx) (bool, error) {
	var held bool
	k := uint64(b.key())
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = $1
		AND classid = $2::bigint::oid AND objid = $3::bigint::oid AND objsubid = 1)`, b.lockPID, int64(k>>32), int64(k&0xffffffff)).Scan(&held); err != nil {
		return false, b.wrap("checking the lock", err)
	}
	return !held && b.relock(ctx) != nil, nil
}

// insertEvent records the event of a call of the recording journal in tx.
// The same call recorded again (a write tried again) is no change; a call
// recorded with other content is refused.
func (b *Backend) insertEvent(ctx context.Context, tx pgx.Tx, ev *state.Event, journal string) error {
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("recording the call: %w", err)
	}
	var stored []byte
	err = tx.QueryRow(ctx, b.sql(`WITH ins AS (
		INSERT INTO {s}.events (workspace, journal_id, seq, at, kind, address, event)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (workspace, journal_id, seq) DO NOTHING RETURNING 1)
		SELECT CASE WHEN EXISTS (SELECT 1 FROM ins) THEN NULL ELSE (SELECT event FROM {s}.events WHERE workspace = $1 AND journal_id = $2 AND seq = $3) END`),
		b.workspace, journal, int64(ev.Seq), ev.At, string(ev.Kind), ev.Address, raw).Scan(&stored)
	if err != nil {
		return b.wrap("recording the call", err)
	}
	if stored != nil && !sqlstate.SameJSON(stored, raw) {
		return fmt.Errorf("%s: call %d of this apply is already recorded with other content; nothing was written", b.Describe(), ev.Seq)
	}
	return nil
}

// ensureWorkspace creates the workspace row for s when missing and refuses
// to write s over another state (another lineage).
func (b *Backend) ensureWorkspace(ctx context.Context, tx pgx.Tx, s *state.State) error {
	if _, err := tx.Exec(ctx, b.sql(`INSERT INTO {s}.workspaces (name, lineage, serial, format_version, leadsync_version) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING`),
		b.workspace, s.Lineage, int64(s.Serial), state.FormatVersion, version.String()); err != nil {
		return b.wrap("creating the workspace", err)
	}
	var lineage string
	var created time.Time
	if err := tx.QueryRow(ctx, b.sql(`SELECT lineage, created_at FROM {s}.workspaces WHERE name = $1 FOR UPDATE`), b.workspace).Scan(&lineage, &created); err != nil {
		return b.wrap("reading the workspace", err)
	}
	if lineage != s.Lineage {
		return fmt.Errorf("%s now holds another state (lineage %s) than the one this run loaded (lineage %s): it was replaced meanwhile (state push --force?); nothing was written. Run the command again", b.Describe(), lineage, s.Lineage)
	}
	s.Epoch = epoch(created)
	return nil
}

// recorder records each completed call in its own transaction.
type recorder struct {
	b      *Backend
	s      *state.State
	id     string
	seq    uint64
	lost   bool // the lock was lost: record nothing more
	failed bool // a Checkpoint failed: write nothing more
	closed bool
}

// Append commits e before it returns: the call's event, and the rows the
// calls before it changed (the caller folds each call into the state after
// Append returned and before the next Append). A killed apply loses no
// completed call: the next Load applies the recorded events the rows do
// not hold yet. Appending the same event again after an error is safe.
func (r *recorder) Append(e *state.Event) error {
	if err := e.Validate(); err != nil {
		return err
	}
	b := r.b
	return b.locked(func(ctx context.Context) error {
		if r.closed {
			return fmt.Errorf("the recording of %s is closed", b.Describe())
		}
		if r.lost {
			return &LockLostError{Where: b.Describe()}
		}
		e.Seq = r.seq + 1
		if _, err := b.flush(ctx, r.s, flushOpts{event: e, journal: r.id}); err != nil {
			var lost *LockLostError
			if errors.As(err, &lost) {
				// Recorded, and kept for the next load; this run writes
				// nothing more.
				r.seq++
				r.lost = true
				return err
			}
			e.Seq = 0
			return err
		}
		r.seq++
		return nil
	})
}

// errCheckpointFailed refuses to commit a state whose recording's
// Checkpoint failed: its write may have committed.
func errCheckpointFailed(where string) error {
	return fmt.Errorf("%s: the write of the moves failed, so this run writes nothing more; the next command folds its recorded calls in", where)
}

// LockLostError is returned by Append when this run's workspace lock was
// lost (its connection closed) and another run holds it now. The call was
// recorded all the same (it was paid for); the run must stop.
type LockLostError struct{ Where string }

// Recorded says that the call is recorded all the same: the layer above
// the recorder does not keep it elsewhere, and the engine folds it in and
// stops the run.
func (e *LockLostError) Recorded() bool { return true }

func (e *LockLostError) Error() string {
	return fmt.Sprintf("%s: this run's lock was lost (its database connection closed) and another run holds it now; "+
		"the last call is recorded, and this run stops so that two runs never pay for the same calls", e.Where)
}

// Close writes what the recorded calls changed and ends the recording.
// Every appended event must have been folded into the state.
func (r *recorder) Close() error { return r.CloseContext(context.Background()) }

// CloseContext is Close whose write stops when ctx is done (a second
// interrupt): the recording ends, the rows as they were, and the
// recorded calls are left for the next command to fold in.
func (r *recorder) CloseContext(ctx context.Context) error { return r.flushOwn(ctx, true) }

// Checkpoint writes what the recorded calls changed, and folds them in,
// without ending the recording (engine.Checkpointer); ctx done stops it
// and writes nothing. After it failed, the recording writes nothing more.
func (r *recorder) Checkpoint(ctx context.Context) error { return r.flushOwn(ctx, false) }

// flushOwn writes what the recorded calls changed and folds them in; end
// ends the recording. A failed Checkpoint ends it too, with nothing more
// written: its write may have committed (an unknown outcome), and its
// renames written twice would swap moved blocks back. The recorded calls
// stay for the next command to fold in. A lost lock writes nothing.
func (r *recorder) flushOwn(ctx context.Context, end bool) error {
	return r.b.locked(func(opCtx context.Context) error {
		switch {
		case r.closed && end:
			return nil
		case r.closed:
			return fmt.Errorf("the recording of %s is closed", r.b.Describe())
		}
		r.closed = end
		if r.lost {
			return nil
		}
		ctx, stop := context.WithCancel(ctx)
		defer stop()
		context.AfterFunc(opCtx, stop)
		_, err := r.b.flush(ctx, r.s, flushOpts{foldOwn: true, journal: r.id})
		var lost *LockLostError
		if errors.As(err, &lost) {
			r.lost = true
		}
		if err != nil && !end {
			r.closed, r.failed = true, true
		}
		return err
	})
}
