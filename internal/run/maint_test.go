package run

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// fakeLock is a lock of a backend that can be removed by hand; it records
// what was removed.
type fakeLock struct {
	held    *backend.LockInfo
	readErr error
	alive   bool
	removed []string
}

func (l *fakeLock) LockHolder() (*backend.LockInfo, error) { return l.held, l.readErr }

func (l *fakeLock) ForceUnlock(id string) (bool, error) {
	l.removed = append(l.removed, id)
	return l.alive, nil
}

func TestForceUnlock(t *testing.T) {
	held := &backend.LockInfo{ID: "abc", Who: "ann@laptop", Operation: "apply", PID: 42}
	yes := func(*backend.LockInfo) (bool, error) { return true, nil }
	no := func(*backend.LockInfo) (bool, error) { return false, nil }
	noTerminal := errors.New("no terminal")
	for _, c := range []struct {
		name    string
		lock    fakeLock
		opts    ForceUnlockOptions
		err     error  // errors.Is
		errText string // or the whole message
		want    *ForceUnlockResult
	}{
		{name: "forced", lock: fakeLock{held: held}, opts: ForceUnlockOptions{LockID: "abc"}, want: &ForceUnlockResult{Lock: held}},
		{name: "confirmed, holder alive", lock: fakeLock{held: held, alive: true}, opts: ForceUnlockOptions{LockID: "abc", Confirm: yes},
			want: &ForceUnlockResult{Lock: held, StillRunning: true}},
		{name: "not locked", opts: ForceUnlockOptions{LockID: "abc"}, err: ErrNotLocked},
		{name: "unreadable", lock: fakeLock{readErr: errors.New("lock file damaged")}, opts: ForceUnlockOptions{LockID: "abc"}, errText: "lock file damaged"},
		{name: "another lock", lock: fakeLock{held: held}, opts: ForceUnlockOptions{LockID: "abd"},
			errText: `lock ID "abd" does not match the lock held now (ID abc, by ann@laptop for "apply"): nothing was removed`},
		{name: "answered no", lock: fakeLock{held: held}, opts: ForceUnlockOptions{LockID: "abc", Confirm: no}, err: ErrForceUnlockCancelled},
		{name: "cannot ask", lock: fakeLock{held: held}, opts: ForceUnlockOptions{LockID: "abc",
			Confirm: func(*backend.LockInfo) (bool, error) { return false, noTerminal }}, err: noTerminal},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ForceUnlock(&c.lock, c.opts)
			switch {
			case c.err != nil && !errors.Is(err, c.err), c.errText != "" && (err == nil || err.Error() != c.errText):
				t.Fatalf("error %v, want %v%s", err, c.err, c.errText)
			case c.want == nil && c.err == nil && c.errText == "" && err != nil:
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("result %+v, want %+v", got, c.want)
			}
			if removed := len(c.lock.removed) > 0; removed != (c.want != nil) {
				t.Errorf("removed %v", c.lock.removed)
			}
		})
	}
}

// fakeWorkspaces is a backend's set of workspaces, in memory.
type fakeWorkspaces struct {
	names   []string
	listErr error
	deleted []string
}

func (w *fakeWorkspaces) Workspaces() ([]backend.WorkspaceInfo, error) {
	var out []backend.WorkspaceInfo
	for _, n := range w.names {
		out = append(out, backend.WorkspaceInfo{Name: n})
	}
	return out, w.listErr
}

func (w *fakeWorkspaces) CreateWorkspace(name string) error {
	w.names = append(w.names, name)
	return nil
}

func (w *fakeWorkspaces) DeleteWorkspace(name string, force bool) error {
	for i, n := range w.names {
		if n == name {
			if !force && name == "full" {
				return fmt.Errorf("workspace %q holds state", name)
			}
			w.names = append(w.names[:i], w.names[i+1:]...)
			w.deleted = append(w.deleted, name)
			return nil
		}
	}
	return &backend.NoWorkspaceError{Workspace: name, In: "PostgreSQL"}
}

func TestListWorkspacesDefaultFirst(t *testing.T) {
	list, err := ListWorkspaces(&fakeWorkspaces{names: []string{"uk", "de", "default", "at"}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ws := range list {
		names = append(names, ws.Name)
	}
	if fmt.Sprint(names) != "[default at de uk]" {
		t.Errorf("order %v", names)
	}
}

func TestWorkspaceDelete(t *testing.T) {
	for _, c := range []struct {
		name, inUse string
		force       bool
		names       []string
		listErr     error
		err         string // "" for none
		deleted     []string
	}{
		{name: "uk", inUse: "default", names: []string{"default", "uk"}, deleted: []string{"uk"}},
		{name: "uk", inUse: "uk", names: []string{"default", "uk"}, err: "workspace uk is the one in use; nothing was deleted"},
		{name: "full", inUse: "", names: []string{"full"}, err: `workspace "full" holds state`},
		{name: "full", inUse: "", force: true, names: []string{"full"}, deleted: []string{"full"}},
		{name: "ukk", inUse: "", names: []string{"uk", "default"},
			err: `workspace "ukk" does not exist in PostgreSQL; nothing was deleted. The workspaces are: default, uk`},
		{name: "ukk", inUse: "", names: []string{"uk"}, listErr: errors.New("down"),
			err: `workspace "ukk" does not exist in PostgreSQL; nothing was deleted`},
	} {
		set := &fakeWorkspaces{names: c.names, listErr: c.listErr}
		err := WorkspaceDelete(set, c.name, c.inUse, c.force)
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) {
			t.Errorf("delete %s in %s: %v, want %q", c.name, c.inUse, err, c.err)
		}
		if !reflect.DeepEqual(set.deleted, c.deleted) {
			t.Errorf("delete %s in %s: deleted %v, want %v", c.name, c.inUse, set.deleted, c.deleted)
		}
	}
	set := &fakeWorkspaces{}
	if err := WorkspaceNew(set, "uk"); err != nil || fmt.Sprint(set.names) != "[uk]" {
		t.Errorf("new: %v, %v", err, set.names)
	}
}
