package sqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/leadsync/leadsync/internal/state"
)

// Writer writes the state of one workspace in one database/sql
// transaction in dialect d. Each query is prepared once per transaction.
type Writer struct {
	D  *Dialect
	Tx *sql.Tx
	WS string
	// Version is the leadsync version recorded in the header.
	Version string
	// Conn, when set, is the connection Tx runs on: ReplaceStream then
	// writes the people through the driver's connection (bulk).
	Conn *sql.Conn

	stmts map[string]*sql.Stmt
	// nums are the addresses' numbers, read at the first person written
	// after the renames (addrs.go).
	nums *Numbers
}

// exec runs q (in PostgreSQL's spelling) with args, prepared once.
func (w *Writer) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	st, err := w.stmt(ctx, q)
	if err != nil {
		return nil, err
	}
	return st.ExecContext(ctx, args...)
}

func (w *Writer) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st := w.stmts[q]; st != nil {
		return st, nil
	}
	st, err := w.Tx.PrepareContext(ctx, w.D.Rewrite(q))
	if err != nil {
		return nil, err
	}
	if w.stmts == nil {
		w.stmts = map[string]*sql.Stmt{}
	}
	w.stmts[q] = st
	return st, nil
}

// FlushOpts says what one write does besides the changed rows (as the pg
// backend's flush).
type FlushOpts struct {
	Event   *state.Event // a new call to record
	Journal string       // its recording
	// FoldSeen deletes the recorded calls up to this number (those the
	// last Load applied to s); FoldOwn those of the recording Journal.
	FoldSeen int64
	FoldOwn  bool
	Bump     bool // raise the serial
	Meta     bool // write the state's header fields without a column
	// Created is the creation time a new header row gets.
	Created any
}

// Flush writes the rows ch names (taken from s), plus what fo asks, and
// returns the workspace's serial.
func (w *Writer) Flush(ctx context.Context, s *state.State, ch *state.Changes, fo FlushOpts) (uint64, error) {
	if err := w.ensureWorkspace(ctx, s, fo.Created); err != nil {
		return 0, err
	}
	if fo.Event != nil {
		if err := w.insertEvent(ctx, fo.Event, fo.Journal); err != nil {
			return 0, err
		}
		// The calls before this one are in s now: fold them.
		if _, err := w.exec(ctx, DeleteEventsUpTo, w.WS, fo.Journal, int64(fo.Event.Seq)); err != nil {
			return 0, err
		}
	}
	if err := w.changes(ctx, s, ch); err != nil {
		return 0, err
	}
	if fo.FoldSeen > 0 {
		if _, err := w.exec(ctx, DeleteSeenEvents, w.WS, fo.FoldSeen); err != nil {
			return 0, err
		}
	}
	if fo.FoldOwn {
		if _, err := w.exec(ctx, DeleteJournal, w.WS, fo.Journal); err != nil {
			return 0, err
		}
	}
	if fo.Meta || (ch != nil && ch.Meta) {
		if err := w.meta(ctx, s); err != nil {
			return 0, err
		}
	}
	var serial int64
	var err error
	if fo.Bump || fo.Event != nil || !ch.Empty() {
		err = w.Tx.QueryRowContext(ctx, w.D.Rewrite(RaiseSerial), w.WS).Scan(&serial)
	} else {
		err = w.Tx.QueryRowContext(ctx, w.D.Rewrite(ReadSerial), w.WS).Scan(&serial)
	}
	if err != nil {
		return 0, fmt.Errorf("raising the serial: %w", err)
	}
	return uint64(serial), nil
}

// meta writes the state-level fields no column models (the split runs
// under way, the suppression list, ...) and the versions.
func (w *Writer) meta(ctx context.Context, s *state.State) error {
	extra, err := StateExtra.Encode(StripMaps(s))
	if err != nil {
		return err
	}
	_, err = w.exec(ctx, UpdateMeta, w.WS, w.D.JSON(extra), state.FormatVersion, w.Version)
	return err
}

// ensureWorkspace creates the header row for s when missing and refuses
// to write s over another state (another lineage).
func (w *Writer) ensureWorkspace(ctx context.Context, s *state.State, created any) error {
	if _, err := w.exec(ctx, InsertWorkspace, w.WS, s.Lineage, int64(s.Serial), state.FormatVersion, w.Version, created); err != nil {
		return fmt.Errorf("creating the state's header: %w", err)
	}
	var lineage string
	if err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(WorkspaceLineage), w.WS).Scan(&lineage); err != nil {
		return fmt.Errorf("reading the state's header: %w", err)
	}
	if lineage != s.Lineage {
		return &LineageError{Stored: lineage, Loaded: s.Lineage}
	}
	return nil
}

// LineageError is a write of a state over another one (another lineage).
type LineageError struct{ Stored, Loaded string }

func (e *LineageError) Error() string {
	return fmt.Sprintf("it now holds another state (lineage %s) than the one this run loaded (lineage %s): it was replaced meanwhile (state push --force?); nothing was written. Run the command again", e.Stored, e.Loaded)
}

// insertEvent records the event of a call. The same call recorded again
// (a write tried again) is no change; a call recorded with other content
// is refused.
func (w *Writer) insertEvent(ctx context.Context, ev *state.Event, journal string) error {
	raw, err := json.Marshal(ev)
	if err != nil {
		return fmt.Errorf("recording the call: %w", err)
	}
	res, err := w.exec(ctx, InsertEvent, w.WS, journal, int64(ev.Seq), w.D.TimeValue(ev.At), string(ev.Kind), ev.Address, w.D.JSON(raw))
	if err != nil {
		return fmt.Errorf("recording the call: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		return err
	}
	var stored string
	if err := w.Tx.QueryRowContext(ctx, w.D.Rewrite(SelectEvent), w.WS, journal, int64(ev.Seq)).Scan(&stored); err != nil {
		return fmt.Errorf("recording the call: %w", err)
	}
	if !SameJSON([]byte(stored), raw) {
		return fmt.Errorf("call %d of this apply is already recorded with other content; nothing was written", ev.Seq)
	}
	return nil
}

// SameJSON compares two JSON texts as values (a call recorded twice must
// be the same call; a database keeps JSON its own way).
func SameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// changes writes the rows ch names: an upsert for a key s has, a delete
// for one it does not.
func (w *Writer) changes(ctx context.Context, s *state.State, ch *state.Changes) error {
	if ch == nil {
		return nil
	}
	if err := s.CheckWrite(ch); err != nil {
		return err
	}
	if err := w.rename(ctx, RenameStmts(w.D, w.WS, ch.Renames)); err != nil {
		return fmt.Errorf("renaming moved addresses: %w", err)
	}
	gone := RemovedIDs(s, ch) // many removed: deleted in pages
	if err := w.removePeople(ctx, gone); err != nil {
		return err
	}
	if err := w.cutLists(ctx, ch); err != nil {
		return err
	}
	for id := range ch.People {
		if gone != nil && s.People[id] == nil {
			continue
		}
		if err := w.person(ctx, s.People[id], id, ch.History[id]); err != nil {
			return fmt.Errorf("person %s: %w", id, err)
		}
	}
	for addr := range ch.Searches {
		if err := w.search(ctx, s.Searches[addr], addr); err != nil {
			return fmt.Errorf("search %s: %w", addr, err)
		}
	}
	for addr := range ch.Profiles {
		if err := w.profileRead(ctx, s.Profiles[addr], addr); err != nil {
			return fmt.Errorf("profile %s: %w", addr, err)
		}
	}
	for addr := range ch.Failures {
		if err := w.failure(ctx, s.Failures[addr], addr); err != nil {
			return fmt.Errorf("failure %s: %w", addr, err)
		}
	}
	if ch.Usage {
		u, err := json.Marshal(&s.Usage)
		if err != nil {
			return err
		}
		if _, err := w.exec(ctx, UpdateUsage, w.WS, string(u)); err != nil {
			return err
		}
	}
	return nil
}

// person writes p's row (deletes it when p is nil), its enrichment, and
// the last history entries (n of them; -1 all, again).
func (w *Writer) person(ctx context.Context, p *state.Person, id string, history int) error {
	if p == nil {
		for _, q := range []string{DeleteHistory, DeleteEnrichment, DeletePerson} {
			if _, err := w.exec(ctx, q, w.WS, id); err != nil {
				return err
			}
		}
		return nil
	}
	nums, err := w.numbersFor(ctx, AddressesOf(p))
	if err != nil {
		return err
	}
	v, err := PersonValues(w.D, w.WS, p, nums)
	if err != nil {
		return err
	}
	if _, err := w.exec(ctx, UpsertSQL("people", PeopleCols), v...); err != nil {
		return err
	}
	if history != 0 {
		if err := w.history(ctx, p, history, nums); err != nil {
			return err
		}
	}
	if p.Enrichment == nil {
		_, err := w.exec(ctx, DeleteEnrichment, w.WS, id)
		return err
	}
	if v, err = EnrichmentValues(w.D, w.WS, id, p.Enrichment, nums); err != nil {
		return err
	}
	_, err = w.exec(ctx, UpsertSQL("enrichments", EnrichmentCols), v...)
	return err
}

// history writes the n entries at the end of p's history, or, for n < 0,
// the whole history again; nums number their addresses.
func (w *Writer) history(ctx context.Context, p *state.Person, n int, nums *Numbers) error {
	from := len(p.History) - n
	if n < 0 {
		if _, err := w.exec(ctx, DeleteHistory, w.WS, p.ID); err != nil {
			return err
		}
		from = 0
	}
	return w.insertHistory(ctx, p, from, nums)
}

// insertHistory inserts the entries of p's history from the n-th on.
func (w *Writer) insertHistory(ctx context.Context, p *state.Person, from int, nums *Numbers) error {
	for i := max(0, from); i < len(p.History); i++ {
		v, err := HistoryValues(w.D, w.WS, p.ID, i, &p.History[i], nums)
		if err != nil {
			return err
		}
		if _, err := w.exec(ctx, InsertHistory, v...); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) search(ctx context.Context, sr *state.Search, addr string) error {
	if sr == nil {
		_, err := w.exec(ctx, DeleteSearch, w.WS, addr)
		return err
	}
	v, err := SearchValues(w.D, w.WS, sr)
	if err != nil {
		return err
	}
	_, err = w.exec(ctx, UpsertSQL("searches", SearchCols), v...)
	return err
}

func (w *Writer) profileRead(ctx context.Context, pr *state.ProfileRead, addr string) error {
	if pr == nil {
		_, err := w.exec(ctx, DeleteProfileRead, w.WS, addr)
		return err
	}
	v, err := ProfileReadValues(w.D, w.WS, pr)
	if err != nil {
		return err
	}
	_, err = w.exec(ctx, UpsertSQL("profile_reads", ProfileReadCols), v...)
	return err
}

func (w *Writer) failure(ctx context.Context, f *state.Failure, addr string) error {
	if f == nil {
		_, err := w.exec(ctx, DeleteFailure, w.WS, addr)
		return err
	}
	v, err := FailureValues(w.D, w.WS, addr, f)
	if err != nil {
		return err
	}
	_, err = w.exec(ctx, UpsertSQL("failures", FailureCols), v...)
	return err
}

// Replace makes s the workspace's whole state: every row of the
// workspace is deleted (resetWorkspace), then s written row by row (in
// key order, so that the file is written in order), with s.Serial as the
// serial.
func (w *Writer) Replace(ctx context.Context, s *state.State, created any) error {
	if err := s.CheckWhole(); err != nil {
		return err
	}
	if err := w.resetWorkspace(ctx, s, created); err != nil {
		return err
	}
	ch := &state.Changes{People: keySet(s.People), Searches: keySet(s.Searches), Profiles: keySet(s.Profiles), Failures: keySet(s.Failures),
		History: map[string]int{}, Usage: true}
	for _, id := range sortedKeys(s.People) {
		p := s.People[id]
		if err := w.person(ctx, p, id, len(p.History)); err != nil {
			return fmt.Errorf("person %s: %w", id, err)
		}
	}
	ch.People = nil
	if err := w.changes(ctx, s, ch); err != nil {
		return err
	}
	if err := w.meta(ctx, s); err != nil {
		return err
	}
	_, err := w.exec(ctx, SetSerial, w.WS, int64(s.Serial))
	return err
}

func keySet[V any](m map[string]V) map[string]struct{} {
	out := make(map[string]struct{}, len(m))
	for k := range m {
		out[k] = struct{}{}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
