package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

func newForgetCmd(f *Factory) *cobra.Command {
	var fl arguments.ForgetFlags
	cmd := &cobra.Command{
		Use:   "forget PERSON...",
		Short: "Erase a person for good: remove them from the state and suppress them",
		Long: `Forget honours an erasure request. PERSON is a network ID, a page name, a
profile URL (its last path segment is the page name) or the address that
leadsync state list prints (person.<id>). The person leaves the
state with everything known of them (lead, profile, enrichment), and every
spreadsheet written afterwards; their identifiers join the state's
suppression list, so no later search, profile read or enrichment brings
them back: searches may still return them, and leadsync drops them when it
records the results (plan, apply and the Summary count them as
"suppressed").

A value that is none of these (a full name: a page name has no spaces)
is refused, with nothing changed; forget lists the page names of the
people of the state who have that name.

The suppression list holds SHA-256 hashes of the network ID and page name,
not the identifiers. A person the state does not hold yet is suppressed all
the same.

Forget shows what it will do and asks for "yes" first, as apply does;
--auto-approve erases without asking. Without a terminal on standard
input and without --auto-approve it refuses, changing nothing.

Forget takes the state lock (like state rm), records the erasure in the
journal and removes the state's backup file, which still held the person.
An erasure request is not per campaign: every other workspace of the
backend is locked too (before anything is written), the person is removed
from each that holds them and suppressed in all, and forget says which
workspaces held them.
Spreadsheets written before keep their rows until they are written again:
run leadsync export (no calls) to rewrite them.`,
		Example: `  leadsync forget ACoAAB12345
  leadsync forget --auto-approve Max_Mustermann   # in a script: no question
  leadsync forget person.10005910.d80270cf     # an address of leadsync state list
  leadsync forget https://network.example/profile/Max_Mustermann && leadsync export`,
	}
	fl.Register(cmd.Flags())
	parseArgs(cmd, &fl, arguments.ParseForget, func(_ *cobra.Command, a *arguments.Forget) error {
		return runForget(f, a)
	})
	return cmd
}

func runForget(f *Factory, a *arguments.Forget) error {
	if !a.AutoApprove && !f.IO.InTTY {
		// As apply --json: no prompt can be answered, and an erasure is
		// not undone. Refused before the state is opened.
		return errors.New("forget asks for confirmation, and standard input is not a terminal: nothing was changed. Run it again with --auto-approve to erase without asking")
	}
	src, err := openStateSource(f, a.State)
	if err != nil {
		return err
	}
	defer src.close()
	fopts := run.ForgetOptions{People: a.People}
	// The backup is the state before: it still holds the person. (A
	// backend without one, as pg, keeps no copy: the rows are gone.)
	if bk, ok := backend.BackupOf(src.backend); ok {
		fopts.DropBackup = func() error {
			if err := bk.RemoveBackup(); err != nil {
				return fmt.Errorf("the person is erased from the state, but its backup %s could not be removed and still holds them: %w", stateRelPath(f, bk.BackupPath()), err)
			}
			return nil
		}
	}
	if !a.AutoApprove {
		fopts.Confirm = func(people []run.Forgotten, workspaces []string) (bool, error) {
			return confirmForget(f, people, workspaces)
		}
	}
	res, err := run.Forget(stateDeps(f, src, a.LockTimeout), fopts)
	if errors.Is(err, run.ErrForgetCancelled) {
		views.NewForget(f.IO.Out).Cancelled()
		return silentExit(ExitError)
	}
	if err != nil {
		return err
	}
	views.NewForget(f.IO.Out).Done(res, src.describe(f))
	return nil
}

// confirmForget shows what forget will do and asks for "yes".
func confirmForget(f *Factory, people []run.Forgotten, workspaces []string) (bool, error) {
	views.NewForget(f.IO.Out).Confirmation(people, workspaces)
	return askYes(f, "Do you want to forget them?\n  An erasure cannot be undone.", "forget")
}
