package views

import (
	"io"

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
