package local

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/statefile"
	"github.com/leadsync/leadsync/internal/version"
)

// Store reads and writes one state file and the journal and lock next to
// it: <path>, <path>.journal, <path>.lock and <path>.backup.
type Store struct {
	path string

	// Now is the clock used for lock times and ages; time.Now when nil.
	Now func() time.Time
	// WrapWrite, when set, wraps every writer of a state, journal or lock file
	// (name is the final path). Tests use it to simulate a full disk.
	WrapWrite func(name string, w io.Writer) io.Writer

	// Host and User identify lock holders; defaults use the OS.
	Host func() string
	User func() string
	// PID is this process's ID as written into locks; os.Getpid() when 0.
	PID int
	// Notify, when set, receives one-line notes for the user: the lock of
	// a run that died was taken over.
	Notify func(note string)

	mu      sync.Mutex
	journal *Journal // the open journal, if any
	// replayed is how many of its journal's events the last Load of a
	// JSON state applied (UnfoldedCalls).
	replayed int

	// db keeps the state of a path ending in .db in a SQLite database
	// (sqlite.go); nil for a JSON state file.
	db *dbStore
}

// NewStore returns the store of the state file at path, e.g.
// <dir>/.leadsync/state.json. Nothing is read or written yet.
func NewStore(path string) *Store {
	store := &Store{path: filepath.Clean(path)}
	if IsDatabase(store.path) {
		store.db = newDBStore(store.path, store.now)
	}
	return store
}

// BacksUpEachWrite reports whether each write keeps the state before as
// the backup: the JSON state file's do; the database's do not (its
// transactions are atomic; a push --force keeps one).
func (store *Store) BacksUpEachWrite() bool { return store.db == nil }

// Close lets go of what the store holds open (its database).
func (store *Store) Close() error {
	if store.db != nil {
		return store.db.close()
	}
	return nil
}

// Path is the state file's path.
func (store *Store) Path() string { return store.path }

// JournalPath is the journal's path.
func (store *Store) JournalPath() string { return store.path + ".journal" }

// LockPath is the lock file's path.
func (store *Store) LockPath() string { return store.path + ".lock" }

// BackupPath is where the state before the last write is kept (for a
// database, the state before the last push --force: a database keeps no
// copy of each write, its transactions are atomic).
func (store *Store) BackupPath() string { return store.path + ".backup" }

func (store *Store) now() time.Time {
	if store.Now != nil {
		return store.Now()
	}
	return time.Now()
}

// Exists reports whether the state file exists.
func (store *Store) Exists() bool {
	_, err := os.Stat(store.path)
	return err == nil
}

// Load reads the state, replaying the journal an interrupted apply left
// behind. A missing file gives New() (and nothing is written). A file of a
// newer format gives *NewerFormatError, a damaged one *CorruptError, a
// journal that cannot be replayed *JournalError; none of them is changed.
func (store *Store) Load() (*state.State, error) {
	if store.db != nil {
		if err := store.migrate(); err != nil {
			return nil, err
		}
		return store.db.load()
	}
	s, err := store.read()
	if err != nil {
		var ce *statefile.CorruptError
		if errors.As(err, &ce) {
			ce.Backup = store.backupSummary()
		}
		return nil, err
	}
	if err := store.replay(s); err != nil {
		return nil, err
	}
	return s, nil
}

// read decodes the state file, New() when there is none. The file is
// decoded as it is read (statefile.DecodeReaderAt): a large state is
// never held whole in memory beside what it decodes to.
func (store *Store) read() (*state.State, error) {
	f, err := os.Open(store.path)
	if errors.Is(err, fs.ErrNotExist) {
		return state.New(), nil
	}
	cannot := func(err error) error {
		return fmt.Errorf("cannot read state %s: %w", store.path, safefile.UnwrapPathErr(err))
	}
	if err != nil {
		return nil, cannot(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, cannot(err)
	case fi.IsDir():
		return nil, cannot(syscall.EISDIR)
	}
	s, err := statefile.DecodeReaderAt(store.path, f, fi.Size())
	var ce *statefile.CorruptError
	var ne *statefile.NewerFormatError
	if err != nil && !errors.As(err, &ce) && !errors.As(err, &ne) {
		return nil, cannot(err)
	}
	return s, err
}

// Save writes s atomically: Serial is raised, the tool's version recorded,
// the whole state written to a temporary file in the same folder, synced,
// made 0600 and renamed over the state file, and the folder synced. The
// state before is kept as <path>.backup. On any error the previous file is
// intact and s keeps its serial.
func (store *Store) Save(s *state.State) error {
	if store.db != nil {
		return store.db.save(s)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	return store.save(s)
}

func (store *Store) save(s *state.State) error {
	if err := s.CheckWhole(); err != nil {
		return err
	}
	s.Normalize()
	prevSerial, prevVersion, prevFormat, prevMark := s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal
	s.Serial++
	s.LeadsyncVersion = version.String()
	s.FormatVersion = state.FormatVersion
	if j := store.journal; j != nil && j.state == s {
		// Everything appended so far is in s (the caller's contract), so a
		// crash after this write must not replay it again.
		s.Journal = &state.JournalMark{ID: j.id, Seq: j.Seq()}
	}
	err := store.writeState(s)
	if err != nil {
		s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal = prevSerial, prevVersion, prevFormat, prevMark
	}
	return err
}

func (store *Store) writeState(s *state.State) error {
	dir := filepath.Dir(store.path)
	if err := safefile.EnsureDir(dir); err != nil {
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(store.path)+".tmp-*")
	if err != nil {
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	var w io.Writer = tmp
	if store.WrapWrite != nil {
		w = store.WrapWrite(store.path, w)
	}
	if err := statefile.Encode(w, s); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(0o600); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	// A write that erases people (forget, retention) keeps no backup: the
	// state before still holds them. The backup goes before the rename,
	// so that no moment has the new state beside a backup naming them.
	erased := s.PeopleErased()
	keep := store.backup
	if erased {
		keep = store.dropBackup
	}
	if err := keep(); err != nil {
		os.Remove(tmp.Name())
		return &safefile.WriteError{Path: store.BackupPath(), Err: err}
	}
	if err := os.Rename(tmp.Name(), store.path); err != nil {
		os.Remove(tmp.Name())
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	if err := safefile.SyncDir(dir); err != nil {
		return &safefile.WriteError{Path: store.path, Err: err}
	}
	if erased {
		s.ErasureWritten()
	}
	return nil
}

// RemoveBackup removes <path>.backup, the state before the last write:
// after an erasure it still holds the person erased. No backup is no error.
func (store *Store) RemoveBackup() error {
	if store.db != nil {
		return store.removeMigrated()
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	if err := store.dropBackup(); err != nil {
		return err
	}
	return safefile.SyncDir(filepath.Dir(store.path))
}

// dropBackup removes <path>.backup (and a copy of it left half made);
// no backup is no error.
func (store *Store) dropBackup() error {
	for _, p := range []string{store.BackupPath() + ".tmp", store.BackupPath()} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// backup keeps the current state file as <path>.backup. A hard link costs
// nothing and the old content survives the rename of the new file over the
// state; a copy is the fallback where links are not supported. The state
// file itself is never absent, even for a moment.
func (store *Store) backup() error {
	if _, err := os.Lstat(store.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp := store.BackupPath() + ".tmp"
	os.Remove(tmp)
	if err := os.Link(store.path, tmp); err != nil {
		if err := copyFile(store.path, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, store.BackupPath()); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// Commit saves s with the open journal folded in and then removes the
// journal. A crash between the two leaves a journal the saved state already
// records (State.Journal), so the next Load does not apply it twice.
// Without an open journal, Commit saves s and removes a leftover journal
// that s already contains.
func (store *Store) Commit(s *state.State) error {
	if store.db != nil {
		return store.db.commit(s)
	}
	store.mu.Lock()
	defer store.mu.Unlock()
	j := store.journal
	if j != nil && j.state != s {
		return fmt.Errorf("commit: the journal is open for another state value")
	}
	if err := store.save(s); err != nil {
		return err
	}
	if j != nil {
		j.close()
		store.journal = nil
	}
	return store.removeFoldedJournal(s)
}

// removeFoldedJournal removes the journal file when s contains all of it.
func (store *Store) removeFoldedJournal(s *state.State) error {
	b, err := os.ReadFile(store.JournalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read journal %s: %w", store.JournalPath(), err)
	}
	jr, err := parseJournal(b)
	if err != nil {
		return nil // keep a damaged journal for the user to look at
	}
	if jr.header != nil && len(jr.events) > 0 {
		last := jr.events[len(jr.events)-1].Seq
		if s.Journal == nil || s.Journal.ID != jr.header.ID || s.Journal.Seq < last {
			return nil // holds calls s does not have: never throw them away
		}
	}
	if err := os.Remove(store.JournalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &safefile.WriteError{Path: store.JournalPath(), Err: err}
	}
	return safefile.SyncDir(filepath.Dir(store.path))
}

// ReadsPeopleOnRequest reports whether the store's Base reads its people
// on request (backend.PartReader): a database's does, a state file is
// read whole.
func (store *Store) ReadsPeopleOnRequest() bool { return store.db != nil }

// ReadWorkspaceRow reads the workspace's row alone, its service and
// configuration (backend.WorkspaceRowReader): nil for a state file, or a
// database not written yet.
func (store *Store) ReadWorkspaceRow() (*state.State, error) {
	if store.db == nil {
		return nil, nil
	}
	if err := store.migrate(); err != nil {
		return nil, err
	}
	return store.db.readWorkspaceRow()
}

// OpenBase opens the state for a command that asks for what it needs
// (state.Base): a database's people are read on request, a state file is
// read whole.
func (store *Store) OpenBase() (*state.Base, error) {
	if store.db == nil {
		s, err := store.Load()
		if err != nil {
			return nil, err
		}
		return state.NewBase(s), nil
	}
	if err := store.migrate(); err != nil {
		return nil, err
	}
	return store.db.openBase()
}
