package local

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// WorkspacesDir is the folder, next to the default workspace's state file,
// that holds one folder per other workspace of the local backend.
const WorkspacesDir = "workspaces"

// Workspaces are the workspaces of the local backend. The default one
// is the state file at the path given (state_path) with its journal,
// backup and lock beside it, exactly as without workspaces. Every other
// workspace NAME is the folder workspaces/NAME next to that file, holding
// a state file of the same name with its own journal, backup and lock:
// .leadsync/workspaces/uk/state.json. The folder exists from `workspace
// new` until `workspace delete`; a workspace without it does not exist.
type Workspaces struct {
	path     string
	newStore func(path string) *Store
}

// NewWorkspaces returns the workspaces whose default one is the state
// file at path; newStore makes the store of a state file (NewStore when
// nil), so that the caller sets its clock and notes.
func NewWorkspaces(path string, newStore func(path string) *Store) *Workspaces {
	if newStore == nil {
		newStore = NewStore
	}
	return &Workspaces{path: filepath.Clean(path), newStore: newStore}
}

// WorkspacePath is the state file of workspace name when the default
// workspace's state file is at path: path itself for the default one,
// <dir>/workspaces/<name>/<file> for another. The name must be valid.
func WorkspacePath(path, name string) string {
	if name == state.DefaultWorkspace || name == "" {
		return filepath.Clean(path)
	}
	return filepath.Join(filepath.Dir(path), WorkspacesDir, name, filepath.Base(path))
}

// root is the folder of the workspaces other than the default one.
func (w *Workspaces) root() string {
	return filepath.Join(filepath.Dir(w.path), WorkspacesDir)
}

// Path is the state file of workspace name.
func (w *Workspaces) Path(name string) string { return WorkspacePath(w.path, name) }

// Exists reports whether workspace name was made (the default one always
// exists).
func (w *Workspaces) Exists(name string) bool {
	if name == state.DefaultWorkspace {
		return true
	}
	if backend.CheckWorkspaceName(name) != nil {
		return false
	}
	fi, err := os.Stat(filepath.Join(w.root(), name))
	return err == nil && fi.IsDir()
}

// Open returns workspace name as a Backend, whether it exists or not: its
// Load, Lock and Push refuse a workspace that does not exist with a
// *NoWorkspaceError.
func (w *Workspaces) Open(name string) (*Workspace, error) {
	if name == "" {
		name = state.DefaultWorkspace
	}
	if err := backend.CheckWorkspaceName(name); err != nil {
		return nil, err
	}
	store := w.newStore(w.Path(name))
	if store.db != nil {
		store.db.ws = name
	}
	return &Workspace{localBackend: localBackend{store}, name: name, set: w}, nil
}

// names lists the workspaces' names, the default one first, then the
// others by name.
func (w *Workspaces) names() ([]string, error) {
	names := []string{state.DefaultWorkspace}
	entries, err := os.ReadDir(w.root())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("cannot list the workspaces in %s: %w", w.root(), safefile.UnwrapPathErr(err))
	}
	var others []string
	for _, e := range entries {
		// Not a workspace: a file, a name no workspace can have (a folder
		// being deleted starts with "."), or the default one's name.
		if e.IsDir() && e.Name() != state.DefaultWorkspace && backend.CheckWorkspaceName(e.Name()) == nil {
			others = append(others, e.Name())
		}
	}
	sort.Strings(others)
	return append(names, others...), nil
}

// Workspaces lists the workspaces, the default one first (it is listed
// even before anything is written to it), then the others by name. Each
// one's state is loaded for its counts; one that cannot be read is listed
// with Err set.
func (w *Workspaces) Workspaces() ([]backend.WorkspaceInfo, error) {
	names, err := w.names()
	if err != nil {
		return nil, err
	}
	out := make([]backend.WorkspaceInfo, 0, len(names))
	for _, name := range names {
		info := backend.WorkspaceInfo{Name: name, Exists: name != state.DefaultWorkspace}
		store := w.newStore(w.Path(name))
		if name == state.DefaultWorkspace {
			_, jerr := os.Stat(store.JournalPath())
			info.Exists = store.Exists() || jerr == nil // a first apply killed: its calls are in the journal
		}
		if info.Exists {
			s, err := store.Load()
			if err != nil {
				info.Err = err
			} else {
				info.Lineage, info.Serial = s.Lineage, s.Serial
				info.People, info.Blocks = len(s.People), len(s.Searches)+len(s.Profiles)
			}
		}
		out = append(out, info)
	}
	return out, nil
}

// CreateWorkspace makes the folder of workspace name, empty. The folders
// above it are made as the state's own folder is (0700, a .gitignore of
// "*").
func (w *Workspaces) CreateWorkspace(name string) error {
	if err := backend.CheckWorkspaceName(name); err != nil {
		return err
	}
	if name == state.DefaultWorkspace {
		return fmt.Errorf("workspace %q already exists: it is the state file %s itself", name, filepath.Base(w.path))
	}
	if err := safefile.EnsureDir(filepath.Dir(w.path)); err != nil {
		return &safefile.WriteError{Path: filepath.Dir(w.path), Err: err}
	}
	if err := safefile.EnsureDir(w.root()); err != nil {
		return &safefile.WriteError{Path: w.root(), Err: err}
	}
	dir := filepath.Join(w.root(), name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("workspace %q already exists", name)
		}
		return &safefile.WriteError{Path: dir, Err: err}
	}
	// The workspace's epoch (State.Epoch): a workspace made again under
	// this name has another. Without it (a crash here, a workspace made
	// by an older leadsync) the epoch is unknown and not compared.
	if err := os.WriteFile(filepath.Join(dir, epochFile), []byte(state.NewUUID()+"\n"), 0o600); err != nil {
		return &safefile.WriteError{Path: filepath.Join(dir, epochFile), Err: err}
	}
	return safefile.SyncDir(w.root())
}

// epochFile, in a workspace's folder, holds the workspace's epoch.
const epochFile = "epoch"

// epoch is the epoch of workspace name, "" when unknown (the default
// workspace has none: it is never deleted).
func (w *Workspaces) epoch(name string) string {
	if name == state.DefaultWorkspace {
		return ""
	}
	b, err := os.ReadFile(filepath.Join(w.root(), name, epochFile))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// DeleteWorkspace deletes workspace name with everything its folder holds
// (state, backup, journal). It takes the workspace's lock, so a run that
// holds it is never deleted under; a workspace that holds searches,
// profiles or people (or cannot be read) is refused unless force; the
// default one is refused.
func (w *Workspaces) DeleteWorkspace(name string, force bool) error {
	if name == state.DefaultWorkspace {
		return fmt.Errorf("the workspace %q cannot be deleted (empty it with leadsync state rm, or use another workspace)", state.DefaultWorkspace)
	}
	ws, err := w.Open(name)
	if err != nil {
		return err
	}
	l, err := ws.lock("workspace delete")
	if err != nil {
		return err
	}
	// After the folder is gone the lock went with it, and Unlock finds
	// nothing to remove.
	defer l.Unlock()
	s, err := ws.Store.Load()
	switch {
	case err != nil && !force:
		return fmt.Errorf("%w; nothing was deleted. Use --force to delete the workspace %q with its files all the same", err, name)
	case err == nil && !force && !s.IsEmpty():
		return fmt.Errorf("workspace %q is not empty (%s); nothing was deleted. Use --force to delete it with everything it holds",
			name, backend.Holdings(len(s.Searches)+len(s.Profiles), len(s.People)))
	}
	// Moved out of the way in one rename first: from then on the
	// workspace does not exist, even if removing its files fails halfway.
	ws.Store.Close()
	dir := filepath.Dir(ws.Store.Path())
	gone := filepath.Join(w.root(), ".deleted-"+name+"-"+state.NewUUID()[:8])
	if err := os.Rename(dir, gone); err != nil {
		return &safefile.WriteError{Path: dir, Err: err}
	}
	if err := safefile.SyncDir(w.root()); err != nil {
		return &safefile.WriteError{Path: w.root(), Err: err}
	}
	if err := os.RemoveAll(gone); err != nil {
		return fmt.Errorf("workspace %q is deleted, but its files in %s could not all be removed (%v): remove that folder by hand, it holds personal data", name, gone, safefile.UnwrapPathErr(err))
	}
	return nil
}

// Workspace is one workspace of the local backend: the Backend of its
// state file (Store) that refuses, in Load, Lock and Push, a workspace
// that does not exist, so that a mistyped --workspace makes no new one.
type Workspace struct {
	localBackend
	name string
	set  *Workspaces
}

var _ backend.Backend = (*Workspace)(nil)

// Name is the workspace's name.
func (ws *Workspace) Name() string { return ws.name }

func (ws *Workspace) missing() error { return &backend.NoWorkspaceError{Workspace: ws.name} }

// Load reads the workspace's state (an empty one when nothing was written
// to it yet).
func (ws *Workspace) Load() (*state.State, error) {
	if !ws.set.Exists(ws.name) {
		return nil, ws.missing()
	}
	s, err := ws.Store.Load()
	if err != nil {
		return nil, err
	}
	s.Epoch = ws.set.epoch(ws.name)
	// An erasure made elsewhere (another workspace, before this one was
	// made) holds here too.
	if err := ws.honour(s); err != nil {
		return nil, err
	}
	return s, nil
}

// Lock takes the workspace's lock, the lock file in its folder.
func (ws *Workspace) Lock(op string) (backend.Unlocker, error) {
	l, err := ws.lock(op)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// LockWait is Lock that waits up to timeout for a holder to finish; a
// workspace deleted meanwhile is refused.
func (ws *Workspace) LockWait(ctx context.Context, op string, timeout time.Duration) (backend.Unlocker, error) {
	l, err := backend.RetryLock(ctx, timeout, func() (*Lock, error) { return ws.lock(op) }, isLocked)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// lock takes the lock of a workspace that exists. Taking the lock makes
// the folder when it is missing, so the folder is looked at before and
// after: one deleted in between (and made again by the lock) is refused.
// A lock held by another run names the workspace in its force-unlock hint.
func (ws *Workspace) lock(op string) (*Lock, error) {
	if ws.name == state.DefaultWorkspace {
		return ws.Store.Lock(op)
	}
	dir := filepath.Dir(ws.Store.Path())
	before, err := os.Stat(dir)
	if err != nil || !before.IsDir() {
		return nil, ws.missing()
	}
	l, err := ws.Store.Lock(op)
	if le := (*LockedError)(nil); errors.As(err, &le) {
		le.Workspace = ws.name
	}
	if err != nil {
		if after, serr := os.Stat(dir); serr != nil || !os.SameFile(before, after) {
			return nil, ws.missing() // deleted while the lock was being taken
		}
		return nil, err
	}
	if after, err := os.Stat(dir); err != nil || !os.SameFile(before, after) {
		l.Unlock()
		if err == nil {
			os.Remove(filepath.Join(dir, ".gitignore"))
			os.Remove(dir)
		}
		return nil, ws.missing()
	}
	return l, nil
}

// Describe names the workspace's state for messages.
func (ws *Workspace) Describe() string {
	if ws.name == state.DefaultWorkspace {
		return ws.localBackend.Describe()
	}
	return fmt.Sprintf("workspace %q (state file %s)", ws.name, ws.Store.Path())
}

// OpenBase opens the workspace's state for a command that asks for what
// it needs (state.Base). An erasure made elsewhere that this state does
// not honour yet is applied to the state read whole, as Load does.
func (ws *Workspace) OpenBase() (*state.Base, error) {
	if !ws.set.Exists(ws.name) {
		return nil, ws.missing()
	}
	b, err := ws.Store.OpenBase()
	if err != nil {
		return nil, err
	}
	b.Records.Epoch = ws.set.epoch(ws.name)
	entries, err := ws.Erasures()
	if err != nil || !b.Records.Unhonoured(entries) {
		if err != nil {
			b.Close()
		}
		return b, err
	}
	b.Close()
	s, err := ws.Load()
	if err != nil {
		return nil, err
	}
	return state.NewBase(s), nil
}
