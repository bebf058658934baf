package local

import (
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/api/pacefile"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// Definition registers the local backend: the default, used when the
// configuration has no backend block (it has no block of its own).
var Definition = &backend.Definition{
	Name:     "local",
	Title:    "local state file",
	Default:  true,
	Open:     open,
	OwnFiles: ownFiles,
}

// open returns the workspace in use of the workspaces whose default one is
// the state file at o.StatePath, or the state file o.File alone.
func open(_ *backend.Block, o backend.Options) (backend.Backend, error) {
	newStore := func(path string) *Store {
		store := NewStore(path)
		store.Now, store.Notify = o.Now, o.Notify
		return store
	}
	if o.File != "" {
		return newStore(o.File).AsBackend(), nil
	}
	return NewWorkspaces(o.StatePath, newStore).Open(o.Workspace)
}

// ownFiles are the files the local backend keeps beside the state file at
// statePath: its journal, lock and backup, the pace file, the budget
// ledger, and the folders of the other workspaces and of the claims.
func ownFiles(statePath string) ([]string, map[string]string) {
	base := filepath.Base(statePath)
	dir := filepath.Dir(statePath)
	files := map[string]string{
		base:                 "the state file",
		base + ".journal":    "the state's journal",
		base + ".lock":       "the state's lock",
		base + ".backup":     "the state's backup",
		pacefile.Name:        "the pace file",
		LedgerName:           "the budget ledger",
		LedgerName + ".lock": "the budget ledger's lock",
	}
	if IsDatabase(statePath) {
		json := filepath.Base(jsonPath(statePath))
		files[base] = "the state database"
		files[base+"-wal"] = "the state database's write-ahead log"
		files[base+"-shm"] = "the state database's shared memory"
		files[json] = "the state file of earlier versions"
		files[json+".backup"] = "the state file the database was made from"
		files[json+".journal.backup"] = "the journal of the state file the database was made from"
		delete(files, base+".journal")
		delete(files, base+".backup")
	}
	return []string{filepath.Join(dir, WorkspacesDir), filepath.Join(dir, ClaimsDir)}, files
}

// LockHolder is who holds the lock now (nil when nobody does): the
// backend.LockReader ability. It is what the lock file says, also when its
// run died (force-unlock removes such a lock by its ID).
func (store *Store) LockHolder() (*backend.LockInfo, error) { return store.ReadLock() }

// LiveLockHolder is the run that holds the lock and is alive (nil when
// nobody does): the details a dead run left in the lock file name nobody,
// as the kernel released its lock. The backend.LiveLockReader ability.
func (store *Store) LiveLockHolder() (*backend.LockInfo, error) {
	info, err := store.ReadLock()
	if err != nil || info == nil || !store.held() {
		return nil, err
	}
	return info, nil
}

// PendingJournal is the journal an interrupted apply left, which the next
// load replays and the next apply folds in: the backend.PendingJournal
// ability.
func (store *Store) PendingJournal() (string, bool) {
	if store.db != nil {
		return store.path, store.db.pending()
	}
	_, err := os.Stat(store.JournalPath())
	return store.JournalPath(), err == nil
}

// Workspace is the workspace's name: the backend.Workspaced ability.
func (ws *Workspace) Workspace() string { return ws.name }

// CheckWorkspace refuses a workspace that was never made, before anything
// is read or locked: the backend.WorkspaceChecker ability.
func (ws *Workspace) CheckWorkspace() error {
	if !ws.set.Exists(ws.name) {
		return ws.missing()
	}
	return nil
}

// Workspaces, CreateWorkspace and DeleteWorkspace are those of the
// workspace's set: the backend.Workspaces ability.
func (ws *Workspace) Workspaces() ([]backend.WorkspaceInfo, error) { return ws.set.Workspaces() }

// CreateWorkspace makes workspace name (see Workspaces.CreateWorkspace).
func (ws *Workspace) CreateWorkspace(name string) error { return ws.set.CreateWorkspace(name) }

// DeleteWorkspace deletes workspace name (see Workspaces.DeleteWorkspace).
func (ws *Workspace) DeleteWorkspace(name string, force bool) error {
	return ws.set.DeleteWorkspace(name, force)
}

// SharedPace is the pace file in the folder of the default workspace's
// state, shared by every workspace (the rate limit is the key's): the
// backend.SharedPacer ability.
func (ws *Workspace) SharedPace(key string) (api.SharedPace, error) {
	return pacefile.New(filepath.Dir(ws.set.path), key), nil
}

// Holder is the run that holds the lock (nil when its details cannot be
// read): the backend.LockedError interface.
func (e *LockedError) Holder() *backend.LockInfo { return e.Info }

var (
	_ backend.Workspaced       = (*Workspace)(nil)
	_ backend.WorkspaceChecker = (*Workspace)(nil)
	_ backend.Workspaces       = (*Workspace)(nil)
	_ backend.Pusher           = (*Workspace)(nil)
	_ backend.SharedPacer      = (*Workspace)(nil)
	_ backend.Exister          = localBackend{}
	_ backend.File             = localBackend{}
	_ backend.ForceUnlocker    = localBackend{}
	_ backend.LiveLockReader   = localBackend{}
	_ backend.PendingJournal   = localBackend{}
	_ backend.BackupKeeper     = localBackend{}
	_ backend.JournalRecoverer = localBackend{}
	_ backend.LockedError      = (*LockedError)(nil)
)
