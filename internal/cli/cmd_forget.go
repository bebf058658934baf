package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/textfmt"
)

// forgetOptions are the inputs of `leadsync forget`.
type forgetOptions struct {
	state  stateFlags
	people []string
}

func newForgetCmd(f *Factory) *cobra.Command {
	opts := &forgetOptions{}
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

The suppression list holds SHA-256 hashes of the network ID and page name,
not the identifiers. A person the state does not hold yet is suppressed all
the same.

Forget takes the state lock (like state rm), records the erasure in the
journal and removes the state's backup file, which still held the person.
Spreadsheets written before keep their rows until they are written again:
run leadsync export (no calls) to rewrite them.`,
		Example: `  leadsync forget ACoAAB12345
  leadsync forget Max_Mustermann
  leadsync forget person.10005910.d80270cf     # an address of leadsync state list
  leadsync forget https://network.example/profile/Max_Mustermann && leadsync export`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.people = args
			return runForget(f, opts)
		},
	}
	cmd.Flags().DurationVar(&f.LockTimeout, "lock-timeout", 0, lockTimeoutHelp)
	opts.state.register(cmd)
	return cmd
}

func runForget(f *Factory, opts *forgetOptions) error {
	for _, p := range opts.people {
		if strings.TrimSpace(p) == "" {
			return errors.New("forget: a PERSON is empty; give a network ID, a page name or a profile URL")
		}
	}
	src, err := openStateSource(f, &opts.state)
	if err != nil {
		return err
	}
	defer src.close()
	b := src.backend
	lock, err := lockState(f, b, "forget")
	if err != nil {
		return err
	}
	defer lock.Unlock()
	s, err := b.Load()
	if err != nil {
		return err
	}

	// One event per PERSON: each is one entry on the suppression list.
	var events []*state.Event
	var lines []string
	seen := map[string]bool{}
	for _, ident := range opts.people {
		fe := &state.ForgetPeopleEvent{Reason: state.ForgetErasure, PersonIDs: []string{}, Keys: state.IdentifierKeys(ident)}
		if p := s.FindPerson(ident); p == nil && s.SuppressesAny(fe.Keys) {
			lines = append(lines, fmt.Sprintf("%s: already erased and suppressed.", ident))
			continue
		} else if p == nil {
			lines = append(lines, fmt.Sprintf("%s: not in the state; suppressed from now on, so no search brings them in.", ident))
		} else if seen[p.ID] {
			lines = append(lines, fmt.Sprintf("%s: the same person as above.", ident))
			continue
		} else {
			seen[p.ID] = true
			fe.PersonIDs = append(fe.PersonIDs, p.ID)
			lines = append(lines, fmt.Sprintf("%s: removed %s from the state%s; suppressed from now on.", ident, personLabel(p), forgetWhat(p)))
		}
		events = append(events, &state.Event{At: f.Now().UTC(), Kind: state.EventForgetPeople, Address: state.PeopleAddress, People: fe})
	}
	if len(events) == 0 {
		// Everyone named is already erased: the state stays as it is.
		for _, l := range lines {
			fmt.Fprintln(f.IO.Out, l)
		}
		return lock.Unlock()
	}
	rec, err := b.OpenJournal(s)
	if err != nil {
		return err
	}
	for _, ev := range events {
		if err := rec.Append(ev); err != nil {
			rec.Close()
			return err
		}
		if err := s.Apply(*ev); err != nil {
			rec.Close()
			return err
		}
	}
	if err := b.Commit(s); err != nil {
		return err
	}
	// The backup is the state before: it still holds the person. (The pg
	// backend keeps no copy: the rows are gone.)
	if store := src.store; store != nil {
		if err := store.RemoveBackup(); err != nil {
			return fmt.Errorf("the person is erased from the state, but its backup %s could not be removed and still holds them: %w", stateRelPath(f, store.BackupPath()), err)
		}
	}
	for _, l := range lines {
		fmt.Fprintln(f.IO.Out, l)
	}
	fmt.Fprintf(f.IO.Out, "%s suppressed in %s. Spreadsheets written before still list them: run leadsync export to rewrite them.\n",
		textfmt.Plural(len(s.Suppressed), "person"), forgetWhere(src))
	return lock.Unlock()
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
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// forgetWhere names the state in forget's last line.
func forgetWhere(src *stateSource) string {
	if src.store != nil {
		return filepath.Base(src.store.Path())
	}
	return src.pg.Describe()
}
