package views

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
)

// Forget is the view of `leadsync forget`: what it will erase (before the
// question), what it did with each PERSON and each other workspace, and
// the total.
type Forget struct{ w io.Writer }

// NewForget returns the view of forget, writing to w.
func NewForget(w io.Writer) Forget { return Forget{w} }

// Confirmation says what forget will erase for good: each PERSON, and the
// other workspaces where the same is done. The question follows (Confirm).
func (v Forget) Confirmation(people []run.Forgotten, workspaces []string) {
	w := newLineWriter(v.w)
	w.printf("leadsync forget will erase for good:\n")
	for _, p := range people {
		switch p.Outcome {
		case run.ForgetRemoved:
			w.printf("  - %s: remove %s from the state%s, and suppress them\n", p.Ident, personLabel(p.Person), forgetWhat(p.Person))
		case run.ForgetSuppressed:
			w.printf("  - %s: not in the state; suppress it, so that no search brings them in\n", p.Ident)
		default:
			w.printf("  %s\n", forgetLine(p))
		}
	}
	if len(workspaces) > 0 {
		w.printf("and the same in the other workspaces: %s.\n", strings.Join(workspaces, ", "))
	}
	_ = w.flush()
}

// Cancelled says the question was not answered "yes".
func (v Forget) Cancelled() {
	fmt.Fprintln(v.w, "\nForget cancelled; nothing was changed.")
}

// Done says what forget did with each PERSON and in each other workspace,
// then (when it added suppression entries) this call's count and the
// list's total in where (the state as the command names it).
func (v Forget) Done(res *run.ForgetResult, where string) {
	w := newLineWriter(v.w)
	for _, p := range res.People {
		w.printf("%s\n", forgetLine(p))
	}
	for _, ws := range res.Workspaces {
		w.printf("%s\n", workspaceErasureLine(ws))
	}
	if res.Entries > 0 {
		// This call's count and the list's total apart: the total
		// includes earlier erasures.
		w.printf("%s; %s %s suppressed in %s in total.%s\n",
			forgetCount(res.People), Plural(res.Suppressed, "person"), isAre(res.Suppressed), where, rewriteNote(res.People))
	}
	_ = w.flush()
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
		return "Forgot " + Plural(removed, "person")
	case removed == 0:
		return fmt.Sprintf("Removed nobody from the state: %s not in it %s suppressed from now on", Plural(suppressed, "person"), isAre(suppressed))
	}
	return fmt.Sprintf("Forgot %s: removed from the state; %s not in it %s suppressed from now on", Plural(removed, "person"), Plural(suppressed, "person"), isAre(suppressed))
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
