package views

import (
	"fmt"
	"io"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// WorkspaceList prints the workspaces of `leadsync workspace list`, one a
// line, the one in use marked with *: what each holds, or that it is
// empty or cannot be read.
func WorkspaceList(out io.Writer, list []backend.WorkspaceInfo, inUse string) error {
	w := newLineWriter(out)
	for _, ws := range list {
		mark := " "
		if ws.Name == inUse {
			mark = "*"
		}
		switch {
		case ws.Err != nil:
			w.printf("%s %s  (cannot be read: %v)\n", mark, ws.Name, ws.Err)
		case ws.Exists && (ws.Serial > 0 || !ws.IsEmpty()):
			w.printf("%s %s  (%s, %s; serial %d)\n", mark, ws.Name, Plural(ws.Blocks, "record"), Plural(ws.People, "person"), ws.Serial)
		default:
			w.printf("%s %s  (empty)\n", mark, ws.Name)
		}
	}
	return w.flush()
}

// Workspace is the view of the workspace commands that change or name
// one: new, select, delete and show.
type Workspace struct{ w io.Writer }

// NewWorkspace returns the view of the workspace commands, writing to w.
func NewWorkspace(w io.Writer) Workspace { return Workspace{w} }

// Created says workspace new created name and how to use it: with
// --workspace or the environment variable env.
func (v Workspace) Created(name, env string) error {
	_, err := fmt.Fprintf(v.w, "Created workspace %q. Use it with --workspace %s or %s=%s.\n", name, name, env, name)
	return err
}

// CreatedToSelect says workspace select --or-create created name.
func (v Workspace) CreatedToSelect(name string) error {
	_, err := fmt.Fprintf(v.w, "Created workspace %q.\n", name)
	return err
}

// Selected says workspace select chose name for this working copy.
func (v Workspace) Selected(name string) error {
	if name == state.DefaultWorkspace {
		_, err := fmt.Fprintln(v.w, "Selected the default workspace.")
		return err
	}
	_, err := fmt.Fprintf(v.w, "Selected workspace %q: commands in this working copy use it (kept in %s).\n", name, run.SelectionPath)
	return err
}

// Deleted says workspace delete deleted name.
func (v Workspace) Deleted(name string) error {
	_, err := fmt.Fprintf(v.w, "Deleted workspace %q.\n", name)
	return err
}

// Show prints the name of the workspace in use alone, for scripts.
func (v Workspace) Show(name string) error {
	_, err := fmt.Fprintln(v.w, name)
	return err
}
