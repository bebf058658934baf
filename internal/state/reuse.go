package state

import (
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// ReusedPrefix starts the By of an enrichment copied from another
// workspace of the backend (workspace.dach): it was paid for there, not
// here, and takes no place under an enrich block's limit here.
const ReusedPrefix = "workspace."

// ReusedFrom is the workspace an enrichment was copied from, "" when it
// was made (or imported) here.
func (e *Enrichment) ReusedFrom() string {
	if e == nil {
		return ""
	}
	ws, _ := strings.CutPrefix(e.By, ReusedPrefix)
	if ws == e.By {
		return ""
	}
	return ws
}

// Reusable is an enrichment another workspace of the backend holds of a
// person: copied here instead of paid again.
type Reusable struct {
	Workspace  string     `json:"workspace"`
	Enrichment Enrichment `json:"enrichment"`
}

// LookupKeys are the keys a person is looked up by in other workspaces:
// "n:" and their network ID, "p:" and their page name in lower case (the
// network ignores its case).
func LookupKeys(p *Person) []string { return AppendLookupKeys(nil, p) }

// AppendLookupKeys appends the LookupKeys of p to out.
func AppendLookupKeys(out []string, p *Person) []string {
	nid := p.Lead.NetworkID
	if nid == "" && !strings.HasPrefix(p.ID, PagePrefix) && !strings.HasPrefix(p.ID, anonPrefix) {
		nid = p.ID
	}
	if nid != "" {
		out = append(out, "n:"+nid)
	}
	if p.Lead.PageName != "" {
		out = append(out, "p:"+strings.ToLower(p.Lead.PageName))
	}
	return out
}

// ReuseEvent copies the enrichment another workspace holds of a person:
// no call, no credit. Its time is the original enrichment's, so a refresh
// comes due as it would have there.
type ReuseEvent struct {
	PersonID   string     `json:"person_id"`
	Workspace  string     `json:"workspace"`
	Enrichment Enrichment `json:"enrichment"`
}

func (e *Event) validateReuse() error {
	if e.Reuse == nil || e.Reuse.PersonID == "" || e.Reuse.Workspace == "" {
		return fmt.Errorf("reuse event for %q has no person or workspace", e.Address)
	}
	return nil
}

// reuse records an enrichment copied from another workspace by the enrich
// block addr, unless the person is gone (erased, removed) or holds a newer
// one.
func (a *applier) reuse(addr string, re *ReuseEvent) {
	s := a.s
	p := s.Person(re.PersonID)
	if p == nil || s.IsSuppressed(p.Lead) {
		return
	}
	if p.Enrichment != nil && !p.Enrichment.EnrichedAt.Before(re.Enrichment.EnrichedAt) {
		return
	}
	e := re.Enrichment
	e.By, e.CopiedBy = ReusedPrefix+re.Workspace, addr
	e.Result.CreditBalance = 0
	a.replaceEnrichment(p, &e)
	s.touchPerson(p.ID)
}

// replaceEnrichment gives p the enrichment e that no call of this
// workspace made (an import's, another workspace's). The e-mail it
// replaces is history, as when an enrichment is made again.
func (a *applier) replaceEnrichment(p *Person, e *Enrichment) {
	if old := p.Enrichment; old != nil {
		a.drift(p, DriftEmail, old.Result.Email, e.Result.Email)
		if old.Result.Email != "" && e.Result.Email == "" {
			a.record(p, Drift{Field: DriftEmail, Before: old.Result.Email})
		}
	}
	p.Enrichment = e
}

// Unpaid reports whether no credit was spent on the enrichment here: it
// was imported, or copied from another workspace.
func (e *Enrichment) Unpaid() bool { return e.ImportedEnrichment() || e.ReusedFrom() != "" }

// Unpaid counts the people whose enrichment no credit was spent on here:
// those an import gave an e-mail, and those whose enrichment was copied
// from another workspace.
func (s *State) Unpaid() (imported, reused int) {
	for _, p := range s.People {
		switch {
		case p == nil || p.Enrichment == nil:
		case p.Enrichment.ImportedEnrichment():
			imported++
		case p.Enrichment.ReusedFrom() != "":
			reused++
		}
	}
	return imported, reused
}

// QuotaCallsSince counts the calls of p's record made after t that used
// the monthly quota: their enrichment, and their last track read when it
// was of the first generation (a track read is a profile read of its own:
// the profile blocks' reads are never read again by a track).
func (p *Person) QuotaCallsSince(t time.Time) int {
	n := 0
	if p.Enrichment != nil && p.Enrichment.EnrichedAt.After(t) {
		n++
	}
	if p.CheckedAt != nil && p.CheckedAt.After(t) && p.CheckedGeneration == api.Gen1 {
		n++
	}
	return n
}

// Status is the status of the enrichment's e-mail, person.StatusEmpty
// when the service gave none.
func (e *Enrichment) Status() string { return EmailStatus(e.Result.ValidationStatus) }

// EmailStatus is the status of an e-mail the service validated as
// validation (its validationStatus): person.StatusEmpty for "".
func EmailStatus(validation string) string {
	if validation == "" {
		return person.StatusEmpty
	}
	return validation
}
