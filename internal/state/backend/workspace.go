package backend

import (
	"fmt"
	"regexp"
	"time"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

var workspaceRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// CheckWorkspaceName says what is wrong with a workspace name, nil when it
// is valid. The rules are the same on every backend; a valid name is also a
// plain folder name (no separator, not "." or "..").
func CheckWorkspaceName(name string) error {
	if !workspaceRe.MatchString(name) {
		return fmt.Errorf("workspace name %q is not valid: use letters, digits, '.', '_' and '-' (at most 64, starting with a letter or digit), e.g. \"uk\"", name)
	}
	return nil
}

// NoWorkspaceError is returned by every backend for a workspace that was
// never created (or was deleted).
type NoWorkspaceError struct {
	Workspace string
	// In names the backend for the message ("PostgreSQL"); "" for the
	// local state.
	In string
}

func (e *NoWorkspaceError) Error() string {
	in := ""
	if e.In != "" {
		in = " in " + e.In
	}
	return fmt.Sprintf("workspace %q does not exist%s; create it with\n  leadsync workspace new %s\nor list the workspaces there are with leadsync workspace list", e.Workspace, in, e.Workspace)
}

// NotEmptyError is returned by a push into a workspace that holds a state.
type NotEmptyError struct {
	Where  string
	People int
	Blocks int
}

func (e *NotEmptyError) Error() string {
	return fmt.Sprintf("%s is not empty (%s); nothing was copied. "+
		"Use --force to replace it (what it holds is lost), or push into another workspace (--workspace NAME)", e.Where, Holdings(e.Blocks, e.People))
}

// Holdings says what a workspace holds, for a refusal to replace or
// delete it: "1 search or profile, 2 people".
func Holdings(blocks, people int) string {
	return textfmt.Count(blocks, "search or profile", "searches and profiles") + ", " + textfmt.Plural(people, "person")
}

// WorkspaceInfo is one workspace, as listed.
type WorkspaceInfo struct {
	Name    string
	Lineage string
	Serial  uint64
	Created time.Time // when the workspace was made; zero when unknown (local backend)
	People  int
	Blocks  int // searches and profile reads
	// Exists is false for the default workspace while nothing was written
	// to it.
	Exists bool
	// Err is why the workspace's state could not be read (local backend;
	// the counts are then zero).
	Err error
}

// IsEmpty reports whether the workspace holds no result, as
// (*state.State).IsEmpty says of its state.
func (w WorkspaceInfo) IsEmpty() bool { return w.People == 0 && w.Blocks == 0 }

// RecoverResult is what a JournalRecoverer did.
type RecoverResult struct {
	// Kept is how many events of the journal were folded into the state.
	Kept int
	// DamagedLine is the 1-based line of the journal where the damage is;
	// 0 when the journal was whole.
	DamagedLine int
	// Reason says what is wrong with that line.
	Reason string
	// DroppedLines is how many lines from the damaged one to the end were
	// not used (the damaged one included).
	DroppedLines int
	// KeptAfter is how many of the Kept events come after the damage:
	// lines whose checksum is right and which read as events, in order.
	KeptAfter int
	// MovedTo is where the journal was kept, as it was.
	MovedTo string
	// Repaired counts the IDs naming nobody a state file's records lost
	// as it was read (its check refuses them): state.Repairs.
	Repaired state.Repairs
	// Serial is the state's serial once recover saved it; 0 when it did
	// not write it.
	Serial uint64
}
