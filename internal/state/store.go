package state

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
	"unsafe"

	"github.com/leadsync/leadsync/internal/version"
)

// Store reads and writes one state file and the journal and lock next to
// it: <path>, <path>.journal, <path>.lock and <path>.backup.
type Store struct {
	path string

	// Now is the clock used for lock times and ages; time.Now when nil.
	Now func() time.Time
	// WrapWrite, when set, wraps every writer of a state or journal file
	// (name is the final path). Tests use it to simulate a full disk.
	WrapWrite func(name string, w io.Writer) io.Writer

	// Host, User and Alive identify lock holders; defaults use the OS.
	Host  func() string
	User  func() string
	Alive func(pid int) bool
	// PID is this process's ID as written into locks; os.Getpid() when 0.
	PID int

	mu      sync.Mutex
	journal *Journal // the open journal, if any
}

// NewStore returns the store of the state file at path, e.g.
// <dir>/.leadsync/state.json. Nothing is read or written yet.
func NewStore(path string) *Store {
	return &Store{path: filepath.Clean(path)}
}

// Path is the state file's path.
func (st *Store) Path() string { return st.path }

// JournalPath is the journal's path.
func (st *Store) JournalPath() string { return st.path + ".journal" }

// LockPath is the lock file's path.
func (st *Store) LockPath() string { return st.path + ".lock" }

// BackupPath is where the state before the last write is kept.
func (st *Store) BackupPath() string { return st.path + ".backup" }

func (st *Store) now() time.Time {
	if st.Now != nil {
		return st.Now()
	}
	return time.Now()
}

// Exists reports whether the state file exists.
func (st *Store) Exists() bool {
	_, err := os.Stat(st.path)
	return err == nil
}

// Load reads the state, replaying the journal an interrupted apply left
// behind. A missing file gives New() (and nothing is written). A file of a
// newer format gives *NewerFormatError, a damaged one *CorruptError, a
// journal that cannot be replayed *JournalError; none of them is changed.
func (st *Store) Load() (*State, error) {
	b, err := os.ReadFile(st.path)
	var s *State
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s = New()
	case err != nil:
		return nil, fmt.Errorf("cannot read state %s: %w", st.path, unwrapPathErr(err))
	default:
		// b is ours alone: let the state's strings share it instead of copying.
		if s, err = decode(st.path, b, unsafe.String(unsafe.SliceData(b), len(b))); err != nil {
			return nil, err
		}
	}
	if err := st.replay(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Decode parses the bytes of a state file; path is used in errors only.
func Decode(path string, b []byte) (*State, error) {
	return decode(path, b, string(b))
}

func decode(path string, b []byte, src string) (*State, error) {
	s, err := decodeState(src)
	if err == nil && s.FormatVersion > FormatVersion {
		return nil, &NewerFormatError{Path: path, Version: s.FormatVersion, WrittenBy: s.LeadsyncVersion}
	}
	if err != nil {
		ce := &CorruptError{Path: path, Reason: err.Error()}
		var de *decodeError
		if errors.As(err, &de) {
			if de.newer > FormatVersion {
				return nil, &NewerFormatError{Path: path, Version: de.newer, WrittenBy: de.writtenBy}
			}
			ce.Line, ce.Reason = lineOf(b, de.offset), de.Error()
		}
		return nil, ce
	}
	if err := s.check(); err != nil {
		return nil, &CorruptError{Path: path, Reason: err.Error()}
	}
	return s, nil
}

// lineOf returns the 1-based line of byte offset off in b.
func lineOf(b []byte, off int64) int {
	if off < 0 || off > int64(len(b)) {
		return 0
	}
	n := 1
	for _, c := range b[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}

// check validates a decoded state and repairs what is only derived.
func (s *State) check() error {
	switch {
	case s.FormatVersion < 1:
		return fmt.Errorf("format_version is missing or %d: not a leadsync state file", s.FormatVersion)
	case s.Lineage == "":
		return fmt.Errorf("lineage is missing")
	}
	s.normalize()
	for k, v := range s.Searches {
		if v == nil {
			return fmt.Errorf("search %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("search %q has address %q", k, v.Address)
		}
	}
	for k, v := range s.Profiles {
		if v == nil {
			return fmt.Errorf("profile %q is null", k)
		}
		if v.Address == "" {
			v.Address = k
		} else if v.Address != k {
			return fmt.Errorf("profile %q has address %q", k, v.Address)
		}
	}
	for k, v := range s.People {
		if v == nil {
			return fmt.Errorf("person %q is null", k)
		}
		if v.ID == "" {
			v.ID = k
		} else if v.ID != k {
			return fmt.Errorf("person %q has id %q", k, v.ID)
		}
		if !sort.StringsAreSorted(v.FoundBy) {
			// A copy: the loader shares identical lists between people.
			v.FoundBy = append([]string(nil), v.FoundBy...)
			sort.Strings(v.FoundBy)
		}
	}
	for k, v := range s.Failures {
		if v == nil {
			return fmt.Errorf("failure %q is null", k)
		}
	}
	// References must name people the state has: leadsync never writes
	// one that does not, and exporting from such a state would silently
	// drop rows (a hand edit that removed people, say).
	for k, v := range s.Searches {
		for i, id := range v.LeadIDs {
			if _, ok := s.People[id]; !ok {
				return fmt.Errorf("searches.%s.lead_ids[%d]: person %q is not in people (remove it from lead_ids, or restore the person)", k, i, id)
			}
		}
	}
	for k, v := range s.Profiles {
		if v.PersonID == "" {
			continue
		}
		if _, ok := s.People[v.PersonID]; !ok {
			return fmt.Errorf("profiles.%s.person_id: person %q is not in people (remove the profile with leadsync state rm %s to read it again)", k, v.PersonID, k)
		}
	}
	return nil
}

// Save writes s atomically: Serial is raised, the tool's version recorded,
// the whole state written to a temporary file in the same folder, synced,
// made 0600 and renamed over the state file, and the folder synced. The
// state before is kept as <path>.backup. On any error the previous file is
// intact and s keeps its serial.
func (st *Store) Save(s *State) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.save(s)
}

func (st *Store) save(s *State) error {
	s.normalizeMaps()
	prevSerial, prevVersion, prevFormat, prevMark := s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal
	s.Serial++
	s.LeadsyncVersion = version.String()
	s.FormatVersion = FormatVersion
	if j := st.journal; j != nil && j.state == s {
		// Everything appended so far is in s (the caller's contract), so a
		// crash after this write must not replay it again.
		s.Journal = &JournalMark{ID: j.id, Seq: j.Seq()}
	}
	err := st.writeState(s)
	if err != nil {
		s.Serial, s.LeadsyncVersion, s.FormatVersion, s.Journal = prevSerial, prevVersion, prevFormat, prevMark
	}
	return err
}

func (st *Store) writeState(s *State) error {
	dir := filepath.Dir(st.path)
	if err := ensureDir(dir); err != nil {
		return &WriteError{Path: st.path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(st.path)+".tmp-*")
	if err != nil {
		return &WriteError{Path: st.path, Err: err}
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return &WriteError{Path: st.path, Err: err}
	}
	var w io.Writer = tmp
	if st.WrapWrite != nil {
		w = st.WrapWrite(st.path, w)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encodeState(bw, s); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
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
		return &WriteError{Path: st.path, Err: err}
	}
	if err := st.backup(); err != nil {
		os.Remove(tmp.Name())
		return &WriteError{Path: st.BackupPath(), Err: err}
	}
	if err := os.Rename(tmp.Name(), st.path); err != nil {
		os.Remove(tmp.Name())
		return &WriteError{Path: st.path, Err: err}
	}
	if err := syncDir(dir); err != nil {
		return &WriteError{Path: st.path, Err: err}
	}
	return nil
}

// backup keeps the current state file as <path>.backup. A hard link costs
// nothing and the old content survives the rename of the new file over the
// state; a copy is the fallback where links are not supported. The state
// file itself is never absent, even for a moment.
func (st *Store) backup() error {
	if _, err := os.Lstat(st.path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	tmp := st.BackupPath() + ".tmp"
	os.Remove(tmp)
	if err := os.Link(st.path, tmp); err != nil {
		if err := copyFile(st.path, tmp); err != nil {
			os.Remove(tmp)
			return err
		}
	}
	if err := os.Rename(tmp, st.BackupPath()); err != nil {
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

// ensureDir creates the state folder (0700) when missing. A folder named
// .leadsync gets a .gitignore of "*" whenever it has none: state holds
// personal data and must not be committed by accident.
func ensureDir(dir string) error {
	created := false
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		created = true
	} else if err != nil {
		return err
	}
	if created || filepath.Base(dir) == ".leadsync" {
		gi := filepath.Join(dir, ".gitignore")
		if _, err := os.Lstat(gi); errors.Is(err, fs.ErrNotExist) {
			if err := os.WriteFile(gi, []byte("# leadsync state holds personal data: never commit it.\n*\n"), 0o600); err != nil {
				return err
			}
		}
	}
	return nil
}

// syncDir makes a rename or create in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) && !isSyncUnsupported(err) {
		return err
	}
	return nil
}

// Commit saves s with the open journal folded in and then removes the
// journal. A crash between the two leaves a journal the saved state already
// records (State.Journal), so the next Load does not apply it twice.
// Without an open journal, Commit saves s and removes a leftover journal
// that s already contains.
func (st *Store) Commit(s *State) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	j := st.journal
	if j != nil && j.state != s {
		return fmt.Errorf("commit: the journal is open for another state value")
	}
	if err := st.save(s); err != nil {
		return err
	}
	if j != nil {
		j.close()
		st.journal = nil
	}
	return st.removeFoldedJournal(s)
}

// removeFoldedJournal removes the journal file when s contains all of it.
func (st *Store) removeFoldedJournal(s *State) error {
	b, err := os.ReadFile(st.JournalPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read journal %s: %w", st.JournalPath(), err)
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
	if err := os.Remove(st.JournalPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &WriteError{Path: st.JournalPath(), Err: err}
	}
	return syncDir(filepath.Dir(st.path))
}

// encodeState writes s as JSON: top-level fields one per line and each
// search, profile, failure and person on a line of its own, keys sorted, so
// that the file is stable, diffable and quick to write and read.
func encodeState(w *bufio.Writer, s *State) error {
	put := func(b []byte, err error) error {
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	str := func(v string) []byte { b, _ := json.Marshal(v); return b }
	fmt.Fprintf(w, "{\n  \"format_version\": %d,\n  \"lineage\": %s,\n  \"serial\": %d,\n  \"leadsync_version\": %s,\n",
		s.FormatVersion, str(s.Lineage), s.Serial, str(s.LeadsyncVersion))
	if s.Journal != nil {
		w.WriteString("  \"journal\": ")
		if err := put(marshal(s.Journal)); err != nil {
			return err
		}
		w.WriteString(",\n")
	}
	w.WriteString("  \"usage\": ")
	if err := put(marshal(&s.Usage)); err != nil {
		return err
	}
	w.WriteString(",\n")
	if err := writeMapWith(w, "searches", s.Searches, false, appendSearch); err != nil {
		return err
	}
	if err := writeMap(w, "profiles", s.Profiles, false); err != nil {
		return err
	}
	if err := writeMap(w, "failures", s.Failures, false); err != nil {
		return err
	}
	if len(s.UnknownEnrichments) > 0 {
		if err := writeMap(w, "unknown_enrichments", s.UnknownEnrichments, false); err != nil {
			return err
		}
	}
	if err := writePeople(w, s.People); err != nil {
		return err
	}
	_, err := w.WriteString("}\n")
	return err
}

func writeMap[T any](w *bufio.Writer, name string, m map[string]*T, last bool) error {
	return writeMapWith(w, name, m, last, func(b []byte, v *T) ([]byte, error) {
		vb, err := marshal(v)
		return append(b, vb...), err
	})
}

// writeMapWith writes one map, one entry per line, keys sorted; enc appends
// the JSON of a value.
func writeMapWith[T any](w *bufio.Writer, name string, m map[string]*T, last bool, enc func([]byte, *T) ([]byte, error)) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "  %q: {", name)
	var b []byte
	for i, k := range keys {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n    "...)
		b = appendStr(b, k)
		b = append(b, ": "...)
		var err error
		if m[k] == nil {
			b = append(b, "null"...)
		} else if b, err = enc(b, m[k]); err != nil {
			return fmt.Errorf("%s %q: %w", name, k, err)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	if len(keys) > 0 {
		w.WriteString("\n  ")
	}
	if last {
		_, err := w.WriteString("}\n")
		return err
	}
	_, err := w.WriteString("},\n")
	return err
}

// marshal is json.Marshal without HTML escaping (names like "A & B" stay
// readable) and without the trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytesBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := buf.b
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	return b, nil
}

type bytesBuffer struct{ b []byte }

func (b *bytesBuffer) Write(p []byte) (int, error) { b.b = append(b.b, p...); return len(p), nil }
