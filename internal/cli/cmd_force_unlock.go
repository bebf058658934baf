package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newForceUnlockCmd(f *Factory) *cobra.Command {
	var fl arguments.ForceUnlockFlags
	cmd := &cobra.Command{
		Use:   "force-unlock LOCK_ID",
		Short: "Remove a stale state lock",
		Long: `Force-unlock removes the state lock by its ID. LOCK_ID is the ID printed in
the "state is locked" message (and by leadsync show); a lock with another
ID is left alone, so a lock taken since is never broken by mistake.

The lock of the local state file is also an operating system lock, which
goes with its run however that run ends (kill -9 too): the next command
takes it over by itself and says so. Force-unlock is for the rest: the lock
of a run that hangs (stop that run first: two runs at once could make the
same paid calls twice; force-unlock warns when the run still holds the
lock), or a system without file locks. Calls a killed run completed are
safe in the journal and are folded in by the next command that writes the
state.

Without --force, force-unlock asks for confirmation on a terminal and
refuses elsewhere.`,
		Example: `  leadsync force-unlock 0f8fad5b-d9cb-469f-a165-70867728950e`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseForceUnlock, func(_ *cobra.Command, a *arguments.ForceUnlock) error {
		return runForceUnlock(f, a)
	})
	return cmd
}

func runForceUnlock(f *Factory, a *arguments.ForceUnlock) error {
	src, err := openStateSource(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	lock, why := backend.ForceUnlockerOf(src.backend)
	if lock == nil {
		return errors.New(why)
	}
	opts := run.ForceUnlockOptions{LockID: a.LockID}
	if !a.Force {
		opts.Confirm = func(info *backend.LockInfo) (bool, error) { return confirmForceUnlock(f, info) }
	}
	res, err := run.ForceUnlock(lock, opts)
	var ue *run.LockUnreadableError
	switch {
	case errors.As(err, &ue):
		return fmt.Errorf("%v; if no leadsync runs on this state, delete that file", ue.Err)
	case errors.Is(err, run.ErrNotLocked):
		return fmt.Errorf("the state %s is not locked: nothing to do", src.describe(f))
	case err != nil:
		return err
	}
	// Printing is past the point of no return: the lock is gone.
	_ = views.NewForceUnlock(f.IO.Out, f.IO.ErrOut).Removed(res.Lock, res.StillRunning)
	return nil
}

// confirmForceUnlock asks on the terminal whether to remove the lock info
// describes; without a terminal it refuses to guess.
func confirmForceUnlock(f *Factory, info *backend.LockInfo) (bool, error) {
	if !f.IO.InTTY {
		return false, errors.New("force-unlock asks for confirmation, and input is not a terminal: run it again with --force")
	}
	view := views.NewForceUnlock(f.IO.Out, f.IO.ErrOut)
	view.Ask(info, f.Now())
	answer, err := bufio.NewReader(f.IO.In).ReadString('\n')
	if err != nil {
		// Input ended without a newline (Ctrl-D): end the prompt's line.
		view.InputEnded()
	}
	return strings.TrimSpace(answer) == "yes", nil
}
