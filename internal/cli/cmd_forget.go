package cli

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/textfmt"
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
		fmt.Fprintln(f.IO.Out, "\nForget cancelled; nothing was changed.")
		return silentExit(ExitError)
	}
	if err != nil {
		return err
	}
	for _, p := range res.People {
		fmt.Fprintln(f.IO.Out, forgetLine(p))
	}
	for _, w := range res.Workspaces {
		fmt.Fprintln(f.IO.Out, workspaceErasureLine(w))
	}
	if res.Entries == 0 {
		return nil
	}
	// This call's count and the list's total apart: the total includes
	// earlier erasures.
	verb := "are"
	if res.Suppressed == 1 {
		verb = "is"
	}
	fmt.Fprintf(f.IO.Out, "%s; %s %s suppressed in %s in total.%s\n",
		forgetCount(res.People), textfmt.Plural(res.Suppressed, "person"), verb, src.describe(f), rewriteNote(res.People))
	return nil
}

// forgetCount says what this forget did, the people removed from the
// state apart from those it only suppressed (the state did not hold them).
func forgetCount(people []run.Forgotten) string {
	removed, suppressed := 0, 0
	for _, p := range people {
		switch p.Outcome {
		case run.ForgetRemoved:
			removed++
		case run.ForgetSuppressed:
			suppressed++
		}
	}
	switch {
	case suppressed == 0:
		return "Forgot " + textfmt.Plural(removed, "person")
	case removed == 0:
		return fmt.Sprintf("Removed nobody from the state: %s not in it %s suppressed from now on", textfmt.Plural(suppressed, "person"), isAre(suppressed))
	}
	return fmt.Sprintf("Forgot %s: removed from the state; %s not in it %s suppressed from now on", textfmt.Plural(removed, "person"), textfmt.Plural(suppressed, "person"), isAre(suppressed))
}

// rewriteNote reminds that spreadsheets still list the people removed.
func rewriteNote(people []run.Forgotten) string {
	for _, p := range people {
		if p.Outcome == run.ForgetRemoved {
			return " Spreadsheets written before still list them: run leadsync export to rewrite them."
		}
	}
	return ""
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// confirmForget shows what forget will do and asks for "yes".
func confirmForget(f *Factory, people []run.Forgotten, workspaces []string) (bool, error) {
	fmt.Fprintln(f.IO.Out, "leadsync forget will erase for good:")
	for _, p := range people {
		switch p.Outcome {
		case run.ForgetRemoved:
			fmt.Fprintf(f.IO.Out, "  - %s: remove %s from the state%s, and suppress them\n", p.Ident, personLabel(p.Person), forgetWhat(p.Person))
		case run.ForgetSuppressed:
			fmt.Fprintf(f.IO.Out, "  - %s: not in the state; suppress it, so that no search brings them in\n", p.Ident)
		default:
			fmt.Fprintln(f.IO.Out, "  "+forgetLine(p))
		}
	}
	if len(workspaces) > 0 {
		fmt.Fprintf(f.IO.Out, "and the same in the other workspaces: %s.\n", strings.Join(workspaces, ", "))
	}
	return askYes(f, "Do you want to forget them?\n  An erasure cannot be undone.", "forget")
}

// workspaceErasureLine says what an erasure did in another workspace of
// the backend: an erasure request is not per campaign.
func workspaceErasureLine(w run.WorkspaceErasure) string {
	switch {
	case len(w.Held) > 0:
		return fmt.Sprintf("Workspace %q held %s too: removed there, and suppressed.", w.Workspace, strings.Join(w.Held, ", "))
	case w.Entries > 0:
		return fmt.Sprintf("Workspace %q did not hold them: suppressed there too.", w.Workspace)
	}
	return fmt.Sprintf("Workspace %q: already suppressed there.", w.Workspace)
}

// forgetLine says what forget did with one PERSON.
func forgetLine(p run.Forgotten) string {
	switch p.Outcome {
	case run.ForgetAlreadyErased:
		return fmt.Sprintf("%s: already erased and suppressed.", p.Ident)
	case run.ForgetSuppressed:
		return fmt.Sprintf("%s: not in the state; suppressed from now on, so no search brings them in.", p.Ident)
	case run.ForgetSamePerson:
		return fmt.Sprintf("%s: the same person as above.", p.Ident)
	}
	return fmt.Sprintf("%s: removed %s from the state%s; suppressed from now on.", p.Ident, personLabel(p.Person), forgetWhat(p.Person))
}

// personLabel names a person in forget's output: their name and ID.
func personLabel(p *state.Person) string {
	name := p.Lead.FullName
	if name == "" && p.Profile != nil {
		name = p.Profile.FullName
	}
	if name == "" {
		return "person." + p.ID
	}
	return fmt.Sprintf("%s (person.%s)", name, p.ID)
}

// forgetWhat says what was known of a person besides the lead.
func forgetWhat(p *state.Person) string {
	var parts []string
	if len(p.FoundBy) > 0 {
		fb := append([]string(nil), p.FoundBy...)
		sort.Strings(fb)
		parts = append(parts, "found by "+strings.Join(fb, ", "))
	}
	if p.Enrichment != nil {
		parts = append(parts, "with their enrichment")
	}
	if p.Profile != nil {
		parts = append(parts, "with their profile")
	}
	if len(p.History) > 0 {
		parts = append(parts, "with their history")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}
