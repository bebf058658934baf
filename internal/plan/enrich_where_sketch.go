package plan

import (
	"slices"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// A where is evaluated on the lead of each person to enrich, and the
// people the plan reads in sketch (the stale enrichments, the imported
// e-mails: enrichReads) may be among them. When every where of the
// blocks reads lead only by the names of its fields, those people stay
// sketches given the fields named (whereSketches, state.LeadSketcher),
// and are not read whole: the where gives on them what it gives on the
// people read whole. A where that fails to evaluate on one of them would
// name them by what a sketch does not hold (displayName): the plan then
// needs everyone (sketchWhere), and the whole state's plan fails
// as it does. A where naming the page name or the network ID reads them
// whole, as before: a sketch's page name says it was not read. Beside a
// profile block, a sketch failing where may come to pass it when a read
// of this run finds its page (changedBy, by page name): its bound needs
// the page name. The sketches' page names are then read with the where's
// fields, and those whose page a profile block of the plan reads are
// read whole (pagedSketches); the others stay sketches.

// leadSketcher gives sketches lead fields (state.Base.SketchLeads).
type leadSketcher interface {
	SketchLeads(ps []*state.Person, keys []string) error
}

// unsketchable are the lead fields a sketch keeps for what it is: its
// page name (state.PageUnread) and its network ID (none).
var unsketchable = []string{"pageName", "networkId"}

// sketchKeys are the lead fields every where of blocks reads, and true
// when each reads lead only by such names, none unsketchable.
func sketchKeys(blocks []*config.Enrich) ([]string, bool) {
	var keys []string
	for _, e := range blocks {
		if e.Where == nil {
			continue
		}
		ks, narrow := e.WhereLeadKeys()
		if !narrow {
			return nil, false
		}
		for _, k := range ks {
			if slices.Contains(unsketchable, k) {
				return nil, false
			}
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys, true
}

// whereSketches gives f's sketches the lead fields the wheres of blocks
// read, when ix can (leadSketcher) and they read lead only so
// (sketchKeys), and reports whether it did: else the caller reads them
// all whole. With pages (profilePages), it reads their page names too
// and returns the IDs of those whose page a profile block of the plan
// reads, taken out of the sketches (pagedSketches): the caller reads them
// whole.
func (f *EnrichFacts) whereSketches(blocks []*config.Enrich, ix EnrichStore, pages map[string]bool) (whole []string, sketched bool, err error) {
	s, ok := ix.(leadSketcher)
	if !ok || !wheres(blocks) {
		return nil, false, nil
	}
	keys, ok := sketchKeys(blocks)
	if !ok {
		return nil, false, nil
	}
	f.leadKeys = keys
	if f.asks != nil && len(pages) == 0 {
		// Read with the fields at once (readPacked).
		f.leadSketches = true
		return nil, true, nil
	}
	if err := f.unpack(); err != nil {
		return nil, false, err
	}
	if len(pages) > 0 {
		for _, p := range f.sketches {
			p.Lead.PageName = "" // a person the store does not hold has none
		}
		keys = append(keys, "pageName")
	}
	if len(keys) > 0 {
		if err := s.SketchLeads(f.sketches, keys); err != nil {
			return nil, false, err
		}
	}
	if len(pages) > 0 {
		whole = f.pagedSketches(pages)
	}
	f.leadSketches = true
	return whole, true, nil
}

// pagedSketches takes out of f's sketches, given their page names, those
// whose page is one of pages (api.PageKey), and returns their IDs: read
// whole, their page name tells that a read of this run may change them
// (readNow). The others get a sketch's page name back (PageUnread).
func (f *EnrichFacts) pagedSketches(pages map[string]bool) []string {
	var ids []string
	f.sketches = slices.DeleteFunc(f.sketches, func(p *state.Person) bool {
		page := p.Lead.PageName
		p.Lead.PageName = state.PageUnread
		if page != "" && pages[api.PageKey(page)] {
			ids = append(ids, p.ID)
			return true
		}
		return false
	})
	f.pagedWhole += len(ids)
	return ids
}

// profilePages are the page keys (api.PageKey) of the profile blocks the
// plan of cfg with opts selects: a read of such a page finds its person
// by page name (readNow). It holds the blocks that plan no read too (a
// superset: their sketches are read whole for nothing, never missed).
// Nil when it selects none.
func profilePages(cfg *config.Config, records *state.State, opts Options) map[string]bool {
	b := &builder{cfg: cfg, st: records, opts: opts}
	b.selectTargets()
	var pages map[string]bool
	for _, p := range cfg.Profiles {
		if k := api.PageKey(p.PageName); k != "" && b.selected(p.Address) {
			if pages == nil {
				pages = map[string]bool{}
			}
			pages[k] = true
		}
	}
	return pages
}

// sketchWhere counts an evaluation of e's where on p (err: how it
// failed) when p is a person read in sketch with the fields it names
// (whereSketches), and reports whether it failed so: then the plan needs
// everyone (the people read do not decide it), so that it fails as the
// whole state's plan does, naming p as it does.
func (v *env) sketchWhere(e *config.Enrich, p *state.Person, err error) (failed bool) {
	f := v.facts
	if f == nil || !f.leadSketches || p.Lead.PageName != state.PageUnread {
		return false
	}
	f.sketchWheres++
	if err == nil {
		return false
	}
	f.needsEveryone, f.sketchFailed = true, true
	f.undecide(e.Address)
	return true
}
