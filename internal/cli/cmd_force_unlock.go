package cli

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/state/backend"
)

// forceUnlockOptions are the inputs of `leadsync force-unlock`.
type forceUnlockOptions struct {
	state stateFlags
	id    string
	force bool
}

func newForceUnlockCmd(f *Factory) *cobra.Command {
	opts := &forceUnlockOptions{}
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
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.id = args[0]
			return runForceUnlock(f, opts)
		},
	}
	cmd.Flags().BoolVar(&opts.force, "force", false, "do not ask for confirmation")
	opts.state.register(cmd)
	return cmd
}

func runForceUnlock(f *Factory, opts *forceUnlockOptions) error {
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	lock, why := backend.ForceUnlockerOf(src.backend)
	if lock == nil {
		return errors.New(why)
	}
	info, err := lock.LockHolder()
	if err != nil {
		return fmt.Errorf("%v; if no leadsync runs on this state, delete that file", err)
	}
	if info == nil {
		return fmt.Errorf("the state %s is not locked: nothing to do", src.describe(f))
	}
	if info.ID != opts.id {
		return fmt.Errorf("lock ID %q does not match the lock held now (ID %s, by %s for %q): nothing was removed", opts.id, info.ID, info.Who, info.Operation)
	}
	if !opts.force {
		if !f.IO.InTTY {
			return fmt.Errorf("force-unlock asks for confirmation, and input is not a terminal: run it again with --force")
		}
		fmt.Fprintf(f.IO.ErrOut, "The lock is held by %s (pid %d) for %q since %s.\n", info.Who, info.PID, info.Operation, stateWhen(info.Created, f.Now()))
		fmt.Fprintf(f.IO.ErrOut, "Remove it only if that run is gone. Remove it? Only 'yes' is accepted: ")
		answer, err := bufio.NewReader(f.IO.In).ReadString('\n')
		if err != nil {
			// Input ended without a newline (Ctrl-D): end the prompt's line.
			fmt.Fprintln(f.IO.ErrOut)
		}
		if strings.TrimSpace(answer) != "yes" {
			return fmt.Errorf("force-unlock cancelled: the lock stays")
		}
	}
	held, err := lock.ForceUnlock(opts.id)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.IO.Out, "Removed the state lock %s (held by %s for %q).\n", info.ID, info.Who, info.Operation)
	if held {
		fmt.Fprintf(f.IO.ErrOut, "Warning: that run (pid %d on %s) was still running and goes on without the lock: stop it before the next apply, or two runs may pay for the same calls.\n", info.PID, info.Host)
	}
	return nil
}
