package cli

import (
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

Forget takes the state lock (like state rm), records the erasure in the
journal and removes the state's backup file, which still held the person.
An erasure request is not per campaign: every other workspace of the
backend is locked too (before anything is written), the person is removed
from each that holds them and suppressed in all, and forget says which
workspaces held them.
Spreadsheets written before keep their rows until they are written again:
run leadsync export (no calls) to rewrite them.`,
		Example: `  leadsync forget ACoAAB12345
  leadsync forget Max_Mustermann
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
	res, err := run.Forget(stateDeps(f, src, a.LockTimeout), fopts)
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
	fmt.Fprintf(f.IO.Out, "Forgot %s; %s %s suppressed in %s in total. Spreadsheets written before still list them: run leadsync export to rewrite them.\n",
		textfmt.Plural(res.Entries, "person"), textfmt.Plural(res.Suppressed, "person"), verb, src.describe(f))
	return nil
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
