package pacefile

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
)

// Name is the file, in the state's folder, that holds the time of the last
// call of an API key.
const Name = "pace"

// File shares the pace of an API key between the leadsync processes of
// one state folder: the service's rate limit belongs to the key, not to a
// process, so `plan` then `apply`, a resume right after a kill, or `usage`
// then `fields --refresh` must wait for the last call of the process
// before. It holds the last call's time and a hash of the key (never the
// key); the file is locked (internal/filelock) while it is read and
// written. It implements api.SharedPace.
type File struct {
	path  string
	keyID string
}

// New returns the pace file of key in the folder dir (the state's).
func New(dir, key string) *File {
	return &File{path: filepath.Join(dir, Name), keyID: api.PaceKeyID(key)}
}

var _ api.SharedPace = (*File)(nil)

// Path is the file's path.
func (p *File) Path() string { return p.path }

type paceRecord struct {
	Key  string    `json:"key"`
	Last time.Time `json:"last"`
}

// Reserve starts a call at now unless the last recorded call of the key is
// less than gap before now: then it records nothing and returns how long to
// wait. A record of another key, or none, allows the call.
func (p *File) Reserve(now time.Time, gap time.Duration) (time.Duration, error) {
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
func (p *File) Extend(t time.Time) error {
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
func (p *File) update(change func(*paceRecord) bool) error {
	if err := safefile.EnsureDir(filepath.Dir(p.path)); err != nil {
		return err
	}
	f, err := os.OpenFile(p.path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	// Where the platform has no file lock the pace is shared on a
	// best-effort basis (a rare race costs one 429, which is retried).
	if err := filelock.Lock(f); err != nil {
		return err
	}
	defer filelock.Unlock(f)
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
func (p *File) Last() (time.Time, error) {
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
