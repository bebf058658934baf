package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newStatePushCmd(f *Factory) *cobra.Command {
	var fl arguments.StatePushFlags
	cmd := &cobra.Command{
		Use:   "push",
		Short: "Copy a local state file into the workspace in use",
		Long: `Push copies a local state file (state_path, or --from) into the workspace in
use, keeping its lineage: a team starts from what one person already
fetched (pg backend), or a workspace starts from a copy of another state
(local backend; without --from, the default workspace's state file). The
workspace must exist (made with leadsync workspace new, or "default"); one
that holds state is refused unless --force, which replaces what it holds
(on the local backend the workspace's backup keeps it until its next
write). Push takes the workspace's lock.`,
		Example: `  leadsync state push
  leadsync --workspace uk state push --from uk/.leadsync/state.db
  leadsync state pull > copy.json && leadsync --workspace test state push --from copy.json
  leadsync state push --force`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseStatePush, func(_ *cobra.Command, a *arguments.StatePush) error {
		return runStatePush(f, a)
	})
	return cmd
}

func runStatePush(f *Factory, a *arguments.StatePush) error {
	cfg, src, err := configSource(f, a.Vars)
	if err != nil {
		return err
	}
	defer src.close()
	path := a.From
	if path == "" {
		path = stateFilePath(cfg)
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(f.Dir, path)
	}
	from, err := fileSource(f, path)
	if err != nil {
		return err
	}
	if backend.KnownAbsent(from.backend) {
		return fmt.Errorf("no local state at %s to push", stateRelPath(f, path))
	}
	to, ok := backend.StreamPusherOf(src.backend)
	if !ok {
		return fmt.Errorf("%s takes no pushed state", src.describe(f))
	}
	inUse, isFile := backend.FilePath(src.backend)
	if isFile && sameFile(path, inUse) {
		return fmt.Errorf("%s is the state file of workspace %q, the one in use: nothing to push. Name another state file with --from PATH, or push into another workspace with --workspace NAME",
			stateRelPath(f, path), src.workspaceName())
	}
	pushed, err := run.StatePush(stateDeps(f, src, a.LockTimeout), from.backend, to, a.Force)
	if ne := (*backend.NotEmptyError)(nil); errors.As(err, &ne) && isFile {
		ne.Where = src.workspaceDescription(f) // relative to the working folder
	}
	if err != nil {
		return err
	}
	return views.NewStateChange(f.IO.Out).Pushed(stateRelPath(f, path), pushed.Records, pushed.People, src.workspaceDescription(f))
}

// sameFile reports whether paths a and b are one file (b may not exist).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}
