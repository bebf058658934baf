package local

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// The journal is a text file of lines "<crc> <json>\n": crc is the CRC-32C
// of the JSON in 8 hex digits, so that a line torn by a crash is recognised.
// The first line is a header naming the journal and the state it extends;
// every other line is one Event, with Seq 1, 2, 3, ...
//
// journalVersion is the version of this layout.
const journalVersion = 1

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// journalHeader is the first line of a journal.
type journalHeader struct {
	Version    int       `json:"leadsync_journal"`
	ID         string    `json:"id"`
	Lineage    string    `json:"lineage"`
	BaseSerial uint64    `json:"base_serial"`
	Created    time.Time `json:"created"`
}

// frame turns JSON into one journal line.
func frame(b []byte) []byte {
	line := make([]byte, 0, len(b)+10)
	line = fmt.Appendf(line, "%08x ", crc32.Checksum(b, crcTable))
	line = append(line, b...)
	return append(line, '\n')
}

// unframe checks one line (without its newline) and returns its JSON.
func unframe(line []byte) ([]byte, error) {
	if len(line) < 10 || line[8] != ' ' {
		return nil, errors.New("not a journal line")
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], line[:8]); err != nil {
		return nil, errors.New("not a journal line")
	}
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	b := line[9:]
	if crc32.Checksum(b, crcTable) != want {
		return nil, errors.New("checksum mismatch")
	}
	return b, nil
}

// journalRead is what a journal holds.
type journalRead struct {
	header *journalHeader // nil for an empty journal or a torn header
	events []state.Event
	good   int  // length of the intact prefix
	torn   bool // the last line was incomplete or damaged and is ignored
}

// journalLineError is a damaged line before the end of a journal.
type journalLineError struct {
	line int
	msg  string
}

func (e *journalLineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// parseJournal reads a journal. A damaged or incomplete last line is what a
// crash in the middle of an append leaves: it is ignored (that call never
// counted as done). Damage anywhere else is an error.
func parseJournal(b []byte) (*journalRead, error) {
	jr := &journalRead{}
	off, n := 0, 0
	for off < len(b) {
		n++
		nl := bytes.IndexByte(b[off:], '\n')
		if nl < 0 {
			jr.torn = true
			break
		}
		line := b[off : off+nl]
		last := len(bytes.TrimSpace(b[off+nl+1:])) == 0
		err := jr.take(line)
		if err != nil {
			var fatal *fatalLine
			if last && !errors.As(err, &fatal) {
				jr.torn = true
				break
			}
			return nil, &journalLineError{line: n, msg: err.Error()}
		}
		off += nl + 1
		jr.good = off
	}
	return jr, nil
}

// fatalLine marks a line that was written whole (its checksum is right) but
// cannot be used: an error even at the end of the journal.
type fatalLine struct{ msg string }

func (e *fatalLine) Error() string { return e.msg }

// take parses one line into the header or the next event.
func (jr *journalRead) take(line []byte) error {
	b, err := unframe(line)
	if err != nil {
		return err
	}
	if jr.header == nil {
		var h journalHeader
		if err := json.Unmarshal(b, &h); err != nil || h.Version == 0 || h.ID == "" {
			return &fatalLine{"the first line is not a leadsync journal header"}
		}
		if h.Version > journalVersion {
			return &fatalLine{fmt.Sprintf("journal version %d is newer than this leadsync reads (%d); upgrade leadsync", h.Version, journalVersion)}
		}
		jr.header = &h
		return nil
	}
	var e state.Event
	if err := json.Unmarshal(b, &e); err != nil {
		return &fatalLine{"not an event: " + err.Error()}
	}
	if err := e.Validate(); err != nil {
		return &fatalLine{err.Error()}
	}
	want := uint64(len(jr.events)) + 1
	if e.Seq != want {
		return &fatalLine{fmt.Sprintf("event seq %d where %d was expected", e.Seq, want)}
	}
	jr.events = append(jr.events, e)
	return nil
}

// replay folds the journal next to the state, if any, into s. Events the
// state already holds (State.Journal) are skipped.
func (store *Store) replay(s *state.State) error {
	store.setReplayed(0)
	path := store.JournalPath()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read journal %s: %w", path, safefile.UnwrapPathErr(err))
	}
	jr, err := parseJournal(b)
	if err != nil {
		je := &JournalError{Path: path, Reason: err.Error()}
		var le *journalLineError
		if errors.As(err, &le) {
			je.Line, je.Reason = le.line, le.msg
		}
		return je
	}
	if jr.header == nil || len(jr.events) == 0 {
		return nil
	}
	if jr.header.Lineage != s.Lineage {
		reason := fmt.Sprintf("it extends the state with lineage %s, but %s has lineage %s", jr.header.Lineage, store.path, s.Lineage)
		if !store.Exists() {
			reason = fmt.Sprintf("it extends the state with lineage %s, but the state file %s is missing (restore it from %s)", jr.header.Lineage, store.path, store.BackupPath())
		}
		return &JournalError{Path: path, Reason: reason}
	}
	skip := uint64(0)
	if s.Journal != nil && s.Journal.ID == jr.header.ID {
		skip = s.Journal.Seq
	}
	last := skip
	for i := range jr.events {
		e := jr.events[i]
		if e.Seq <= skip {
			continue
		}
		if err := s.Fold(e); err != nil {
			return &JournalError{Path: path, Line: int(e.Seq) + 1, Reason: err.Error()}
		}
		last = e.Seq
	}
	s.Journal = &state.JournalMark{ID: jr.header.ID, Seq: last}
	store.setReplayed(int(last - skip))
	return nil
}

// setReplayed notes how many journal events the last Load applied.
func (store *Store) setReplayed(n int) {
	store.mu.Lock()
	defer store.mu.Unlock()
	store.replayed = n
}

// Journal records the calls of one apply as they complete. Append is safe
// for concurrent use.
type Journal struct {
	mu     sync.Mutex
	store  *Store
	state  *state.State
	f      *os.File
	w      io.Writer
	path   string
	id     string
	seq    uint64
	size   int64
	broken error
	closed bool
}

// OpenJournal starts a journal for the apply that will change s (which
// must come from Load of this store; the caller holds the lock). A journal
// left by an interrupted run, which Load has replayed into s, is first
// folded into the state file. The state file is written first if it does
// not exist yet, so that the journal always extends a state on disk.
func (store *Store) OpenJournal(s *state.State) (*Journal, error) {
	if store.db != nil {
		return nil, fmt.Errorf("%s is a database: it records calls through AsBackend().OpenJournal, not in a journal file", store.path)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if store.journal != nil {
		return nil, fmt.Errorf("a journal is already open for %s", store.path)
	}
	path := store.JournalPath()
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		jr, err := parseJournal(b)
		if err != nil {
			return nil, &JournalError{Path: path, Reason: err.Error()}
		}
		if jr.header != nil && len(jr.events) > 0 {
			last := jr.events[len(jr.events)-1].Seq
			if s.Journal == nil || s.Journal.ID != jr.header.ID || s.Journal.Seq < last {
				return nil, fmt.Errorf("journal %s holds calls this state does not include; load the state again", path)
			}
		}
		if err := store.save(s); err != nil {
			return nil, err
		}
		if err := os.Remove(path); err != nil {
			return nil, &safefile.WriteError{Path: path, Err: err}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("cannot read journal %s: %w", path, safefile.UnwrapPathErr(err))
	default:
		if !store.Exists() {
			if err := store.save(s); err != nil {
				return nil, err
			}
		}
	}

	h := journalHeader{Version: journalVersion, ID: state.NewUUID(), Lineage: s.Lineage, BaseSerial: s.Serial, Created: store.now().UTC()}
	hb, err := statefile.Marshal(h)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, &safefile.WriteError{Path: path, Err: err}
	}
	j := &Journal{store: store, state: s, f: f, w: f, path: path, id: h.ID}
	if store.WrapWrite != nil {
		j.w = store.WrapWrite(path, f)
	}
	line := frame(hb)
	// err is assigned, not declared: a failed write (disk full) must reach
	// the check below rather than die in an inner scope.
	if _, err = j.w.Write(line); err == nil {
		err = f.Sync()
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, &safefile.WriteError{Path: path, Err: err}
	}
	j.size = int64(len(line))
	if err := safefile.SyncDir(filepath.Dir(path)); err != nil {
		f.Close()
		os.Remove(path)
		return nil, &safefile.WriteError{Path: path, Err: err}
	}
	s.Journal = &state.JournalMark{ID: j.id}
	store.journal = j
	return j, nil
}

// ID is the journal's ID, recorded in the state that folds it in.
func (j *Journal) ID() string { return j.id }

// Seq is the Seq of the last event appended.
func (j *Journal) Seq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.seq
}

// Append writes e (giving it the next Seq) as one line and syncs it to disk
// before returning: once Append returns nil, the call counts as done and
// survives a crash. It costs the same however long the journal is. An
// invalid event is refused before anything is written. The caller folds
// e into the state (before the next Save or Commit); Record does both.
func (j *Journal) Append(e *state.Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.append(e)
}

func (j *Journal) append(e *state.Event) error {
	if j.closed {
		return fmt.Errorf("journal %s is closed", j.path)
	}
	if j.broken != nil {
		return j.broken
	}
	if err := e.Validate(); err != nil {
		return err
	}
	e.Seq = j.seq + 1
	b, err := statefile.Marshal(e)
	if err != nil {
		e.Seq = 0
		return fmt.Errorf("journal: %w", err)
	}
	line := frame(b)
	_, err = j.w.Write(line)
	if err == nil {
		err = j.f.Sync()
	}
	if err != nil {
		e.Seq = 0
		// Cut off a partial line so that later appends stay readable.
		if terr := j.f.Truncate(j.size); terr != nil {
			j.broken = &safefile.WriteError{Path: j.path, Err: fmt.Errorf("%v, and the partial line could not be removed: %v", safefile.UnwrapPathErr(err), terr)}
			return j.broken
		}
		return &safefile.WriteError{Path: j.path, Err: err}
	}
	j.seq++
	j.size += int64(len(line))
	return nil
}

// Record appends e and folds it into the journal's state, in that order,
// under one lock: the state never holds a call the journal could lose.
func (j *Journal) Record(e *state.Event) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if err := j.append(e); err != nil {
		return err
	}
	if err := j.state.Fold(*e); err != nil {
		return err
	}
	j.state.Journal = &state.JournalMark{ID: j.id, Seq: j.seq}
	return nil
}

// Close stops the journal without removing it (Commit folds it in and
// removes it). Every appended event must have been folded into the state.
func (j *Journal) Close() error {
	j.store.mu.Lock()
	defer j.store.mu.Unlock()
	if j.store.journal == j {
		j.store.journal = nil
	}
	return j.close()
}

func (j *Journal) close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	j.state.Journal = &state.JournalMark{ID: j.id, Seq: j.seq}
	return j.f.Close()
}
