package state

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
)

// String returns the kind as written in the journal.
func (k EventKind) String() string { return string(k) }

// Validate checks that an event carries what its kind needs, so that an
// event that could not be folded is never written to the journal (where it
// would make every later load fail).
func (e *Event) Validate() error {
	if e == nil {
		return fmt.Errorf("no event")
	}
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("%s event for %q has no %s", e.Kind, e.Address, what)
		}
		return nil
	}
	switch e.Kind {
	case EventSearch:
		if err := need(e.Search != nil, "search result"); err != nil {
			return err
		}
		if e.Search.MaxResults < 0 {
			return fmt.Errorf("search event for %q: max_results %d is negative", e.Address, e.Search.MaxResults)
		}
		return need(e.Address != "", "address")
	case EventProfile:
		if err := need(e.Profile != nil, "profile"); err != nil {
			return err
		}
		if err := need(e.Profile.PageName != "", "page name"); err != nil {
			return err
		}
		return need(e.Address != "", "address")
	case EventEnrich:
		if err := need(e.Enrich != nil, "enrich result"); err != nil {
			return err
		}
		if e.Enrich.Credits < 0 {
			return fmt.Errorf("enrich event for %q: credits %d is negative", e.Address, e.Enrich.Credits)
		}
		return need(e.Enrich.PersonID != "" || e.Enrich.Result.NetworkID != "" || e.Enrich.Result.PageName != "", "person")
	case EventBilling:
		return need(e.Billing != nil, "usage")
	case EventFailure:
		if err := need(e.Failure != nil, "failure"); err != nil {
			return err
		}
		return need(e.Address != "", "address")
	case EventForget:
		return need(e.Address != "", "address")
	case EventEnrichUnknown, EventEnrichPending, EventEnrichVoid:
		return e.validateUnknown()
	case EventForgetPeople:
		if err := need(e.People != nil, "people"); err != nil {
			return err
		}
		if r := e.People.Reason; r != ForgetErasure && r != ForgetRetention {
			return fmt.Errorf("forget_people event: unknown reason %q", r)
		}
		return nil
	case EventTrim, EventProfileShare:
		return e.validateUpdate()
	case EventMove:
		return e.validateMove()
	case EventImport:
		return e.validateImport()
	case EventReuse:
		return e.validateReuse()
	case EventTrack:
		return e.validateTrack()
	case EventSplit:
		if err := need(e.Split != nil, "sub-search result"); err != nil {
			return err
		}
		if e.Split.MaxResults < 0 {
			return fmt.Errorf("split event for %q: max_results %d is negative", e.Address, e.Split.MaxResults)
		}
		if len(e.Split.Path) > len(e.Split.Dimensions) {
			return fmt.Errorf("split event for %q: a path of %d values for %d dimensions", e.Address, len(e.Split.Path), len(e.Split.Dimensions))
		}
		return need(e.Address != "" && e.Split.Hash != "", "address and hash")
	}
	return fmt.Errorf("unknown event kind %q (written by a newer leadsync?)", string(e.Kind))
}

// Fold records one completed call (or forget) in the state: it folds the
// event into s. It is the one way a state changes, live and on replay
// ("apply" is the command that makes calls, never this). It depends only on
// the state and the event (never on the clock), so replaying a journal
// gives exactly the state the live run had. An invalid event is refused
// before anything changes.
//
// A marked event (EventMark) the state holds already is skipped: its copy
// kept in a rescue file and the one its backend stored count once.
func (s *State) Fold(e Event) error {
	if err := s.foldable(&e); err != nil {
		return err
	}
	if s.folded(&e) {
		return nil
	}
	defer s.noteMark(&e)
	s.Normalize()
	s.lastDrifts = s.lastDrifts[:0]
	if e.Kind == EventMove {
		// No call, no address of its own: nothing to clear, no change of a
		// person's fields.
		s.foldMove(e.Move)
		return nil
	}
	a := applier{s: s, at: e.At, by: e.Address, call: callOf(e.Kind)}
	defer a.settleDrifts()
	s.touchFailure(e.Address)
	switch e.Kind {
	case EventSearch:
		a.search(e.Address, e.Search)
	case EventProfile:
		a.profile(e.Address, e.Profile)
	case EventEnrich:
		a.enrich(e.Address, e.Enrich)
	case EventBilling:
		at := e.At
		n := e.Billing.RemainingRequests
		s.Usage.RemainingRequests = &n
		s.Usage.InvoicingStartDate = e.Billing.InvoicingStartDate
		s.Usage.CheckedAt = &at
		s.touchUsage()
	case EventFailure:
		f := *e.Failure
		if f.At.IsZero() {
			f.At = e.At
		}
		s.Failures[e.Address] = &f
		return nil
	case EventForget:
		a.forget(e.Address)
		a.forgetImport(e.Address)
		a.forgetTrack(e.Address)
		delete(s.Failures, e.Address)
		return nil
	case EventEnrichUnknown:
		// The block's other people are unaffected: no failure recorded.
		s.foldUnknown(e)
		return nil
	case EventEnrichPending:
		s.foldPending(e)
		return nil
	case EventEnrichVoid:
		s.settlePending(e.Enrich.PersonID)
		s.resolveUnknown(e.Enrich.PersonID)
		return nil
	case EventForgetPeople:
		a.forgetPeople(e.People)
		return nil
	case EventSplit:
		a.split(e.Address, e.Split)
	case EventTrim:
		// No call: the address's last failure, if any, still stands.
		a.trim(e.Address, e.Trim)
		return nil
	case EventProfileShare:
		a.shareProfile(e.Address, e.Share)
	case EventImport:
		a.importPeople(e.Address, e.Import)
	case EventReuse:
		a.reuse(e.Address, e.Reuse)
		return nil // no call of the block: its last failure stands
	case EventTrack:
		a.track(e.Address, e.Track)
	}
	// Any success clears the address's last failure.
	delete(s.Failures, e.Address)
	return nil
}

// Normalize makes a zero or hand-built State usable: nil maps become empty
// ones (the page-name index is kept). Fold calls it; so do the codec and
// the backends before they write.
func (s *State) Normalize() {
	if s.Searches == nil || s.Profiles == nil || s.People == nil || s.Failures == nil || s.Suppressed == nil {
		idx := s.idx
		s.normalize()
		s.idx = idx
	}
}

// applier carries what one Fold call needs: the re-keys it made, so that
// IDs collected before a re-key can be mapped to the person's new ID.
type applier struct {
	s  *State
	at time.Time
	// by and call are the event's address and Drift.Call: who saw the
	// drifts this call records.
	by, call string
	renamed  map[string]string // old ID -> new ID, this call only
}

// settleDrifts names the people of the drifts recorded by their IDs after
// any re-key of this call.
func (a *applier) settleDrifts() {
	for i := range a.s.lastDrifts {
		a.s.lastDrifts[i].PersonID = a.current(a.s.lastDrifts[i].PersonID)
	}
}

// current follows re-keys made during this call.
func (a *applier) current(id string) string {
	for i := 0; i < 8; i++ { // a chain is at most page: -> networkId; stay finite
		n, ok := a.renamed[id]
		if !ok {
			return id
		}
		id = n
	}
	return id
}

// distinct returns the people of ids by their current IDs (re-keys later
// in a list may have renamed people seen earlier), each once, in the
// order of ids, and the set of them; it reuses ids.
func (a *applier) distinct(ids []string) ([]string, map[string]struct{}) {
	seen := make(map[string]struct{}, len(ids))
	out := ids[:0]
	for _, id := range ids {
		id = a.current(id)
		if _, dup := seen[id]; dup {
			continue
		}
		seen[id] = struct{}{}
		out = append(out, id)
	}
	return out, seen
}

// Resolve returns the ID a lead is (or would be) kept under in s: its
// networkId when known, else the person already known by its page name, else
// PersonID.
func (s *State) Resolve(l person.Lead) string {
	if l.NetworkID != "" {
		return l.NetworkID
	}
	if id := s.byPage(l.PageName); id != "" {
		return id
	}
	return PersonID(l)
}

// Person returns the person kept under id, following a "page:" ID to the
// person it was re-keyed to. Nil when unknown.
func (s *State) Person(id string) *Person {
	if p := s.People[id]; p != nil {
		return p
	}
	if page, ok := strings.CutPrefix(id, PagePrefix); ok {
		return s.People[s.byPage(page)]
	}
	return nil
}

// upsert records a lead seen at a.at and returns its person's ID.
func (a *applier) upsert(l person.Lead) string {
	s := a.s
	if l.NetworkID != "" && l.PageName != "" {
		// The person may be known by page name only so far: re-key them.
		for _, old := range []string{s.byPage(l.PageName), PagePrefix + l.PageName} {
			if strings.HasPrefix(old, PagePrefix) && s.People[old] != nil {
				a.rekey(old, l.NetworkID)
			}
		}
	}
	id := s.Resolve(l)
	p := s.People[id]
	if p == nil {
		p = &Person{ID: id, Lead: l, FirstSeen: a.at}
		s.addPerson(p)
	} else {
		a.mergeLead(p, l)
	}
	guessNames(&p.Lead)
	p.LastSeen = a.at
	s.touchPerson(id)
	return id
}

// mergeLead refreshes p's lead fields with the non-empty fields of l: the
// newest answer of the service wins, field by field, and an empty field
// never erases a known one (every field but the keys, whose row in
// person.PersonFields merges by MergeKey). l carries only what the service
// said: a raw result or a profile has no first and last name, so its lead
// has none (a guess from the full name is made by guessNames, and only for
// a person who has no names at all). The networkId of a person keyed by it
// is their identity and never changes.
func (a *applier) mergeLead(p *Person, l person.Lead) {
	d := &p.Lead
	// What the person shows of their job and place is history when it
	// changes (the table's History rows: title, company, location).
	for _, f := range person.LeadFields {
		if f.History {
			a.drift(p, f.Key, *f.Lead(d), *f.Lead(&l))
		}
	}
	for _, f := range person.LeadFields {
		if v := *f.Lead(&l); v != "" && f.Merge != person.MergeKey {
			*f.Lead(d) = v
		}
	}
	if l.NetworkID != "" && (d.NetworkID == "" || strings.HasPrefix(p.ID, PagePrefix) || strings.HasPrefix(p.ID, anonPrefix)) {
		d.NetworkID = l.NetworkID
	}
	if l.PageName != "" {
		a.s.setPageName(p, l.PageName)
	}
}

// guessNames fills l's first and last name from its full name when it has
// neither (person.SplitFullName). The guess is for people the service gave no
// first and last name: those known from raw results and profile reads
// only. It never replaces a name: a person with a first or last name keeps
// it, and the service's own names (a plain search, an enrichment) replace
// a guess through mergeLead.
func guessNames(l *person.Lead) {
	if l.FirstName != "" || l.LastName != "" || l.FullName == "" {
		return
	}
	l.FirstName, l.LastName = person.SplitFullName(l.FullName)
}

// withoutNames is l without first and last name. The leads of a raw result
// carry none; journals written before that carry a guess from displayName,
// which must not pass for the service's own names on replay.
func withoutNames(l person.Lead) person.Lead {
	l.FirstName, l.LastName = "", ""
	return l
}

// rekey moves the person old (known by page name only) to the ID id, merging
// with a person already there, and fixes every reference to old.
func (a *applier) rekey(old, id string) {
	s := a.s
	op := s.People[old]
	if op == nil || old == id {
		return
	}
	if a.renamed == nil {
		a.renamed = map[string]string{}
	}
	a.renamed[old] = id
	if u := s.UnknownEnrichments[old]; u != nil {
		delete(s.UnknownEnrichments, old)
		s.UnknownEnrichments[id] = u
		s.touchMeta()
	}
	s.removePerson(old)
	np := s.People[id]
	if np == nil {
		op.ID = id
		op.Lead.NetworkID = id
		s.addPerson(op)
		np = op
	} else {
		mergePeople(np, op)
		s.indexPage(np)
	}
	// FoundBy lists every search and profile record that refers to old.
	s.touchPerson(old)
	s.touchPerson(id)
	s.touchHistory(id, -1) // the person's history moves with them
	for _, addr := range op.FoundBy {
		if sr := s.Searches[addr]; sr != nil {
			sr.LeadIDs = replaceID(sr.LeadIDs, old, id)
			s.touchSearch(addr)
		}
		if pr := s.Profiles[addr]; pr != nil && pr.PersonID == old {
			pr.PersonID = id
			s.touchProfile(addr)
		}
		if ir := s.Imports[addr]; ir != nil {
			ir.PersonIDs = replaceID(ir.PersonIDs, old, id)
			s.touchMeta()
		}
	}
	// Runs under way refer to people without FoundBy.
	if len(s.Splits) > 0 {
		s.touchMeta()
	}
	for _, t := range s.Splits {
		for _, n := range t.Nodes {
			n.LeadIDs = replaceID(n.LeadIDs, old, id)
		}
	}
}

// mergePeople folds src into dst: the union of what each knows, the newer
// profile and enrichment winning.
func mergePeople(dst, src *Person) {
	mergeLeads(&dst.Lead, &src.Lead)
	if !src.FirstSeen.IsZero() && (dst.FirstSeen.IsZero() || src.FirstSeen.Before(dst.FirstSeen)) {
		dst.FirstSeen = src.FirstSeen
	}
	if src.LastSeen.After(dst.LastSeen) {
		dst.LastSeen = src.LastSeen
	}
	for _, addr := range src.FoundBy {
		addFoundBy(dst, addr)
	}
	if src.Profile != nil && (dst.Profile == nil || newer(src.ProfileReadAt, dst.ProfileReadAt)) {
		dst.Profile, dst.ProfileReadAt = src.Profile, src.ProfileReadAt
	}
	if src.Enrichment != nil && (dst.Enrichment == nil || src.Enrichment.EnrichedAt.After(dst.Enrichment.EnrichedAt)) {
		dst.Enrichment = src.Enrichment
	}
	if len(dst.Raw) == 0 {
		dst.Raw = src.Raw
	}
	dst.History = mergeHistory(dst.History, src.History)
	if newer(src.Checked(), dst.Checked()) {
		dst.Status, dst.StatusSince = src.Status, src.StatusSince
	}
	if newer(src.CheckedAt, dst.CheckedAt) {
		dst.CheckedAt, dst.CheckedGeneration = src.CheckedAt, src.CheckedGeneration
	}
	mergeTracked(dst, src)
}

// mergeLeads fills the lead fields dst lacks from src, by the merge of
// each field's row in person.PersonFields. The names (MergeName) go as a
// pair: half of one person's name and half of the other's would be
// nobody's. Of the keys, only a missing page name is taken: the networkId
// of dst is the ID it is kept under.
func mergeLeads(dst, src *person.Lead) {
	noName := true
	for _, f := range person.LeadFields {
		if f.Merge == person.MergeName && *f.Lead(dst) != "" {
			noName = false
		}
	}
	for _, f := range person.LeadFields {
		d := f.Lead(dst)
		switch f.Merge {
		case person.MergeName:
			if noName {
				*d = *f.Lead(src)
			}
		case person.MergeNewest:
			if *d == "" {
				*d = *f.Lead(src)
			}
		}
	}
	if dst.PageName == "" {
		dst.PageName = src.PageName
	}
}

func newer(a, b *time.Time) bool {
	if a == nil {
		return false
	}
	return b == nil || a.After(*b)
}

// replaceID replaces old by id in ids, dropping old instead when id is
// already there, so that the list stays free of duplicates.
func replaceID(ids []string, old, id string) []string {
	at, has := -1, false
	for i, x := range ids {
		switch x {
		case old:
			at = i
		case id:
			has = true
		}
	}
	if at < 0 {
		return ids
	}
	if has {
		return append(ids[:at], ids[at+1:]...)
	}
	ids[at] = id
	return ids
}

// search records a completed search.
func (a *applier) search(addr string, se *SearchEvent) {
	s := a.s
	if s.Splits[addr] != nil {
		delete(s.Splits, addr) // a split run under way is of another request
		s.touchMeta()
	}
	kept := se.Leads
	var orig []int // index in se.Leads of each kept lead, when some were dropped
	suppressed := 0
	if set := s.suppressedSet(); set != nil {
		// Erased people are dropped before anything is kept of them;
		// max_results counts the others.
		kept = make([]person.Lead, 0, len(se.Leads))
		orig = make([]int, 0, len(se.Leads))
		for i, l := range se.Leads {
			if suppressedLead(set, l) {
				suppressed++
				continue
			}
			kept = append(kept, l)
			orig = append(orig, i)
		}
	}
	if limit := KeepAtMost(se.MaxResults); len(kept) > limit {
		kept = kept[:limit]
	}
	raw := rawFor(se)
	ids := make([]string, 0, len(kept))
	for i, l := range kept {
		if len(se.Raw) > 0 {
			l = withoutNames(l)
		}
		id := a.upsert(l)
		ids = append(ids, id)
		ri := i
		if orig != nil {
			ri = orig[i]
		}
		if r := raw(ri, l); r != nil {
			s.People[id].Raw = r
		}
	}
	// Re-keys later in the list may have renamed people seen earlier.
	ids, seen := a.distinct(ids)
	for _, id := range ids {
		addFoundBy(s.People[id], addr)
		s.touchPerson(id)
	}

	rec := &Search{
		Address:     addr,
		Generation:  se.Generation,
		Request:     se.Request,
		RequestHash: se.RequestHash,
		RanAt:       a.at,
		ResultCount: len(se.Leads),
		MaxResults:  se.MaxResults,
		Capped:      len(se.Leads) >= api.MaxResults,
		LeadIDs:     ids,
		Suppressed:  suppressed,
	}
	if rec.RequestHash == "" {
		rec.RequestHash = RequestHash(se.Generation, se.Request)
	}
	rec.Changed = s.changedBy(ids, addr, a.at)
	a.putSearch(rec, seen)
}

// KeepAtMost is the number of leads a search's run keeps of its answer:
// its max_results, or the network's cap of api.MaxResults without one. An
// answer that holds more than the cap (a service that does not hold to the
// spec) is cut there too: the first leads are kept, the count it held stays
// in the record's ResultCount.
func KeepAtMost(maxResults int) int {
	if maxResults > 0 && maxResults < api.MaxResults {
		return maxResults
	}
	return api.MaxResults
}

// putSearch makes rec the record of its search, counting the runs and the
// people added and removed since the previous record; seen holds rec's
// LeadIDs.
func (a *applier) putSearch(rec *Search, seen map[string]struct{}) {
	s := a.s
	addr := rec.Address
	ids := rec.LeadIDs
	rec.Runs = 1
	if prev := s.Searches[addr]; prev != nil {
		rec.Runs = prev.Runs + 1
		// prev.LeadIDs were kept current by any re-key above.
		old := make(map[string]struct{}, len(prev.LeadIDs))
		for _, id := range prev.LeadIDs {
			old[id] = struct{}{}
			if _, still := seen[id]; !still {
				rec.Removed++
				removeFoundBy(s.People[id], addr)
				s.touchPerson(id)
			}
		}
		for _, id := range ids {
			if _, was := old[id]; !was {
				rec.Added++
			}
		}
	}
	s.Searches[addr] = rec
	s.touchSearch(addr)
}

// rawFor returns a function giving the raw item of the i-th lead (l), as
// JSON, or nil. Raw items line up with leads when there are as many of them;
// otherwise they are matched by networkId.
func rawFor(se *SearchEvent) func(i int, l person.Lead) json.RawMessage {
	if len(se.Raw) == 0 {
		return func(int, person.Lead) json.RawMessage { return nil }
	}
	enc := func(r api.RawLead) json.RawMessage {
		b, err := json.Marshal(r)
		if err != nil {
			return nil
		}
		return b
	}
	if len(se.Raw) == len(se.Leads) {
		return func(i int, _ person.Lead) json.RawMessage { return enc(se.Raw[i]) }
	}
	byID := make(map[string]int, len(se.Raw))
	for i, r := range se.Raw {
		if id := r.Node.NetworkID.ID; id != "" {
			if _, dup := byID[id]; !dup {
				byID[id] = i
			}
		}
	}
	return func(_ int, l person.Lead) json.RawMessage {
		if i, ok := byID[l.NetworkID]; ok && l.NetworkID != "" {
			return enc(se.Raw[i])
		}
		return nil
	}
}

// profile records a completed profile read.
func (a *applier) profile(addr string, pe *ProfileEvent) {
	s := a.s
	// A profile has a full name but no first and last name: upsert
	// guesses them only for a person who has none.
	l := person.Lead{FullName: pe.Profile.FullName, PageName: profilePage(pe)}
	if len(pe.Profile.CurrentPosition) > 0 {
		l.Title = pe.Profile.CurrentPosition[0].JobTitle
		l.Company = pe.Profile.CurrentPosition[0].Company
	}
	if s.IsSuppressed(l) {
		// An erased person: the read is recorded (so it is not made
		// again), the person is not.
		if prev := s.Profiles[addr]; prev != nil && prev.PersonID != "" {
			removeFoundBy(s.People[prev.PersonID], addr)
			s.touchPerson(prev.PersonID)
		}
		rec := &ProfileRead{Address: addr, Generation: pe.Generation, Request: pe.Request, RequestHash: pe.RequestHash, ReadAt: a.at}
		if rec.RequestHash == "" {
			rec.RequestHash = RequestHash(pe.Generation, pe.Request)
		}
		s.Profiles[addr] = rec
		s.touchProfile(addr)
		return
	}
	before := false
	if known := s.Person(s.Resolve(l)); known != nil {
		before = readBefore(known)
	}
	id := a.upsert(l)
	p := s.People[id]
	prof := profileRead(p.Profile, pe.Profile)
	at := a.at
	p.Profile, p.ProfileReadAt = &prof, &at
	status := ""
	if prof.Private {
		status = StatusPrivate
	}
	a.setStatus(p, status, before)
	if prev := s.Profiles[addr]; prev != nil && prev.PersonID != id {
		removeFoundBy(s.People[prev.PersonID], addr)
		s.touchPerson(prev.PersonID)
	}
	addFoundBy(p, addr)
	rec := &ProfileRead{
		Address:     addr,
		Generation:  pe.Generation,
		Request:     pe.Request,
		RequestHash: pe.RequestHash,
		ReadAt:      at,
		PersonID:    id,
	}
	if rec.RequestHash == "" {
		rec.RequestHash = RequestHash(pe.Generation, pe.Request)
	}
	s.Profiles[addr] = rec
	s.touchProfile(addr)
	s.touchPerson(id)
}

// profilePage is the page name a profile read is kept under: the one asked
// for, in the spelling of the profile's own address (networkUrl) when that
// is the same page. The network ignores the case of page names, so a
// page_name written in another case than the network's finds the person a
// search found, rather than make a second one.
func profilePage(pe *ProfileEvent) string {
	if u := api.PageOfURL(pe.Profile.NetworkURL); u != "" && strings.EqualFold(u, pe.PageName) {
		return u
	}
	return pe.PageName
}

// enrich records a completed enrichment.
func (a *applier) enrich(addr string, ee *EnrichEvent) {
	s := a.s
	res := ee.Result
	rl := res.Lead()
	bal, at := res.CreditBalance, a.at
	s.Usage.CreditBalance, s.Usage.CreditBalanceAt = &bal, &at
	s.Usage.CreditsSpent += ee.Credits
	s.Usage.chargeMonth(at, ee.Credits)
	s.touchUsage()
	if s.IsSuppressed(rl) || (ee.PersonID != "" && s.Person(ee.PersonID) == nil && s.suppressedID(ee.PersonID)) {
		s.settlePending(ee.PersonID)
		s.resolveUnknown(ee.PersonID)
		return // an erased person: the credits were spent, the result is not kept
	}
	var p *Person
	if ee.PersonID != "" {
		p = s.Person(ee.PersonID)
	}
	if p == nil && res.NetworkID != "" {
		p = s.People[res.NetworkID]
	}
	if p == nil && res.PageName != "" {
		p = s.People[s.byPage(res.PageName)]
	}
	if p == nil {
		// Unknown person: keep the result under the best ID there is.
		id := ee.PersonID
		if rl.NetworkID != "" || rl.PageName != "" || id == "" {
			id = a.upsert(rl)
		} else {
			np := &Person{ID: id, Lead: rl, FirstSeen: a.at, LastSeen: a.at}
			guessNames(&np.Lead)
			s.addPerson(np)
		}
		p = s.People[id]
	} else {
		if res.NetworkID != "" && p.ID != res.NetworkID && strings.HasPrefix(p.ID, PagePrefix) {
			a.rekey(p.ID, res.NetworkID)
			p = s.People[res.NetworkID]
		}
		a.mergeLead(p, rl)
		guessNames(&p.Lead)
	}
	if p.Enrichment != nil {
		// The e-mail replaced (another employer's, or none now) is history.
		a.drift(p, DriftEmail, p.Enrichment.Result.Email, res.Email)
		if old := p.Enrichment.Result.Email; old != "" && res.Email == "" {
			a.record(p, Drift{Field: DriftEmail, Before: old})
		}
	}
	p.Enrichment = &Enrichment{EnrichedAt: a.at, By: addr, Result: res}
	s.settlePending(ee.PersonID, p.ID)
	s.resolveUnknown(ee.PersonID, p.ID)
	s.touchPerson(p.ID)
}

// forget drops the record of addr and addr from the people it found; the
// people and their enrichments stay.
func (a *applier) forget(addr string) {
	s := a.s
	if sr := s.Searches[addr]; sr != nil {
		for _, id := range sr.LeadIDs {
			removeFoundBy(s.People[id], addr)
			s.touchPerson(id)
		}
		delete(s.Searches, addr)
		s.touchSearch(addr)
	}
	if pr := s.Profiles[addr]; pr != nil {
		removeFoundBy(s.People[pr.PersonID], addr)
		s.touchPerson(pr.PersonID)
		delete(s.Profiles, addr)
		s.touchProfile(addr)
	}
	if s.Splits[addr] != nil {
		delete(s.Splits, addr)
		s.touchMeta()
	}
}
