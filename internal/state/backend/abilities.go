package backend

import (
	"fmt"
	"io"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// The optional abilities of a backend. Each is a small interface a
// backend implements when it can; callers never assert them themselves
// but ask the function beside each, so that every ability is checked in
// one place. The local backend has all (Closer closes its database); the pg backend all but
// Exister, File, PendingJournal, BackupKeeper, JournalRecoverer,
// LiveLockReader and ForceUnlocker (its lock ends with its run's
// connection). Layers around a backend (Wrapper) have the abilities of the
// backend they wrap.
//
// The abilities that span workspaces (CrossWorkspace: reuse of
// enrichments made in another workspace, an erasure applied in every
// workspace; LedgerKeeper, ledger.go: the budget's ledger; Claimer,
// claims.go: the people whose enrichment an apply is paying for right
// now) are asked for the same way, so that a backend without them keeps
// working one workspace at a time.

// Wrapper is a backend that adds to another one (the layer of run that
// keeps what a failed write could not store; a lock that waits): Unwrap
// returns that backend. Every ability below is asked of the backend and,
// when it has not got it, of the one it wraps, so that a layer hides
// none.
type Wrapper interface{ Unwrap() Backend }

// abilityOf returns b, or the first backend b wraps, as T.
func abilityOf[T any](b Backend) (T, bool) {
	for b != nil {
		if t, ok := b.(T); ok {
			return t, true
		}
		w, ok := b.(Wrapper)
		if !ok {
			break
		}
		b = w.Unwrap()
	}
	var none T
	return none, false
}

// Closer is a backend that holds connections (pg): Close releases them.
type Closer = io.Closer

// Close releases what b holds, if anything.
func Close(b Backend) error {
	if c, ok := abilityOf[Closer](b); ok {
		return c.Close()
	}
	return nil
}

// Exister is a backend that tells, without connecting anywhere, whether
// its state was ever written (the local state file exists).
type Exister interface{ Exists() bool }

// Exists reports whether the state st (what b.Load gave) was ever written:
// as b says when it is an Exister, else by st's serial and content.
func Exists(b Backend, st *state.State) bool {
	if e, ok := abilityOf[Exister](b); ok {
		return e.Exists()
	}
	return st.Serial > 0 || !st.IsEmpty()
}

// KnownAbsent reports whether b can tell, without connecting anywhere,
// that its state was never written: a command that would write nothing
// then stops before taking the lock (which makes the state's folder).
func KnownAbsent(b Backend) bool {
	e, ok := abilityOf[Exister](b)
	return ok && !e.Exists()
}

// Offline reports whether b can be read without connecting anywhere, as
// shell completion must (it runs on every key press).
func Offline(b Backend) bool {
	_, ok := abilityOf[Exister](b)
	return ok
}

// File is a backend whose state is one local file: messages name the
// file (relative to the working folder) rather than Describe.
type File interface{ Path() string }

// FilePath is the state file of b, ok false when its state is no file.
func FilePath(b Backend) (path string, ok bool) {
	if f, ok := abilityOf[File](b); ok {
		return f.Path(), true
	}
	return "", false
}

// Workspaced is a backend opened on one of several workspaces.
type Workspaced interface{ Workspace() string }

// WorkspaceOf is the workspace b is opened on (state.DefaultWorkspace for
// a backend without workspaces: a file named with --state).
func WorkspaceOf(b Backend) string {
	if w, ok := abilityOf[Workspaced](b); ok {
		return w.Workspace()
	}
	return state.DefaultWorkspace
}

// Workspaces is a backend whose workspaces can be listed, made and
// deleted (the workspace commands).
type Workspaces interface {
	Workspaces() ([]WorkspaceInfo, error)
	CreateWorkspace(name string) error
	DeleteWorkspace(name string, force bool) error
}

// WorkspacesOf returns b's workspaces, ok false for a backend without
// them.
func WorkspacesOf(b Backend) (Workspaces, bool) {
	w, ok := abilityOf[Workspaces](b)
	return w, ok
}

// WorkspaceChecker is a backend that can say, before anything is read or
// locked, that its workspace was never made (a *NoWorkspaceError). Other
// backends refuse it when they load.
type WorkspaceChecker interface{ CheckWorkspace() error }

// CheckWorkspace refuses a workspace that b knows does not exist.
func CheckWorkspace(b Backend) error {
	if c, ok := abilityOf[WorkspaceChecker](b); ok {
		return c.CheckWorkspace()
	}
	return nil
}

// Pusher is a workspace that takes a whole state (state push), keeping its
// lineage; one that holds state is refused unless force (a
// *NotEmptyError).
type Pusher interface {
	Push(s *state.State, force bool) error
}

// PusherOf returns b as a Pusher, ok false when it takes no pushed state.
func PusherOf(b Backend) (Pusher, bool) {
	p, ok := abilityOf[Pusher](b)
	return p, ok
}

// LockReader is a backend that says who holds its lock now (show); nil
// when nobody does.
type LockReader interface {
	LockHolder() (*LockInfo, error)
}

// LockHolder is who holds b's lock now, nil when nobody does or b cannot
// tell.
func LockHolder(b Backend) *LockInfo {
	if r, ok := abilityOf[LockReader](b); ok {
		if info, err := r.LockHolder(); err == nil {
			return info
		}
	}
	return nil
}

// LiveLockReader is a LockReader whose holder may have died and left its
// details behind (the local lock file, released by the kernel):
// LiveLockHolder names the holder only while it is alive.
type LiveLockReader interface {
	LiveLockHolder() (*LockInfo, error)
}

// LiveLockHolder is the run that holds b's lock now and is alive (plan and
// show say that it runs); nil when nobody does or b cannot tell. A
// LockReader that is no LiveLockReader names live holders only (the pg
// backend's lock ends with its holder's session).
func LiveLockHolder(b Backend) *LockInfo {
	if r, ok := abilityOf[LiveLockReader](b); ok {
		if info, err := r.LiveLockHolder(); err == nil {
			return info
		}
		return nil
	}
	return LockHolder(b)
}

// ForceUnlocker is a backend whose lock can be removed by hand (the local
// lock file, by its ID): ForceUnlock removes the lock with that ID and
// reports whether a live run still held it (that run goes on, unlocked).
// A backend whose lock ends with the run that holds it has nothing to
// force and says why (ForceUnlockMessage).
type ForceUnlocker interface {
	LockReader
	ForceUnlock(id string) (held bool, err error)
}

// ForceUnlockerOf returns b as a ForceUnlocker; when it is none, the
// message says why there is nothing to force.
func ForceUnlockerOf(b Backend) (ForceUnlocker, string) {
	if f, ok := abilityOf[ForceUnlocker](b); ok {
		return f, ""
	}
	if m, ok := abilityOf[interface{ ForceUnlockMessage() string }](b); ok {
		return nil, m.ForceUnlockMessage()
	}
	return nil, fmt.Sprintf("%s has no lock to force: its lock ends with the run that holds it", b.Describe())
}

// PendingJournal is a backend that keeps the calls of an interrupted apply
// in a journal file until the next apply folds them in (show says so).
type PendingJournal interface {
	PendingJournal() (path string, ok bool)
}

// JournalPending is the journal file of an interrupted apply b holds, ok
// false when there is none (or b keeps no journal file).
func JournalPending(b Backend) (path string, ok bool) {
	if p, ok := abilityOf[PendingJournal](b); ok {
		return p.PendingJournal()
	}
	return "", false
}

// BackupKeeper is a backend that keeps the state before its last write
// (the local .backup): state rm names it, and forget removes it (it still
// holds the person erased).
type BackupKeeper interface {
	BackupPath() string
	RemoveBackup() error
}

// EachWriteBackup is a BackupKeeper that tells whether every write keeps
// the state before (the JSON state file) or only some do (the SQLite
// database: a push --force).
type EachWriteBackup interface{ BacksUpEachWrite() bool }

// BacksUpEachWrite reports whether each write of b keeps the state before
// in its backup (what state rm and state mv say).
func BacksUpEachWrite(b Backend) bool {
	if w, ok := abilityOf[EachWriteBackup](b); ok {
		return w.BacksUpEachWrite()
	}
	_, ok := BackupOf(b)
	return ok
}

// BackupOf returns b as a BackupKeeper, ok false when it keeps no backup.
func BackupOf(b Backend) (BackupKeeper, bool) {
	k, ok := abilityOf[BackupKeeper](b)
	return k, ok
}

// JournalRecoverer is a backend that folds the readable part of a damaged
// journal into the state (state recover). A backend that records each
// call in a transaction has no journal to recover: nil, as for a state
// database.
type JournalRecoverer interface {
	RecoverJournal(now time.Time) (*RecoverResult, error)
}

// RecovererOf returns b as a JournalRecoverer, ok false when it has none.
func RecovererOf(b Backend) (JournalRecoverer, bool) {
	r, ok := abilityOf[JournalRecoverer](b)
	return r, ok
}

// SharedPacer is a backend that shares the pace of an API key between the
// processes that use it (the pace file of a working copy, the pg
// backend's table for a team).
type SharedPacer interface {
	SharedPace(key string) (api.SharedPace, error)
}

// SharedPace is b's shared pace of key, ok false when b has none (or it
// cannot be had: the pacer then paces this process alone).
func SharedPace(b Backend, key string) (api.SharedPace, bool) {
	if p, ok := abilityOf[SharedPacer](b); ok {
		if sp, err := p.SharedPace(key); err == nil {
			return sp, true
		}
	}
	return nil, false
}

// CrossWorkspace is a backend whose workspaces belong to one team and one
// API account (the local backend's workspaces of a working copy, the pg
// backend's of a schema): a person enriched in one workspace is not paid
// for again in another (their enrichment is copied), and an erasure
// applies to every workspace.
type CrossWorkspace interface {
	Workspaced
	// OtherWorkspaces lists the workspaces of the store besides this one,
	// sorted.
	OtherWorkspaces() ([]string, error)
	// Sibling opens another workspace of the same store; the caller
	// closes it (Close).
	Sibling(workspace string) (Backend, error)
	// EnrichmentsElsewhere returns, for each key (state.LookupKeys of a
	// person) that another workspace holds an enrichment for, the newest
	// such enrichment and its workspace. It reads without any lock, as a
	// plan does.
	EnrichmentsElsewhere(keys []string) (map[string]state.Reusable, error)
}

// CrossWorkspaceOf returns b (or the backend it wraps) as a
// CrossWorkspace, ok false when its workspaces are each on their own (a
// state file named with --state).
func CrossWorkspaceOf(b Backend) (CrossWorkspace, bool) {
	return abilityOf[CrossWorkspace](b)
}

// ErasureKeeper is a backend that keeps the erasure record of all its
// workspaces (the working copy's erasures.json, the pg backend's erasures
// table): every erasure (leadsync forget) as hashed identifiers
// (state.Suppression), nothing that names the person. Its Load and Push
// honour the record (state.HonourErasures), so that a workspace made after
// an erasure, or an old state pushed later, does not bring the person
// back.
type ErasureKeeper interface {
	// Erasures returns the record, oldest first.
	Erasures() ([]*state.Suppression, error)
	// RecordErasures adds entries to the record (an entry it holds
	// already, by state.EntryKey, is kept once).
	RecordErasures(entries []*state.Suppression) error
}

// ErasuresOf returns b (or the backend it wraps) as an ErasureKeeper, ok
// false when its workspaces share no erasure record (a state file named
// with --state).
func ErasuresOf(b Backend) (ErasureKeeper, bool) {
	return abilityOf[ErasureKeeper](b)
}

// BaseOpener is a backend that opens its state for a command that asks
// for what it needs (state.Base) without reading every person: the local
// database reads its people on request.
type BaseOpener interface {
	OpenBase() (*state.Base, error)
}

// WorkspaceRowReader is a backend that reads the workspace's row alone,
// without a record (the local database, PostgreSQL): the service and the
// configuration the state belongs to, in one query.
type WorkspaceRowReader interface {
	ReadWorkspaceRow() (*state.State, error)
}

// ReadWorkspaceRow is the workspace's row of b as a state with no record
// (its service, configuration, serial and usage), for an apply that
// decides on them before its records are read. nil without an error when
// b cannot read it alone or holds no row.
func ReadWorkspaceRow(b Backend) (*state.State, error) {
	if r, ok := abilityOf[WorkspaceRowReader](b); ok {
		return r.ReadWorkspaceRow()
	}
	return nil, nil
}

// PartReader is a backend whose Base reads people from a store on
// request (OpenBase), unless the state is then read whole (calls of an
// interrupted apply not folded in, an erasure not honoured): the local
// database, PostgreSQL. A state file is read whole.
type PartReader interface {
	ReadsPeopleOnRequest() bool
}

// ReadsInPart reports whether b (or a layer around it) is a PartReader
// that reads people on request: a command may then open its Base before
// it decides to load the state whole, at the cost of reading the
// records (a state file would be read twice).
func ReadsInPart(b Backend) bool {
	r, ok := abilityOf[PartReader](b)
	return ok && r.ReadsPeopleOnRequest()
}

// OpenBase opens b's state as a Base: as b (or a layer around it) opens
// one when it can, else the state read whole (Load). The caller closes
// it.
func OpenBase(b Backend) (*state.Base, error) {
	if o, ok := abilityOf[BaseOpener](b); ok {
		return o.OpenBase()
	}
	s, err := b.Load()
	if err != nil {
		return nil, err
	}
	return state.NewBase(s), nil
}
