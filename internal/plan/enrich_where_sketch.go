package plan

import (
	"slices"

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
// whole, as before: a sketch's page name says it was not read. So does a
// plan with a profile block: a sketch failing where may come to pass it
// when a read of this run finds its page (changedBy, by page name), so
// its bound needs the page name (profilesPlanned).

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
// read, when ix can (leadSketcher), they read lead only so (sketchKeys)
// and the plan reads no profile (profiles: profilesPlanned), and reports
// whether it did: else the caller reads them whole.
func (f *EnrichFacts) whereSketches(blocks []*config.Enrich, ix EnrichStore, profiles bool) (bool, error) {
	s, ok := ix.(leadSketcher)
	if !ok || !wheres(blocks) || profiles {
		return false, nil
	}
	keys, ok := sketchKeys(blocks)
	if !ok {
		return false, nil
	}
	if len(keys) > 0 {
		if err := s.SketchLeads(f.sketches, keys); err != nil {
			return false, err
		}
	}
	f.leadSketches = true
	return true, nil
}

// profilesPlanned reports whether the plan of cfg with opts selects a
// profile block, whose read finds its person by page name (readNow).
func profilesPlanned(cfg *config.Config, records *state.State, opts Options) bool {
	b := &builder{cfg: cfg, st: records, opts: opts}
	b.selectTargets()
	return b.readsProfiles()
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
