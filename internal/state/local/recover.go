package local

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// backupSummary says what the backup next to the state holds, for the
// message of a damaged state: restoring a backup without the paid results
// (the empty state from before the first apply) would plan every call
// again, so the message must say so rather than point at it blindly.
func (store *Store) backupSummary() string {
	b, err := os.ReadFile(store.BackupPath())
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("There is no backup (%s); fix the file by hand at the place named", store.BackupPath())
	}
	if err != nil {
		return fmt.Sprintf("The backup %s cannot be read (%v); fix the file by hand at the place named", store.BackupPath(), safefile.UnwrapPathErr(err))
	}
	s, err := statefile.Decode(store.BackupPath(), b)
	if err != nil {
		return fmt.Sprintf("The backup %s is damaged too; fix the file by hand at the place named", store.BackupPath())
	}
	enriched := 0
	for _, p := range s.People {
		if p.Enrichment != nil {
			enriched++
		}
	}
	if s.IsEmpty() {
		return fmt.Sprintf("The backup %s holds no results (it is the state from before the first apply): restoring it would make, and pay for, every call again; fix the file by hand at the place named instead", store.BackupPath())
	}
	return fmt.Sprintf("The backup %s (the state before the last write, serial %d) holds %d searches, %d profile reads and %d people (%d enriched): "+
		"restore it with  cp %s %s  (calls made since then are made again), or fix the file by hand at the place named",
		store.BackupPath(), s.Serial, len(s.Searches), len(s.Profiles), len(s.People), enriched, store.BackupPath(), store.path)
}

// RecoverJournal folds the valid events of a journal damaged in the middle
// into the state: every line before the first damaged one (each line is
// checksummed, and events are sequential) is a call that completed and was
// paid for, so it is kept. After the damage, each line carries its own
// checksum: a line whose checksum is right, which reads as an event and
// whose seq follows the last one kept is a paid call too, and is kept; the
// others are left out. An event applies on its own (a search result, an
// enrichment, a sub-search: a split run missing the damaged sub-search
// stays under way and runs it again), so a lost line costs only its own
// call. The state is saved first, then the journal is moved aside (never
// deleted) to <journal>.damaged-<time>. The IDs of the state file's
// records that name nobody are repaired as it is read (Repaired), and the
// state saved for them alone when there is no journal. The caller holds
// the lock. A state file that cannot be read otherwise is an error:
// restore it first. Nil for a state database: it has no journal file.
func (store *Store) RecoverJournal(now time.Time) (*backend.RecoverResult, error) {
	if store.db != nil {
		// Each call is a transaction of the database: there is no journal
		// file to damage.
		return nil, nil
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.journal != nil {
		return nil, fmt.Errorf("a journal is open for %s", store.path)
	}
	s, repaired, err := store.readRepairingNobody()
	if err != nil {
		return nil, err
	}
	path := store.JournalPath()
	jb, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		res := &backend.RecoverResult{Repaired: repaired}
		if !repaired.Any() {
			return res, nil // a healthy state is not written
		}
		if err := store.save(s); err != nil {
			return nil, err
		}
		res.Serial = s.Serial
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read journal %s: %w", path, safefile.UnwrapPathErr(err))
	}
	jr, res := readRecoverable(jb)
	res.Repaired = repaired
	if err := store.foldRecovered(s, jr, res); err != nil {
		return nil, err
	}
	if err := store.save(s); err != nil {
		return nil, err
	}
	res.Serial = s.Serial
	res.MovedTo = path + ".damaged-" + now.UTC().Format("20060102T150405Z")
	if err := os.Rename(path, res.MovedTo); err != nil {
		return nil, &safefile.WriteError{Path: path, Err: err}
	}
	safefile.SyncDir(filepath.Dir(store.path))
	return res, nil
}

// readRepairingNobody reads the state file for state recover: New()
// when there is none, and the IDs of its records that name nobody
// repaired (statefile.DecodeRepairingNobody) and counted. A damaged file
// is a *statefile.CorruptError that says what its backup holds.
func (store *Store) readRepairingNobody() (*state.State, state.Repairs, error) {
	b, err := os.ReadFile(store.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return state.New(), state.Repairs{}, nil
	case err != nil:
		return nil, state.Repairs{}, fmt.Errorf("cannot read state %s: %w", store.path, safefile.UnwrapPathErr(err))
	}
	s, repaired, err := statefile.DecodeRepairingNobody(store.path, b)
	var ce *statefile.CorruptError
	if errors.As(err, &ce) {
		ce.Backup = store.backupSummary()
	}
	return s, repaired, err
}

// readRecoverable reads a damaged journal: every line up to the first
// damaged one, then each later line that stands on its own (its checksum
// right, an event numbered after the last one kept). A torn last line
// never counted as done.
func readRecoverable(jb []byte) (*journalRead, *backend.RecoverResult) {
	res := &backend.RecoverResult{}
	jr := &journalRead{}
	off, n := 0, 0
	for off < len(jb) {
		n++
		nl := bytes.IndexByte(jb[off:], '\n')
		if nl < 0 {
			break // a torn last line: never counted as done
		}
		if err := jr.take(jb[off : off+nl]); err != nil {
			res.DamagedLine, res.Reason = n, err.Error()
			res.DroppedLines = bytes.Count(jb[off:], []byte("\n"))
			off += nl + 1
			break
		}
		off += nl + 1
	}
	if res.DamagedLine == 0 || jr.header == nil {
		return jr, res
	}
	last := uint64(len(jr.events))
	for off < len(jb) {
		nl := bytes.IndexByte(jb[off:], '\n')
		if nl < 0 {
			break // a torn last line
		}
		if e, ok := eventLine(jb[off : off+nl]); ok && e.Seq > last {
			jr.events = append(jr.events, e)
			last = e.Seq
			res.KeptAfter++
			res.DroppedLines--
		}
		off += nl + 1
	}
	return jr, res
}

// foldRecovered folds the events of jr that s does not hold yet into s,
// counting them in res; an event that cannot be folded ends the
// recovery there (and is the damage, when none was found before).
func (store *Store) foldRecovered(s *state.State, jr *journalRead, res *backend.RecoverResult) error {
	if jr.header == nil || len(jr.events) == 0 {
		return nil
	}
	if jr.header.Lineage != s.Lineage && store.Exists() {
		return &JournalError{Path: store.JournalPath(), Reason: fmt.Sprintf("it extends the state with lineage %s, but %s has lineage %s", jr.header.Lineage, store.path, s.Lineage)}
	}
	if !store.Exists() {
		s.Lineage = jr.header.Lineage
	}
	skip := uint64(0)
	if s.Journal != nil && s.Journal.ID == jr.header.ID {
		skip = s.Journal.Seq
	}
	last := skip
	for _, e := range jr.events {
		if e.Seq <= skip {
			continue
		}
		if err := s.Fold(e); err != nil {
			if res.DamagedLine == 0 {
				res.DamagedLine, res.Reason = int(e.Seq)+1, err.Error()
			}
			break
		}
		last = e.Seq
		res.Kept++
	}
	s.Journal = &state.JournalMark{ID: jr.header.ID, Seq: last}
	return nil
}

// eventLine reads one journal line on its own: its checksum right, an
// event that validates, with a seq.
func eventLine(line []byte) (state.Event, bool) {
	b, err := unframe(line)
	if err != nil {
		return state.Event{}, false
	}
	var e state.Event
	if json.Unmarshal(b, &e) != nil || e.Seq == 0 || e.Validate() != nil {
		return state.Event{}, false
	}
	return e, true
}
