package statefile

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"github.com/leadsync/leadsync/internal/recovered"
	"github.com/leadsync/leadsync/internal/state"
)

// Encode writes s as a state file's JSON: what the local backend saves and
// `leadsync state pull` prints. It does not change s (beyond
// state.Normalize).
func Encode(w io.Writer, s *state.State) error {
	s.Normalize()
	bw := bufio.NewWriterSize(w, 1<<20)
	if err := encodeState(bw, s); err != nil {
		return err
	}
	return bw.Flush()
}

// Decode parses the bytes of a state file; path is used in errors only. A
// file of a newer format is a *NewerFormatError, a damaged one a
// *CorruptError (with the line of the problem where there is one); the
// state returned has been checked (state.Check).
func Decode(path string, b []byte) (*state.State, error) {
	return decode(path, b, string(b))
}

// DecodeOwned is Decode for bytes the caller gives away: the strings of
// the state share b's memory instead of copying it (a state of 300,000
// people is 175 MB of strings), so b must never change afterwards.
func DecodeOwned(path string, b []byte) (*state.State, error) {
	return decode(path, b, unsafe.String(unsafe.SliceData(b), len(b)))
}

// DecodeRepairingNobody is Decode for state recover: the IDs of the
// records that name nobody are repaired (state.RepairNobody) before the
// state is checked, and counted.
func DecodeRepairingNobody(path string, b []byte) (*state.State, state.Repairs, error) {
	s, err := parse(path, b, string(b))
	if err != nil {
		return nil, state.Repairs{}, err
	}
	repaired, err := s.RepairNobody()
	if err != nil {
		return nil, state.Repairs{}, err
	}
	s, err = check(path, s)
	return s, repaired, err
}

func decode(path string, b []byte, src string) (*state.State, error) {
	s, err := parse(path, b, src)
	if err != nil {
		return nil, err
	}
	return check(path, s)
}

// parse decodes the state file b (src shares or copies its bytes) without
// checking it; a damaged file is a *CorruptError, a newer one a
// *NewerFormatError.
func parse(path string, b []byte, src string) (*state.State, error) {
	s, err := decodeState(src)
	if err == nil && s.FormatVersion > state.FormatVersion {
		return nil, &NewerFormatError{Path: path, Version: s.FormatVersion, WrittenBy: s.LeadsyncVersion}
	}
	if err != nil {
		ce := &CorruptError{Path: path, Reason: err.Error()}
		var de *decodeError
		if errors.As(err, &de) {
			if de.newer > state.FormatVersion {
				return nil, &NewerFormatError{Path: path, Version: de.newer, WrittenBy: de.writtenBy}
			}
			ce.Line, ce.Reason = lineOf(b, de.offset), de.Error()
		}
		return nil, ce
	}
	return s, nil
}

// checkState and checkStreamed are state.Check and
// state.CheckExceptPeople (variables for tests).
var (
	checkState    = (*state.State).Check
	checkStreamed = (*state.State).CheckExceptPeople
)

// check checks a decoded state (checkState).
func check(path string, s *state.State) (*state.State, error) {
	if err := checkState(s); err != nil {
		return nil, damaged(path, err)
	}
	return s, nil
}

// damaged is the *CorruptError of the file at path that a check of its
// state refused with err; a *recovered.Panic (a bug of the check's, not
// of the file) is returned as it is, for cli to report as a crash.
func damaged(path string, err error) error {
	if bug, ok := errors.AsType[*recovered.Panic](err); ok {
		return bug
	}
	return &CorruptError{Path: path, Reason: err.Error()}
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

// CorruptError is returned by Load for a state file that cannot be read as
// a leadsync state. The file is left exactly as it was.
type CorruptError struct {
	Path   string
	Line   int    // 1-based line of the problem, 0 when unknown
	Reason string // what is wrong
	// Backup says what the backup next to the state holds and what to do
	// with it (Load fills it in); "" when unknown.
	Backup string
}

func (e *CorruptError) Error() string {
	where := e.Path
	if e.Line > 0 {
		where = fmt.Sprintf("%s:%d", e.Path, e.Line)
	}
	advice := e.Backup
	if advice == "" {
		advice = fmt.Sprintf("Restore the last good copy (%s.backup is the state before the last write) or fix the file by hand", e.Path)
	}
	return fmt.Sprintf("state file %s is damaged: %s. leadsync did not change it. %s", where, e.Reason, advice)
}

// NewerFormatError is returned by Load for a state file written in a newer
// format than this build reads. The file is left exactly as it was.
type NewerFormatError struct {
	Path      string
	Version   int    // format_version of the file
	WrittenBy string // leadsync_version of the file, if any
}

func (e *NewerFormatError) Error() string {
	by := ""
	if e.WrittenBy != "" {
		by = " by leadsync " + e.WrittenBy
	}
	return fmt.Sprintf("state file %s has format_version %d (written%s); this leadsync reads format_version %d or older. "+
		"Upgrade leadsync to use this state; the file was not changed", e.Path, e.Version, by, state.FormatVersion)
}

// Marshal is json.Marshal without HTML escaping (names like "A & B" stay
// readable) and without the trailing newline: how the state file and the
// local journal write JSON.
func Marshal(v any) ([]byte, error) {
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
