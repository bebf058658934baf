package rescue

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
)

// Version is the version of the file's layout, in its header.
const Version = 1

// ext ends the name of every rescue file.
const ext = ".rescue"

// Place is where the rescue files of one state are: Dir, and the key their
// names start with.
type Place struct {
	Dir string
	Key string
}

// PlaceIn is the place of the state that name identifies (say "dir
// /home/ann/leads, workspace uk"), under the cache directory cache:
// cache/leadsync/rescue, files named after a hash of name.
func PlaceIn(cache, name string) Place {
	sum := sha256.Sum256([]byte(name))
	return Place{Dir: filepath.Join(cache, "leadsync", "rescue"), Key: hex.EncodeToString(sum[:8])}
}

// Header is the first line of a rescue file.
type Header struct {
	Version int `json:"leadsync_rescue"`
	// Run is the recording whose events the file keeps (their
	// EventMark.Run).
	Run string `json:"run"`
	// Lineage is the state's: the file is folded into that state only.
	Lineage string    `json:"lineage"`
	Created time.Time `json:"created"`
	// State says where the state is, for a reader of the file
	// (backend.Describe: never a secret).
	State string `json:"state"`
}

// File is a rescue file as read.
type File struct {
	Path   string
	Header Header
	// Events are the events it keeps, in the order written (their marks'
	// Seq rising).
	Events []state.Event
	// Torn is set when its last line was cut short (a crash while it was
	// written): that line is left out.
	Torn bool
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// line frames JSON b as one line of a rescue file.
func line(b []byte) []byte {
	out := make([]byte, 0, len(b)+10)
	out = fmt.Appendf(out, "%08x ", crc32.Checksum(b, crcTable))
	out = append(out, b...)
	return append(out, '\n')
}

// unline checks one line (without its newline) and returns its JSON.
func unline(l []byte) ([]byte, bool) {
	if len(l) < 10 || l[8] != ' ' {
		return nil, false
	}
	var sum [4]byte
	if _, err := hex.Decode(sum[:], l[:8]); err != nil {
		return nil, false
	}
	b := l[9:]
	want := uint32(sum[0])<<24 | uint32(sum[1])<<16 | uint32(sum[2])<<8 | uint32(sum[3])
	return b, crc32.Checksum(b, crcTable) == want
}

// Read reads the rescue files of p, oldest first. No folder, or no file,
// is none. A file damaged before its last line is an error naming it (it
// is kept for the user to look at).
func (p Place) Read() ([]*File, error) {
	if p.Dir == "" {
		return nil, nil
	}
	names, err := filepath.Glob(filepath.Join(p.Dir, p.Key+".*"+ext))
	if err != nil {
		return nil, err
	}
	var files []*File
	for _, name := range names {
		f, err := ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // folded and removed meanwhile
		}
		if err != nil {
			return nil, err
		}
		if f != nil {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Header.Created.Before(files[j].Header.Created) })
	return files, nil
}

// ReadFile reads one rescue file; nil (and no error) for a file whose
// header was never written whole (nothing in it).
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parse(path, b)
}

// parse reads the content b of the rescue file at path.
func parse(path string, b []byte) (*File, error) {
	f := &File{Path: path}
	n := 0
	for len(b) > 0 {
		n++
		nl := bytes.IndexByte(b, '\n')
		last := nl < 0 || len(bytes.TrimSpace(b[nl+1:])) == 0
		if nl < 0 {
			f.Torn = true
			break
		}
		js, ok := unline(b[:nl])
		b = b[nl+1:]
		if !ok {
			if last {
				f.Torn = true
				break
			}
			return nil, fmt.Errorf("rescue file %s: line %d is damaged", path, n)
		}
		if n == 1 {
			if err := json.Unmarshal(js, &f.Header); err != nil || f.Header.Version == 0 || f.Header.Run == "" {
				return nil, fmt.Errorf("rescue file %s: the first line is not a rescue header", path)
			}
			if f.Header.Version > Version {
				return nil, fmt.Errorf("rescue file %s: version %d is newer than this leadsync reads (%d); upgrade leadsync", path, f.Header.Version, Version)
			}
			continue
		}
		var e state.Event
		if err := json.Unmarshal(js, &e); err != nil {
			return nil, fmt.Errorf("rescue file %s: line %d is not an event: %v", path, n, err)
		}
		if err := e.Validate(); err != nil {
			return nil, fmt.Errorf("rescue file %s: line %d: %v", path, n, err)
		}
		f.Events = append(f.Events, e)
	}
	if f.Header.Run == "" {
		return nil, nil
	}
	return f, nil
}

// Remove removes the rescue file at path unless a live writer still holds
// it (its run goes on, and may add to it): removed is false then. A file
// already gone is removed.
func Remove(path string) (removed bool, err error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if err := filelock.TryLock(f); err != nil {
		if errors.Is(err, filelock.ErrLocked) {
			return false, nil
		}
		return false, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, safefile.SyncDir(filepath.Dir(path))
}

// Writer appends the events of one run to the run's rescue file, which it
// makes on the first Append. It is safe for concurrent use.
type Writer struct {
	place  Place
	header Header

	mu   sync.Mutex
	f    *os.File
	path string
}

// NewWriter returns the writer of the run h names, in p. Nothing is
// written before the first Append.
func (p Place) NewWriter(h Header) *Writer {
	h.Version = Version
	return &Writer{place: p, header: h}
}

// Path is the file written, "" before the first Append.
func (w *Writer) Path() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.path
}

// Append writes e as one line and syncs it before it returns. The first
// Append makes the folder (0700) and the file (0600) with its header, and
// takes the file's lock for the life of the writer.
func (w *Writer) Append(e *state.Event) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if w.f == nil {
		if err := w.open(); err != nil {
			return err
		}
	}
	return w.write(line(b))
}

// open makes the file with its header, synced, and locks it.
func (w *Writer) open() error {
	if w.place.Dir == "" {
		return errors.New("there is no user cache directory to keep it in (os.UserCacheDir found none: set $HOME, or $XDG_CACHE_HOME)")
	}
	if err := os.MkdirAll(w.place.Dir, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(w.place.Dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(w.place.Dir, w.place.Key+"."+safeName(w.header.Run)+ext)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	hb, err := json.Marshal(w.header)
	if err == nil {
		_, err = f.Write(line(hb))
	}
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = safefile.SyncDir(w.place.Dir)
	}
	if err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	w.f, w.path = f, path
	return nil
}

// write appends one line and syncs it; a line written in part is cut off
// again, so that the next one starts on a line of its own.
func (w *Writer) write(l []byte) error {
	st, err := w.f.Stat()
	if err != nil {
		return err
	}
	if _, err = w.f.Write(l); err == nil {
		err = w.f.Sync()
	}
	if err != nil {
		w.f.Truncate(st.Size())
		return err
	}
	return nil
}

// Close releases the file (and its lock); it stays for the next command.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// Remove removes the file the writer made, if any (closing it first).
func (w *Writer) Remove() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.path == "" {
		return nil
	}
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	err := os.Remove(w.path)
	w.path = ""
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return safefile.SyncDir(w.place.Dir)
}

// safeName keeps the letters, digits and dashes of s (a run ID is a UUID).
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, s)
}
