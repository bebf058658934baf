package local

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/leadsync/leadsync/internal/filelock"
	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ClaimsDir is the folder, beside the default workspace's state file, of
// the claims every workspace of the working copy shares
// (backend.Claims): ClaimsFile, its lock file ClaimsLock (locked while
// the claims are read and changed), and one file per live holder,
// holder-<id>.lock, which its apply keeps locked (internal/filelock)
// while it runs. The kernel releases that lock when the apply exits in
// any way, kill -9 included: a holder whose file is not locked is dead,
// and its claims block nobody.
const (
	ClaimsDir  = "claims"
	ClaimsFile = "claims.json"
	ClaimsLock = "claims.lock"
)

// claimsFormat is the version of the claims file this build writes.
const claimsFormat = 1

// claimExpiry is how long a holder counts as alive on a platform without
// an operating system file lock (filelock.Supported false), where its
// death cannot be seen: its claims expire then.
const claimExpiry = time.Hour

// Claim states in the claims file.
const (
	claimHeld  = "held"
	claimDone  = "done"  // released with the enrichment recorded
	claimEnded = "ended" // its holder ended (died or closed) while holding it
)

// claimsData is the content of the claims file. Seq numbers every change,
// so that a holder can tell what happened after it opened.
type claimsData struct {
	FormatVersion int                    `json:"format_version"`
	Seq           uint64                 `json:"seq"`
	Holders       map[string]claimHolder `json:"holders"`
	Claims        map[string]claimEntry  `json:"claims"`
}

// claimHolder is an apply that holds claims.
type claimHolder struct {
	Workspace string    `json:"workspace"`
	Opened    uint64    `json:"opened"`
	PID       int       `json:"pid"`
	Since     time.Time `json:"since"`
}

// claimEntry is what one key (backend.ClaimKeys) holds.
type claimEntry struct {
	Holder    string `json:"holder"`
	Workspace string `json:"workspace"`
	State     string `json:"state"`
	Seq       uint64 `json:"seq"`
}

// fileClaims is one holder of the working copy's claims.
type fileClaims struct {
	mu      sync.Mutex
	dir     string
	id      string
	ws      string
	account string
	self    *os.File // the holder file, locked while this holder lives
	opened  uint64
	// prev is what each key this holder claimed held before, put back
	// when the claim is released without an enrichment.
	prev   map[string]*claimEntry
	closed bool
}

var _ backend.Claimer = (*Workspace)(nil)

// Claims opens a holder of account's claims in the working copy's claims
// folder, shared by its workspaces: the backend.Claimer ability.
func (ws *Workspace) Claims(account string) (backend.Claims, error) {
	dir := filepath.Join(filepath.Dir(ws.set.path), ClaimsDir)
	if err := safefile.EnsureDir(dir); err != nil {
		return nil, &safefile.WriteError{Path: dir, Err: err}
	}
	c := &fileClaims{dir: dir, id: state.NewUUID(), ws: ws.name, account: account, prev: map[string]*claimEntry{}}
	f, err := os.OpenFile(c.holderPath(c.id), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, &safefile.WriteError{Path: c.holderPath(c.id), Err: err}
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	c.self = f
	err = c.update(func(d *claimsData, live *liveness) bool {
		c.prune(d, live)
		d.Seq++
		c.opened = d.Seq
		d.Holders[c.id] = claimHolder{Workspace: c.ws, Opened: d.Seq, PID: os.Getpid(), Since: time.Now().UTC()}
		return true
	})
	if err != nil {
		c.self.Close()
		os.Remove(c.holderPath(c.id))
		return nil, err
	}
	return c, nil
}

func (c *fileClaims) holderPath(id string) string {
	return filepath.Join(c.dir, "holder-"+id+".lock")
}

// Claim claims keys for this holder unless a live holder of another
// workspace's apply holds one of them.
func (c *fileClaims) Claim(keys []string) (backend.Claim, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return backend.Claim{}, errors.New("the claims are closed")
	}
	hks := backend.ClaimKeys(c.account, keys)
	var out backend.Claim
	err := c.update(func(d *claimsData, live *liveness) bool {
		out = backend.Claim{}
		for _, k := range hks {
			e, ok := d.Claims[k]
			if !ok || e.Holder == c.id {
				continue
			}
			if e.State == claimHeld && live.alive(d, e.Holder) {
				out.HeldBy = e.Workspace
				return false
			}
		}
		for _, k := range hks {
			if e, ok := d.Claims[k]; ok && e.Holder != c.id {
				if e.State == claimHeld {
					// A dead holder's: it ends now, and what its call did
					// may have been recorded after anything was read.
					d.Seq++
					e.State, e.Seq = claimEnded, d.Seq
				}
				if e.Seq > c.opened {
					noteSince(&out, e, c.ws)
				}
				prev := e
				c.prev[k] = &prev
			} else if !ok {
				c.prev[k] = nil
			}
			d.Seq++
			d.Claims[k] = claimEntry{Holder: c.id, Workspace: c.ws, State: claimHeld, Seq: d.Seq}
		}
		out.Held = true
		return true
	})
	return out, err
}

// noteSince tells out of e, another holder's released or ended claim
// (an enrichment recorded wins over an end).
func noteSince(out *backend.Claim, e claimEntry, self string) {
	if e.Workspace == self || out.Enriched {
		return
	}
	out.Since, out.Enriched = e.Workspace, e.State == claimDone
}

// Release ends this holder's claim of keys: done when enriched, else what
// they held before is put back.
func (c *fileClaims) Release(keys []string, enriched bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("the claims are closed")
	}
	hks := backend.ClaimKeys(c.account, keys)
	err := c.update(func(d *claimsData, _ *liveness) bool {
		others := len(d.Holders) > 1
		for _, k := range hks {
			e, ok := d.Claims[k]
			prev := c.prev[k]
			if !ok || e.Holder != c.id || e.State != claimHeld {
				continue // taken over: this holder was taken for dead
			}
			switch {
			case enriched && others:
				d.Seq++
				d.Claims[k] = claimEntry{Holder: c.id, Workspace: c.ws, State: claimDone, Seq: d.Seq}
			case !enriched && prev != nil:
				d.Claims[k] = *prev
			default:
				// Nobody opened before now needs to know: the next
				// holder reads the enrichment from the state.
				delete(d.Claims, k)
			}
		}
		return true
	})
	if err == nil {
		// Forgotten once written: a release tried again after a failed
		// write gives the claim back as the first try would have.
		for _, k := range hks {
			delete(c.prev, k)
		}
	}
	return err
}

// Close ends this holder: its claims still held end with it, and what no
// live holder needs any more is dropped.
func (c *fileClaims) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	err := c.update(func(d *claimsData, live *liveness) bool {
		delete(d.Holders, c.id)
		for k, e := range d.Claims {
			if e.Holder == c.id && e.State == claimHeld {
				d.Seq++
				e.State, e.Seq = claimEnded, d.Seq
				d.Claims[k] = e
			}
		}
		c.prune(d, live)
		return true
	})
	filelock.Unlock(c.self)
	c.self.Close()
	os.Remove(c.holderPath(c.id))
	return err
}

// prune forgets the holders that died, ends the claims they held, and
// drops the claims no live holder needs: those released or ended before
// the oldest live holder opened (it reads their enrichments from the
// states).
func (c *fileClaims) prune(d *claimsData, live *liveness) {
	for id := range d.Holders {
		if !live.alive(d, id) {
			delete(d.Holders, id)
		}
	}
	oldest := ^uint64(0)
	for _, h := range d.Holders {
		oldest = min(oldest, h.Opened)
	}
	for k, e := range d.Claims {
		if e.State == claimHeld {
			if _, ok := d.Holders[e.Holder]; ok {
				continue
			}
			d.Seq++
			e.State, e.Seq = claimEnded, d.Seq
			d.Claims[k] = e
		}
		if e.Seq < oldest {
			delete(d.Claims, k)
		}
	}
}

// liveness finds out, once per update, which holders are alive.
type liveness struct {
	c     *fileClaims
	known map[string]bool
}

// alive reports whether holder id lives: this holder does; another does
// while its holder file is locked (on a platform without file locks:
// while its file exists, for claimExpiry at most). A dead holder's file
// is removed.
func (l *liveness) alive(d *claimsData, id string) bool {
	if id == l.c.id {
		return true
	}
	if v, ok := l.known[id]; ok {
		return v
	}
	v := l.check(d, id)
	l.known[id] = v
	return v
}

func (l *liveness) check(d *claimsData, id string) bool {
	h, registered := d.Holders[id]
	if !registered || strings.ContainsAny(id, `/\`) {
		return false
	}
	path := l.c.holderPath(id)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true // cannot tell: taken for alive, never for dead
	}
	if !filelock.Supported {
		f.Close()
		if time.Since(h.Since) < claimExpiry {
			return true
		}
		os.Remove(path)
		return false
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		return true // locked by its live holder (or cannot tell)
	}
	// Nobody holds it: its holder is gone, and so does the file (under the
	// claims lock; its name is never used again).
	filelock.Unlock(f)
	f.Close()
	os.Remove(path)
	return false
}

// update reads the claims file under its lock, lets change edit it, and
// writes it back when change says so. A claims file that cannot be read
// is an error, never read as empty: two applies could then pay for one
// person.
func (c *fileClaims) update(change func(*claimsData, *liveness) bool) error {
	lf, err := os.OpenFile(filepath.Join(c.dir, ClaimsLock), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return &safefile.WriteError{Path: filepath.Join(c.dir, ClaimsLock), Err: err}
	}
	defer lf.Close()
	if err := filelock.Lock(lf); err != nil {
		return err
	}
	defer filelock.Unlock(lf)
	path := filepath.Join(c.dir, ClaimsFile)
	d := claimsData{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading the enrichments' claims %s: %w", path, safefile.UnwrapPathErr(err))
	default:
		if err := json.Unmarshal(b, &d); err != nil {
			return fmt.Errorf("the enrichments' claims %s are damaged (%v): they name the people the applies of this working copy's workspaces are enriching; "+
				"remove the file when no apply runs", path, err)
		}
		if d.FormatVersion > claimsFormat {
			return fmt.Errorf("the enrichments' claims %s were written by a newer leadsync (format %d); upgrade leadsync", path, d.FormatVersion)
		}
	}
	if d.Holders == nil {
		d.Holders = map[string]claimHolder{}
	}
	if d.Claims == nil {
		d.Claims = map[string]claimEntry{}
	}
	if !change(&d, &liveness{c: c, known: map[string]bool{}}) {
		return nil
	}
	d.FormatVersion = claimsFormat
	out, err := json.Marshal(d)
	if err != nil {
		return err
	}
	return writeClaims(path, append(out, '\n'))
}

// writeClaims writes the claims file (a variable for tests: a failed
// write needs a full disk under the claims folder otherwise).
var writeClaims = safefile.WriteFile
