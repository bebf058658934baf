package run

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// ListWorkspaces lists the workspaces of set: the default one first, then
// the others by name, on any backend.
func ListWorkspaces(set backend.Workspaces) ([]backend.WorkspaceInfo, error) {
	list, err := set.Workspaces()
	if err != nil {
		return nil, err
	}
	sort.SliceStable(list, func(i, j int) bool {
		if (list[i].Name == state.DefaultWorkspace) != (list[j].Name == state.DefaultWorkspace) {
			return list[i].Name == state.DefaultWorkspace
		}
		return list[i].Name < list[j].Name
	})
	return list, nil
}

// WorkspaceNew creates the empty workspace name in set; the backend checks
// the name and refuses one that exists.
func WorkspaceNew(set backend.Workspaces, name string) error {
	return set.CreateWorkspace(name)
}

// WorkspaceInUseError refuses to delete the workspace the command runs in.
type WorkspaceInUseError struct {
	Workspace string
}

func (e *WorkspaceInUseError) Error() string {
	return "workspace " + e.Workspace + " is the one in use; nothing was deleted"
}

// NoWorkspaceToDeleteError says that the workspace to delete does not
// exist: there is nothing to make, so the backend's hint (create it) is no
// answer here; Existing lists those that do (nil when they cannot be
// listed).
type NoWorkspaceToDeleteError struct {
	Workspace string
	// In names the backend ("PostgreSQL"); "" for the local state.
	In       string
	Existing []string
}

func (e *NoWorkspaceToDeleteError) Error() string {
	in := ""
	if e.In != "" {
		in = " in " + e.In
	}
	msg := fmt.Sprintf("workspace %q does not exist%s; nothing was deleted", e.Workspace, in)
	if e.Existing != nil {
		msg += ". The workspaces are: " + strings.Join(e.Existing, ", ")
	}
	return msg
}

// WorkspaceDelete deletes the workspace name of set, refusing the one in
// use (inUse; "default" is the backend's to refuse) and, unless force, one
// that holds state (the backend's refusal).
func WorkspaceDelete(set backend.Workspaces, name, inUse string, force bool) error {
	if name != state.DefaultWorkspace && name == inUse {
		return &WorkspaceInUseError{Workspace: name}
	}
	err := set.DeleteWorkspace(name, force)
	var ne *backend.NoWorkspaceError
	if !errors.As(err, &ne) {
		return err
	}
	nd := &NoWorkspaceToDeleteError{Workspace: ne.Workspace, In: ne.In}
	if list, lerr := ListWorkspaces(set); lerr == nil {
		nd.Existing = make([]string, 0, len(list))
		for _, ws := range list {
			nd.Existing = append(nd.Existing, ws.Name)
		}
	}
	return nd
}
