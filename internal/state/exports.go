package state

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ExportRecordPath is where a working copy keeps the record of the
// spreadsheets it wrote, relative to the configuration folder. It is a
// file of this working copy, like the spreadsheets themselves: never part
// of the state, whatever the backend (a teammate's files are not ours).
const ExportRecordPath = ".leadsync/exports.json"

// ExportRecordVersion is the layout of the export record this build
// writes; a record of another version reads as damaged (no record).
const ExportRecordVersion = 1

// DataMark names the state a spreadsheet was written from: its lineage,
// its serial, and on the local file the journal calls that loading it
// replayed (an apply killed before its commit leaves calls the serial does
// not count). Two loads give equal marks only when they hold the same
// data. A state never written has no lineage (it is made up anew by each
// load).
type DataMark struct {
	// Workspace is the workspace the state is of ("" for the default
	// one): two workspaces with one lineage (one pushed from the other)
	// may reach one serial with different data. See DataMarkIn.
	Workspace string       `json:"workspace,omitempty"`
	Lineage   string       `json:"lineage"`
	Serial    uint64       `json:"serial"`
	Journal   *JournalMark `json:"journal,omitempty"`

	// Epoch is the state's Epoch: the workspace was deleted and made
	// again since, when it differs. Empty on either side (a record
	// written before epochs, a backend without them) it is not compared.
	Epoch string `json:"epoch,omitempty"`
}

// DataMark returns the mark of s as it is now: after a Commit, the
// committed serial.
func (s *State) DataMark() DataMark {
	if s == nil || s.Serial == 0 {
		return DataMark{}
	}
	m := DataMark{Epoch: s.Epoch, Lineage: s.Lineage, Serial: s.Serial}
	if s.Journal != nil {
		j := *s.Journal
		m.Journal = &j
	}
	return m
}

// DataMarkIn is DataMark with the workspace the state is of: workspace as
// the configuration names it ("" and DefaultWorkspace are the default one,
// which a mark leaves empty, as marks written before workspaces had one).
func (s *State) DataMarkIn(workspace string) DataMark {
	m := s.DataMark()
	if workspace != DefaultWorkspace {
		m.Workspace = workspace
	}
	return m
}

// Equal reports whether m and o name the same data.
func (m DataMark) Equal(o DataMark) bool {
	if m.Workspace != o.Workspace || m.Lineage != o.Lineage || m.Serial != o.Serial {
		return false
	}
	if m.Epoch != "" && o.Epoch != "" && m.Epoch != o.Epoch {
		return false
	}
	if m.Journal == nil || o.Journal == nil {
		return m.Journal == nil && o.Journal == nil
	}
	return *m.Journal == *o.Journal
}

// ExportRecords is the content of ExportRecordPath: the last write of each
// export in each workspace, by ExportRecordKey. It holds no personal data:
// file names, a digest of configuration and the state's mark.
type ExportRecords struct {
	FormatVersion int                      `json:"format_version"`
	Exports       map[string]*ExportRecord `json:"exports"`
}

// ExportRecordKey is the key of the record of the export at address in
// workspace: the address itself in the default workspace ("" or
// "default"), as records were keyed before workspaces had their own, and
// "WORKSPACE/ADDRESS" in another ("uk/export.leads"; a workspace name has
// no '/').
func ExportRecordKey(workspace, address string) string {
	if workspace == "" || workspace == DefaultWorkspace {
		return address
	}
	return workspace + "/" + address
}

// SplitExportRecordKey is the workspace ("" for the default one) and the
// export address of a key made by ExportRecordKey. An address may hold a
// '/' only inside its instance key (export.x["a/b"]), after a '[' that no
// workspace name has, so the text before the first '/' is a workspace
// only when it is a valid workspace name.
func SplitExportRecordKey(key string) (workspace, address string) {
	if i := strings.IndexByte(key, '/'); i >= 0 && workspaceRe.MatchString(key[:i]) {
		return key[:i], key[i+1:]
	}
	return "", key
}

// ExportRecord is the last complete write of one export.
type ExportRecord struct {
	// Files are the files written, relative to the configuration folder
	// when inside it.
	Files []string `json:"files"`
	// ConfigDigest is config.Config.ExportDigest of the export when it was
	// written.
	ConfigDigest string `json:"config_digest"`
	// From is the state the files were written from.
	From DataMark `json:"from"`
	// WrittenAt is when the files were written.
	WrittenAt time.Time `json:"written_at"`
}

// ExportRecordError is an export record that cannot be read or parsed.
// Callers treat it as no record, so every export is written again.
type ExportRecordError struct {
	Path   string
	Reason string
}

func (e *ExportRecordError) Error() string {
	return fmt.Sprintf("%s cannot be read (%s)", e.Path, e.Reason)
}

// ReadExportRecords reads the export record at path. A missing file is an
// empty record; a damaged one, or one of another version, is an
// *ExportRecordError.
func ReadExportRecords(path string) (*ExportRecords, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &ExportRecords{FormatVersion: ExportRecordVersion, Exports: map[string]*ExportRecord{}}, nil
	}
	if err != nil {
		return nil, &ExportRecordError{Path: path, Reason: unwrapPathErr(err).Error()}
	}
	var r ExportRecords
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, &ExportRecordError{Path: path, Reason: err.Error()}
	}
	if r.FormatVersion != ExportRecordVersion {
		return nil, &ExportRecordError{Path: path, Reason: fmt.Sprintf("format_version %d, this leadsync reads %d", r.FormatVersion, ExportRecordVersion)}
	}
	if r.Exports == nil {
		r.Exports = map[string]*ExportRecord{}
	}
	for addr, rec := range r.Exports {
		if rec == nil {
			return nil, &ExportRecordError{Path: path, Reason: fmt.Sprintf("the record of %s is null", addr)}
		}
	}
	return &r, nil
}

// WriteExportRecords writes r to path atomically, as the state file is
// written: a temporary file in the same folder, mode 0600, synced, renamed
// over the old one, the folder synced. The folder is made like the
// state's (EnsureDir: 0700, a .gitignore of "*").
func WriteExportRecords(path string, r *ExportRecords) error {
	out := *r
	out.FormatVersion = ExportRecordVersion
	if out.Exports == nil {
		out.Exports = map[string]*ExportRecord{}
	}
	b, err := json.MarshalIndent(&out, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	if err := EnsureDir(dir); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return &WriteError{Path: path, Err: err}
	}
	fail := func(err error) error {
		tmp.Close()
		os.Remove(tmp.Name())
		return &WriteError{Path: path, Err: err}
	}
	if _, err := tmp.Write(b); err != nil {
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
		return &WriteError{Path: path, Err: err}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return &WriteError{Path: path, Err: err}
	}
	if err := syncDir(dir); err != nil {
		return &WriteError{Path: path, Err: err}
	}
	return nil
}
