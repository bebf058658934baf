package local

import (
	"path/filepath"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ErasuresName is the file, beside the default workspace's state file,
// that holds the erasure record of every workspace of the working copy
// (backend.ErasureKeeper): hashed identifiers only. ErasuresName+".lock"
// is locked while it is read and changed.
const ErasuresName = "erasures.json"

// erasuresFormat is the version of the erasure record this build writes.
const erasuresFormat = 1

type erasuresFile struct {
	FormatVersion int                  `json:"format_version"`
	Erasures      []*state.Suppression `json:"erasures"`
}

var _ backend.ErasureKeeper = (*Workspace)(nil)

func (ws *Workspace) erasuresPath() string {
	return filepath.Join(filepath.Dir(ws.set.path), ErasuresName)
}

// Erasures returns the working copy's erasure record.
func (ws *Workspace) Erasures() ([]*state.Suppression, error) {
	var out []*state.Suppression
	err := updateErasures(ws.erasuresPath(), func(f *erasuresFile) bool {
		out = f.Erasures
		return false
	})
	return out, err
}

// RecordErasures adds entries to the working copy's erasure record.
func (ws *Workspace) RecordErasures(entries []*state.Suppression) error {
	return updateErasures(ws.erasuresPath(), func(f *erasuresFile) bool {
		have := map[string]bool{}
		for _, e := range f.Erasures {
			have[state.EntryKey(e.Keys)] = true
		}
		changed := false
		for _, e := range entries {
			k := state.EntryKey(e.Keys)
			if k == "" || have[k] {
				continue
			}
			have[k] = true
			f.Erasures = append(f.Erasures, &state.Suppression{Keys: append([]string(nil), e.Keys...), At: e.At.UTC()})
			changed = true
		}
		return changed
	})
}

// updateErasures reads the record under its lock file's lock, lets change
// edit it, and writes it back when change says so. A record that cannot
// be read is an error, never an empty one: an erasure must not be
// forgotten. A missing record (no erasure yet) is read without making
// anything.
func updateErasures(path string, change func(*erasuresFile) bool) error {
	lf := lockedFile{path: path, what: "the erasure record", format: erasuresFormat, lazy: true,
		damaged: "it lists the people erased with leadsync forget (as hashes), which no workspace may bring back; restore it from a backup"}
	return updateLocked(lf, func(f *erasuresFile) *int { return &f.FormatVersion }, change)
}

// honour applies the working copy's erasure record to s.
func (ws *Workspace) honour(s *state.State) error {
	entries, err := ws.Erasures()
	if err != nil {
		return err
	}
	_, err = s.HonourErasures(entries)
	return err
}
