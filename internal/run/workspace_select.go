package run

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/leadsync/leadsync/internal/safefile"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// SelectionPath is the file, relative to the working folder, that keeps
// the workspace `leadsync workspace select` chose for the working copy,
// as Terraform keeps its in .terraform/environment. It belongs to the
// working copy, whatever the backend (like the export record).
var SelectionPath = filepath.Join(".leadsync", "workspace")

// SelectedWorkspace is the workspace selected for the working copy in
// dir, "" when none is (or "default" is). A file that cannot be read
// selects nothing; its name is checked where it is used.
func SelectedWorkspace(dir string) string {
	b, err := os.ReadFile(filepath.Join(dir, SelectionPath))
	if err != nil {
		return ""
	}
	name := strings.TrimSpace(string(b))
	if name == state.DefaultWorkspace {
		return ""
	}
	return name
}

// SelectWorkspace keeps name as the working copy's workspace in dir:
// "default" (or "") removes the selection. The workspace must be one that
// set has (a *backend.NoWorkspaceError otherwise, nothing written).
func SelectWorkspace(dir, name string, set backend.Workspaces) error {
	if name != "" && name != state.DefaultWorkspace {
		if err := backend.CheckWorkspaceName(name); err != nil {
			return err
		}
		list, err := ListWorkspaces(set)
		if err != nil {
			return err
		}
		found := false
		for _, ws := range list {
			found = found || ws.Name == name
		}
		if !found {
			return &backend.NoWorkspaceError{Workspace: name}
		}
	}
	path := filepath.Join(dir, SelectionPath)
	if name == "" || name == state.DefaultWorkspace {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	return safefile.WriteFile(path, []byte(name+"\n"))
}
