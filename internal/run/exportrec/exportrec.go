package exportrec

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Path is where a working copy keeps the record of the spreadsheets it
// wrote, relative to the configuration folder. It is a file of this working
// copy, like the spreadsheets themselves: never part of the state, whatever
// the backend (a teammate's files are not ours).
const Path = ".leadsync/exports.json"

// Version is the layout of the export record this build writes; a record
// of another version reads as damaged (no record).
const Version = 1

// Records is the content of Path: the last write of each export in each
// workspace, by Key. It holds no personal data: file names, a digest of
// configuration and the state's mark.
type Records struct {
	FormatVersion int                `json:"format_version"`
	Exports       map[string]*Record `json:"exports"`
}

// Key is the key of the record of the export at address in
// workspace: the address itself in the default workspace ("" or
// "default"), as records were keyed before workspaces had their own, and
// "WORKSPACE/ADDRESS" in another ("uk/export.leads"; a workspace name has
// no '/').
func Key(workspace, address string) string {
	if workspace == "" || workspace == state.DefaultWorkspace {
		return address
	}
	return workspace + "/" + address
}

// SplitKey is the workspace ("" for the default one) and the export
// address of a key made by Key. An address may hold a
// '/' only inside its instance key (export.x["a/b"]), after a '[' that no
// workspace name has, so the text before the first '/' is a workspace
// only when it is a valid workspace name.
func SplitKey(key string) (workspace, address string) {
	if i := strings.IndexByte(key, '/'); i >= 0 && backend.CheckWorkspaceName(key[:i]) == nil {
		return key[:i], key[i+1:]
	}
	return "", key
}

// Record is the last complete write of one export.
type Record struct {
	// Files are the files written, relative to the configuration folder
	// when inside it.
	Files []string `json:"files"`
	// ConfigDigest is config.Config.ExportDigest of the export when it was
	// written.
	ConfigDigest string `json:"config_digest"`
	// From is the state the files were written from.
	From state.DataMark `json:"from"`
	// WrittenAt is when the files were written.
	WrittenAt time.Time `json:"written_at"`
}

// Error is an export record that cannot be read or parsed.
// Callers treat it as no record, so every export is written again.
type Error struct {
	Path   string
	Reason string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s cannot be read (%s)", e.Path, e.Reason)
}

// Read reads the export record at path. A missing file is an empty record;
// a damaged one, or one of another version, is an *Error.
func Read(path string) (*Records, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Records{FormatVersion: Version, Exports: map[string]*Record{}}, nil
	}
	if err != nil {
		return nil, &Error{Path: path, Reason: safefile.UnwrapPathErr(err).Error()}
	}
	var r Records
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &Error{Path: path, Reason: err.Error()}
	}
	if r.FormatVersion != Version {
		return nil, &Error{Path: path, Reason: fmt.Sprintf("format_version %d, this leadsync reads %d", r.FormatVersion, Version)}
	}
	if r.Exports == nil {
		r.Exports = map[string]*Record{}
	}
	for addr, rec := range r.Exports {
		if rec == nil {
			return nil, &Error{Path: path, Reason: fmt.Sprintf("the record of %s is null", addr)}
		}
	}
	return &r, nil
}

// Write writes r to path atomically, as the state file is written
// (safefile.WriteFile: a temporary file in the same folder, mode 0600,
// synced, renamed over the old one, the folder synced; the folder made
// 0700 with a .gitignore of "*").
func Write(path string, r *Records) error {
	out := *r
	out.FormatVersion = Version
	if out.Exports == nil {
		out.Exports = map[string]*Record{}
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteFile(path, append(b, '\n'))
}
