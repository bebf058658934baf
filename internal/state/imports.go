package state

import (
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/address"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
)

// ImportPrefix starts the address of an import block (import.evaboot).
const ImportPrefix = "import."

// ImportRecord is the record of the last import of an import block: which
// file content it was, and the people it adopted. Like a search's record,
// it is what the block's people are (from = [import.x]) until the file is
// imported again.
type ImportRecord struct {
	Address string `json:"address"`
	// File is the file as the configuration named it; Digest the digest of
	// what was read (listfile): the plan imports again when it differs.
	File   string `json:"file"`
	Digest string `json:"digest"`
	// Columns are the fields read, each with its column's header.
	Columns    map[string]string `json:"columns,omitempty"`
	ImportedAt time.Time         `json:"imported_at"`
	// Rows is the file's data rows; PersonIDs the people it named, in the
	// order of their first row (erased people left out, Suppressed counts
	// them).
	Rows       int      `json:"rows"`
	PersonIDs  []string `json:"person_ids"`
	Suppressed int      `json:"suppressed,omitempty"`
	// Enriched counts the people it gave an e-mail (an enrichment at no
	// credit).
	Enriched int `json:"enriched"`
}

// ImportEvent adopts the people of a list file another tool exported:
// nothing is called, nothing is charged. One event holds the whole file,
// so that an import is in the state whole or not at all.
type ImportEvent struct {
	File    string            `json:"file"`
	Digest  string            `json:"digest"`
	Columns map[string]string `json:"columns,omitempty"`
	Rows    int               `json:"rows"`
	People  []ImportedPerson  `json:"people"`
}

// ImportedPerson is one member a file names, with what it says of them as
// an enrichment result would.
type ImportedPerson struct {
	Result person.EnrichedProfile `json:"result"`
	// EnrichedAt is when the other tool enriched them (the file's
	// enriched_at); nil: when they were imported.
	EnrichedAt *time.Time `json:"enriched_at,omitempty"`
}

// IsImport reports whether an address is an import block's, in the root
// (import.evaboot) or in a module (module.dach.import.evaboot).
func IsImport(addr string) bool { return address.Kind(addr) == kind.Import }

// ImportedEnrichment reports whether an enrichment came from an import
// (no credit was spent on it).
func (e *Enrichment) ImportedEnrichment() bool { return e != nil && IsImport(e.By) }

func (e *Event) validateImport() error {
	if e.Import == nil {
		return fmt.Errorf("import event for %q has no people", e.Address)
	}
	if !IsImport(e.Address) {
		return fmt.Errorf("import event for %q: not an import address", e.Address)
	}
	for i, p := range e.Import.People {
		if p.Result.NetworkID == "" && p.Result.PageName == "" {
			return fmt.Errorf("import event for %q: person %d has neither a network ID nor a page name", e.Address, i+1)
		}
	}
	return nil
}

// importPeople records an import: each person is added or merged (the
// file fills what the state does not know yet, never replacing what the
// service said), gets the import among FoundBy and, with an e-mail, an
// enrichment by the import (unless the one they hold is newer). People
// erased with leadsync forget are not adopted again. The people of the
// previous import no longer in the file lose it from FoundBy; their
// enrichments stay.
func (a *applier) importPeople(addr string, ie *ImportEvent) {
	s := a.s
	rec := &ImportRecord{Address: addr, File: ie.File, Digest: ie.Digest, Columns: ie.Columns, ImportedAt: a.at, Rows: ie.Rows, PersonIDs: []string{}}
	set := s.suppressedSet()
	seen := map[string]bool{}
	for _, ip := range ie.People {
		l := ip.Result.Lead()
		if set != nil && suppressedLead(set, l) {
			rec.Suppressed++
			continue
		}
		id := a.adopt(l)
		p := s.People[id]
		addFoundBy(p, addr)
		if ip.Result.Email != "" {
			at := a.at
			if ip.EnrichedAt != nil && !ip.EnrichedAt.IsZero() {
				at = ip.EnrichedAt.UTC()
			}
			if p.Enrichment == nil || p.Enrichment.EnrichedAt.Before(at) {
				res := ip.Result
				res.CreditBalance = 0
				a.replaceEnrichment(p, &Enrichment{EnrichedAt: at, By: addr, Result: res})
			}
			if p.Enrichment.By == addr {
				rec.Enriched++
			}
		}
		s.touchPerson(id)
		if !seen[id] {
			seen[id] = true
			rec.PersonIDs = append(rec.PersonIDs, id)
		}
	}
	// Re-keys later in the file may have renamed people adopted earlier.
	ids := rec.PersonIDs[:0]
	final := map[string]bool{}
	for _, id := range rec.PersonIDs {
		id = a.current(id)
		if !final[id] {
			final[id] = true
			ids = append(ids, id)
		}
	}
	rec.PersonIDs = ids
	if prev := s.Imports[addr]; prev != nil {
		for _, id := range prev.PersonIDs {
			if !final[id] {
				removeFoundBy(s.People[id], addr)
				s.touchPerson(id)
			}
		}
	}
	if s.Imports == nil {
		s.Imports = map[string]*ImportRecord{}
	}
	s.Imports[addr] = rec
	s.touchMeta()
}

// adopt records a lead read from a file and returns its person's ID. A
// new person is the file's lead; a known one keeps what the service said
// and takes from the file only what the state lacks.
func (a *applier) adopt(l person.Lead) string {
	s := a.s
	if l.NetworkID != "" && l.PageName != "" {
		for _, old := range []string{s.byPage(l.PageName), PagePrefix + l.PageName} {
			if strings.HasPrefix(old, PagePrefix) && s.People[old] != nil {
				a.rekey(old, l.NetworkID)
			}
		}
	}
	if l.FullName == "" && (l.FirstName != "" || l.LastName != "") {
		l.FullName = strings.TrimSpace(l.FirstName + " " + l.LastName)
	}
	id := s.Resolve(l)
	p := s.People[id]
	if p == nil {
		p = &Person{ID: id, Lead: l, FirstSeen: a.at, LastSeen: a.at}
		guessNames(&p.Lead)
		s.addPerson(p)
		return id
	}
	fill := func(d *string, v string) {
		if *d == "" {
			*d = v
		}
	}
	d := &p.Lead
	if d.FirstName == "" && d.LastName == "" {
		d.FirstName, d.LastName = l.FirstName, l.LastName
	}
	fill(&d.FullName, l.FullName)
	fill(&d.Title, l.Title)
	fill(&d.Location, l.Location)
	fill(&d.Company, l.Company)
	if d.NetworkID == "" && l.NetworkID != "" && !strings.HasPrefix(id, PagePrefix) {
		d.NetworkID = l.NetworkID
	}
	if d.PageName == "" && l.PageName != "" {
		s.setPageName(p, l.PageName)
	}
	guessNames(d)
	return id
}

// forgetImport drops the record of an import block removed from the
// configuration, and the block from its people's FoundBy; the people and
// their enrichments stay.
func (a *applier) forgetImport(addr string) {
	s := a.s
	rec := s.Imports[addr]
	if rec == nil {
		return
	}
	for _, id := range rec.PersonIDs {
		removeFoundBy(s.People[id], addr)
		s.touchPerson(id)
	}
	delete(s.Imports, addr)
	s.touchMeta()
}

// dropImported takes a person removed from the state out of the record of
// the import at addr (an erasure counts them as suppressed, as a search
// does).
func (s *State) dropImported(addr, id string, erase bool) {
	ir := s.Imports[addr]
	if ir == nil {
		return
	}
	ir.PersonIDs = removeID(ir.PersonIDs, id)
	if erase {
		ir.Suppressed++
	}
	s.touchMeta()
}
