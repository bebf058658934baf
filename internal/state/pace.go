package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// PaceFileName is the file next to the state that holds the time of the
// last call of an API key.
const PaceFileName = "pace"

// PaceFile shares the pace of an API key between the leadsync processes of
// one state folder: the service's rate limit belongs to the key, not to a
// process, so `plan` then `apply`, a resume right after a kill, or `usage`
// then `fields --refresh` must wait for the last call of the process
// before. It holds the last call's time and a hash of the key (never the
// key); the file is locked (flock) while it is read and written. It
// implements api.SharedPace.
type PaceFile struct {
	path  string
	keyID string
}

// NewPaceFile returns the pace file of key in the folder dir (the state's).
func NewPaceFile(dir, key string) *PaceFile {
	return &PaceFile{path: filepath.Join(dir, PaceFileName), keyID: PaceKeyID(key)}
}

// PaceKeyID is the name under which the pace of key is recorded (in the
// pace file, or the pg backend's pace table): a salted hash, so that the
// key itself is never stored.
func PaceKeyID(key string) string {
	h := sha256.Sum256([]byte("leadsync pace\x00" + key))
	return hex.EncodeToString(h[:8])
}

// Path is the file's path.
func (p *PaceFile) Path() string { return p.path }

type paceRecord struct {
	Key  string    `json:"key"`
	Last time.Time `json:"last"`
}

// Reserve starts a call at now unless the last recorded call of the key is
// less than gap before now: then it records nothing and returns how long to
// wait. A record of another key, or none, allows the call.
func (p *PaceFile) Reserve(now time.Time, gap time.Duration) (time.Duration, error) {
	var wait time.Duration
	err := p.update(func(rec *paceRecord) bool {
		if rec.Key == p.keyID {
			if next := rec.Last.Add(gap); now.Before(next) {
				wait = next.Sub(now)
				return false
			}
		}
		*rec = paceRecord{Key: p.keyID, Last: now}
		return true
	})
	return wait, err
}

// Extend moves the recorded last call to t when t is later (a request that
// reached the wire after its start, on a new connection).
func (p *PaceFile) Extend(t time.Time) error {
	return p.update(func(rec *paceRecord) bool {
		if rec.Key == p.keyID && !t.After(rec.Last) {
			return false
		}
		*rec = paceRecord{Key: p.keyID, Last: t}
		return true
	})
}

// update reads the record under the file lock, lets change edit it, and
// writes it back when change says so. A damaged record reads as none.
func (p *PaceFile) update(change func(*paceRecord) bool) error {
	if err := EnsureDir(filepath.Dir(p.path)); err != nil {
		return err
	}
	f, err := os.OpenFile(p.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return err
	}
	defer unlockFile(f)
	var rec paceRecord
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return err
	}
	if json.Unmarshal(b, &rec) != nil {
		rec = paceRecord{}
	}
	if !change(&rec) {
		return nil
	}
	out, _ := json.Marshal(rec)
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err = f.WriteAt(append(out, '\n'), 0)
	return err
}

// Last returns the recorded time of the key's last call (zero when none).
func (p *PaceFile) Last() (time.Time, error) {
	b, err := os.ReadFile(p.path)
	if errors.Is(err, fs.ErrNotExist) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, err
	}
	var rec paceRecord
	if json.Unmarshal(b, &rec) != nil || rec.Key != p.keyID {
		return time.Time{}, nil
	}
	return rec.Last, nil
}
