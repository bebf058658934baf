package plan

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/kind"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// Import, the action of an import block whose file is new or changed: its
// people are adopted, with no call.
const Import Action = "import"

// ReasonFileChanged: an import whose file (what was read of it) or whose
// columns changed since the last import.
const ReasonFileChanged Reason = "file_changed"

// ImportedSaving counts the people the enrich blocks would have enriched
// who have an e-mail from an import (already, or by an import of this
// plan), fresh for the block: no credit is spent on them.
type ImportedSaving struct {
	People  int `json:"people"`
	Credits int `json:"credits"`
}

// ImportCurrent reports whether the state's record of an import was made
// from the file and columns configured now: a plan has no import change
// of it.
func ImportCurrent(im *config.Import, rec *state.ImportRecord) bool {
	return rec != nil && rec.Digest == im.Digest && maps.Equal(rec.Columns, im.Columns)
}

// imports plans the import blocks: an import change for a file never
// imported or changed since (its people are adopted before any call, and
// the enrich blocks count them as enriched when they come with an e-mail);
// up to date otherwise.
func (b *builder) imports() {
	for _, im := range b.cfg.Imports {
		if !b.selected(im.Address) {
			continue
		}
		rec := b.st.Imports[im.Address]
		c := &Change{Address: im.Address, Kind: kind.Import, Action: Import, Reason: ReasonNew}
		what := b.importText(im)
		switch {
		case rec == nil:
			c.Detail = what
		case !ImportCurrent(im, rec):
			c.Reason = ReasonFileChanged
			c.Detail = what + "; " + im.File + " changed since the last import"
		default:
			c.Action, c.Reason = None, ReasonUpToDate
			c.Detail = fmt.Sprintf("imported %s: %s", ago(b.now, rec.ImportedAt), plural(len(rec.PersonIDs), "person", "people"))
		}
		if c.Action == Import {
			b.v.pendingImport(im)
			if b.importNew == nil {
				b.importNew = map[string]int{}
			}
			b.importNew[im.Address] = b.importBound(im)
		}
		b.add(c)
	}
}

// importText says what an import adopts: "1,200 rows: 1,160 people
// (1,050 with an e-mail, enriched at no credit), 8 excluded, 12
// suppressed (erased: not imported), 0 calls". A person erased with
// leadsync forget is not adopted; one an exclude block names is adopted
// but never enriched nor exported, and their e-mail saves nothing.
func (b *builder) importText(im *config.Import) string {
	withEmail, excluded, suppressed := 0, 0, 0
	for i := range im.People {
		ip := &im.People[i]
		l := ip.Result.Lead()
		if b.st.IsSuppressed(l) {
			suppressed++
			continue
		}
		res := ip.Result
		if b.v.excludedBy(&state.Person{ID: state.PersonID(l), Lead: l, Enrichment: &state.Enrichment{Result: res}}) != nil {
			excluded++
			continue
		}
		if ip.HasEmail() {
			withEmail++
		}
	}
	people := len(im.People) - suppressed
	rows := plural(im.Rows, "row", "rows")
	if sh := im.SheetsText(); sh != "" {
		rows += " of " + sh
	}
	what := fmt.Sprintf("%s: %s", rows, plural(people, "person", "people"))
	if withEmail > 0 {
		what += fmt.Sprintf(" (%s with an e-mail, enriched at no credit)", thousands(withEmail))
	}
	if excluded > 0 {
		what += fmt.Sprintf(", %s excluded", thousands(excluded))
	}
	if suppressed > 0 {
		what += fmt.Sprintf(", %s suppressed (erased: not imported)", thousands(suppressed))
	}
	return what + ", 0 calls"
}

// importBound is the most people new to the state a pending import may
// give the enrich blocks reading it to enrich: those without an e-mail,
// or whose enriched_at is older than the shortest refresh of a block that
// reads the import. Its people already in the state are the import's
// known people (pendingIDs), counted as any source's.
func (b *builder) importBound(im *config.Import) int {
	var refresh time.Duration
	for _, e := range b.cfg.Enriches {
		if e.Refresh > 0 && (refresh == 0 || e.Refresh < refresh) && readsImport(b.cfg, e, im.Address) {
			refresh = e.Refresh
		}
	}
	n := 0
	for i := range im.People {
		p := &im.People[i]
		if b.st.Person(b.st.Resolve(p.Result.Lead())) != nil {
			continue
		}
		stale := refresh > 0 && !p.EnrichedAt.IsZero() && b.now.Sub(p.EnrichedAt) >= refresh
		if !p.HasEmail() || stale {
			n++
		}
	}
	return n
}

// readsImport reports whether e's from names the import.
func readsImport(cfg *config.Config, e *config.Enrich, addr string) bool {
	for _, a := range cfg.Resolve(e.From) {
		if a == addr {
			return true
		}
	}
	return false
}

// pendingEmail is what an import of this plan gives a person already in
// the state: an e-mail, enriched at that time.
type pendingEmail struct {
	at time.Time // zero: the time of the import (the plan's)
	// email and domain are what the import gives, which an exclude block
	// may name.
	email, domain string
}

// importExcludedBy returns the exclude block that names p, whom an import
// gives an e-mail, by what the state knows of them or what an import of
// this plan brings.
func (v *env) importExcludedBy(p *state.Person) *config.Exclude {
	if v.excl == nil {
		return nil
	}
	if x := v.excludedBy(p); x != nil {
		return x
	}
	pe, ok := v.pendingFor(p)
	if !ok {
		return nil
	}
	q := *p
	q.Enrichment = &state.Enrichment{Result: person.EnrichedProfile{Email: pe.email, CompanyDomain: pe.domain}}
	return v.excludedBy(&q)
}

// pendingImport records the e-mails an import planned now gives people:
// the enrich blocks count those people as enriched, as apply will find
// them once the import is recorded (before any call).
func (v *env) pendingImport(im *config.Import) {
	if v.pending == nil {
		v.pending = map[string]pendingEmail{}
		v.pendingIDs = map[string][]string{}
	}
	ids := []string{}
	seen := map[string]bool{}
	for i := range im.People {
		p := &im.People[i]
		if q := v.st.Person(v.st.Resolve(p.Result.Lead())); q != nil && !seen[q.ID] {
			seen[q.ID] = true
			ids = append(ids, q.ID)
		}
		if !p.HasEmail() {
			continue
		}
		pe := pendingEmail{at: p.EnrichedAt, email: p.Result.Email, domain: p.Result.CompanyDomain}
		if p.Result.NetworkID != "" {
			v.pending["n:"+p.Result.NetworkID] = pe
		}
		if p.Result.PageName != "" {
			v.pending["p:"+strings.ToLower(p.Result.PageName)] = pe
		}
	}
	v.pendingIDs[im.Address] = ids
	v.pendingSet = nil
	for _, id := range ids {
		q := v.st.People[id]
		if q == nil || q.Enrichment == nil || v.gone[q] || v.replacedSet[q] || !v.importReplaces(q) {
			continue
		}
		if v.replaced == nil {
			v.replaced, v.replacedSet = map[string]int{}, map[*state.Person]bool{}
		}
		v.replaced[q.Enrichment.By]++
		v.replacedSet[q] = true
	}
}

// pendingFor returns the e-mail a planned import gives p, if any.
func (v *env) pendingFor(p *state.Person) (pendingEmail, bool) {
	if len(v.pending) == 0 {
		return pendingEmail{}, false
	}
	if pe, ok := v.pending["n:"+p.Lead.NetworkID]; ok && p.Lead.NetworkID != "" {
		return pe, true
	}
	if pe, ok := v.pending["p:"+strings.ToLower(p.Lead.PageName)]; ok && p.Lead.PageName != "" {
		return pe, true
	}
	return pendingEmail{}, false
}

// importGives reports whether an import gives p an e-mail that is fresh
// for e: one p holds (an enrichment by an import block), or one an import
// of this plan brings (a person the import names whose own enrichment
// would be replaced by it).
func (v *env) importGives(e *config.Enrich, p *state.Person) bool {
	fresh := func(at time.Time) bool { return e.Refresh <= 0 || at.IsZero() || v.now.Sub(at) < e.Refresh }
	if pe, ok := v.pendingFor(p); ok && v.needsEnrich(e, p) {
		// The import replaces an enrichment older than its own (or one
		// with no date: the import's time).
		return fresh(pe.at) && (p.Enrichment == nil || pe.at.IsZero() || !p.Enrichment.EnrichedAt.After(pe.at))
	}
	return p.Enrichment.ImportedEnrichment() && fresh(p.Enrichment.EnrichedAt)
}

// importedSavings counts, over the planned enrich blocks' people, those an
// import gives an e-mail, and the credits that saves: at most the places
// each block had left (places, taken from).
func (b *builder) importedSavings(people []blockPeople, places []int, cpe int) {
	seen := map[*state.Person]bool{}
	n, saved := 0, 0
	for i, bp := range people {
		k := 0
		for _, p := range bp.imported {
			if !seen[p] {
				seen[p] = true
				k++
			}
		}
		n += k
		saved += takePlaces(places, i, k)
	}
	b.p.Savings.Imported = ImportedSaving{People: n, Credits: saved * cpe}
	b.p.Savings.CreditsMax += saved * cpe
}

// importReplaces reports whether an import of this plan replaces p's
// enrichment with its own, as the state does when it records the import:
// an e-mail enriched after p's enrichment (or undated: the import's time).
func (v *env) importReplaces(p *state.Person) bool {
	pe, ok := v.pendingFor(p)
	return ok && (pe.at.IsZero() || p.Enrichment.EnrichedAt.Before(pe.at))
}

// importNames reports whether an import of this plan names p: it fills
// in what the state lacks of p (a page name, a company), which may make p
// qualify for an enrich block.
func (v *env) importNames(p *state.Person) bool {
	if len(v.pendingIDs) == 0 {
		return false
	}
	if v.pendingSet == nil {
		v.pendingSet = map[string]bool{}
		for _, ids := range v.pendingIDs {
			for _, id := range ids {
				v.pendingSet[id] = true
			}
		}
	}
	return v.pendingSet[p.ID]
}

// importPeople returns the people of an import's record when it is
// current; for an import of this plan, its people already in the state.
func (v *env) importPeople(addr string) []string {
	if ids, ok := v.pendingIDs[addr]; ok {
		return ids
	}
	for _, im := range v.cfg.Imports {
		if im.Address == addr {
			if rec := v.st.Imports[addr]; ImportCurrent(im, rec) {
				return rec.PersonIDs
			}
		}
	}
	return nil
}
