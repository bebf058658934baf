package plan

import (
	"slices"
	"strings"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
)

// Reads is what a plan reads of a state besides its records (the
// searches, profile reads, imports, failures, splits, usage and
// suppression list, read without the searches' lead lists and without
// people). A store gives a plan only these (state.Base.Reading); a plan
// that needs every person gets them all.
type Reads struct {
	// People says the plan reads every person: it plans an enrich block,
	// or it resolves moved blocks or leadsync { retention }, all of which
	// ask about people in bulk.
	People bool
	// Searches are the searches of the state whose lead lists the plan
	// reads: those of the enrich blocks its tracks watch (EnrichedFrom),
	// and, for a plan of enrich blocks or moves, every one of Counted.
	Searches []string
	// Counted are the searches of the state whose leads the plan counts
	// and no more: those it plans (their number of leads is in the plan),
	// and the sources of the sheets of the workbooks it writes, planned
	// or not (a sheet's row bound counts their leads: continuedSheets).
	// Their lists are not read: the store counts them
	// (state.Base.CountLeads, State.LeadCount).
	Counted []string
	// Persons are the people the plan reads by ID: the persons of the
	// profile reads of the configuration's profile blocks (a read of the
	// same page by another block is shared only while its person is in
	// the state), the people of the imports the selected tracks watch:
	// the record's, and those a file to import names (importReads).
	Persons []string
	// Sources are the searches of the state whose lead lists and people
	// the plan reads: the sources of the selected tracks (trackReads).
	Sources []string
	// Tracks are the selected track blocks: the plan reads the people
	// each read before (Person.Tracked: the store's index people_tracked).
	Tracks []string
	// Enriched are the enrich blocks the selected tracks watch (a track
	// of the enriched): the plan reads the people each enriched or
	// copied, and those of an enrichment no credit was spent on
	// (EnrichedIDs), not every person of EnrichedFrom, the searches of
	// their sources, whose lead lists it reads (Searches).
	Enriched, EnrichedFrom []string
	// Sketched says the people of Enriched whom nothing else names are
	// read as state.TrackSketch keeps them, not whole: all the plan asks
	// of them (sketchesEnriched; beside enrich blocks with refresh_on,
	// enrich_refreshon_sketch.go). An apply holds them so (EnrichedInto), and its engine reads
	// whole those its track reads, a page at a time as the reads come.
	Sketched bool
	// Pageless says the sketches keep whether each has a page name, not
	// the name: no profile block is planned, whose reads a track shares
	// by page name (state.TrackSketchBuilder.Pageless).
	Pageless bool
	// Imports are the selected import blocks (their people are among
	// Persons, or Pages).
	Imports []string
	// Pages are the page names of the members known by page name only
	// of a file to import that a selected track watches (importReads).
	// The state's people of such a name, in any letter case, are found by
	// a store's index of page names (State.ReadRefs, for an apply); Read,
	// which has none, reads every person for them.
	Pages []string
	// Colleagues says the plan matches the people of its tracks or
	// imports against an exclude block by domain, which learns the
	// companies and domains of every enrichment first: the plan asks the
	// store for them (ReadColleagues), not for every person.
	Colleagues bool
}

// Foldable reports whether an apply of the plan may run on a partial
// state holding what the plan reads (the people of its tracks and
// imports too), whose folds read what each call changes
// (state/partialfold.go): it reads no person in bulk. The company domains
// an exclude block by domain learns (Colleagues) are then the store's,
// with the partial state's people (Candidates.WithColleagues), for the
// plan, a saved plan's check and the run.
func (r Reads) Foldable() bool {
	return !r.People
}

// ReadsOf says what Build reads of a state, given its records, to plan
// cfg with opts: Build over those records plus what Reads names makes
// the same plan as Build over the whole state (TestReadsMakeTheSamePlan).
// Targets and replacements that Build refuses need nothing more: the plan
// is their errors.
func ReadsOf(cfg *config.Config, records *state.State, opts Options) Reads {
	if records == nil {
		records = &state.State{}
	}
	// With moves given, what the state will hold once they are made,
	// read where it is held now (Moving.back).
	records = opts.Moved.records(records)
	b := &builder{cfg: cfg, st: records, opts: opts}
	b.selectTargets()
	b.selectReplace()
	if b.diags.HasErrors() {
		return Reads{}
	}
	if b.readsEveryone() {
		return Reads{People: true}
	}
	r := b.partReads(records)
	if r.People {
		return r
	}
	r.Sketched = b.sketchesEnriched(r)
	r.Pageless = r.Sketched && !b.readsProfiles()
	if opts.Moved != nil && len(opts.Moved.Moves) > 0 {
		// The counts are the store's, by the addresses before the moves.
		r.readCounted()
		return opts.Moved.back(r)
	}
	r.Counted = slices.DeleteFunc(r.Counted, func(addr string) bool {
		return slices.Contains(r.Searches, addr) || slices.Contains(r.Sources, addr)
	})
	return r
}

// readCounted makes r read the lead lists it counts (Counted) whole,
// for a plan that needs their IDs or reads them where the store's counts
// do not answer.
func (r *Reads) readCounted() {
	r.Searches = append(r.Searches, r.Counted...)
	r.Counted = nil
	slices.Sort(r.Searches)
	r.Searches = slices.Compact(r.Searches)
}

// partReads are the lead lists and people a plan that reads no person in
// bulk reads (ReadsOf).
func (b *builder) partReads(records *state.State) Reads {
	var r Reads
	for addr := range records.Searches {
		if b.selected(addr) {
			r.Counted = append(r.Counted, addr)
		}
	}
	r.Counted = append(r.Counted, b.exportSearches()...)
	slices.Sort(r.Counted)
	r.Counted = slices.Compact(r.Counted)
	b.trackReads(&r)
	b.importReads(&r)
	for _, p := range b.cfg.Profiles {
		rec := records.Profiles[p.Address]
		if rec == nil || rec.PersonID == "" {
			continue
		}
		if strings.HasPrefix(rec.PersonID, state.PagePrefix) {
			// Known by page name: finding them may need the page-name
			// index of every person (State.Person).
			return Reads{People: true}
		}
		r.Persons = append(r.Persons, rec.PersonID)
	}
	if b.expiredRead() && !b.opts.Expired.Kept {
		// The people retention removes: read whole, asked each (else
		// Expired.ReadKept reads them).
		r.Persons = b.opts.Expired.IDs.AppendTo(r.Persons)
	}
	slices.Sort(r.Persons)
	r.Persons = slices.Compact(r.Persons)
	return r
}

// readsEveryone reports whether the plan asks about people in bulk: the
// blocks whose planning reads people (enrich) are selected, or moved
// blocks or retention are to be resolved (moved blocks do not when the
// store resolved them, Options.Moved; retention does not when the
// store named the people it removes: Options.Expired). An export reads no person
// (exportSearches); a track or an import reads some (trackReads,
// importReads).
func (b *builder) readsEveryone() bool {
	if (len(b.cfg.Moves) > 0 && b.opts.Moved == nil) || (b.retains() && !b.expiredRead()) {
		return true
	}
	var bulk []string // the blocks whose planning reads people
	for _, e := range b.cfg.Enriches {
		bulk = append(bulk, e.Address)
	}
	return slices.ContainsFunc(bulk, b.selected)
}

// exportSearches are the searches of the state whose lead lists the
// selected exports' plans count: the sources of each sheet of people of
// a workbook (sheetRowsMax), whether the plan runs them or not. A
// targeted export selects its sources (selectTargets), so they are among
// the selected searches too; this keeps the bound's reads explicit. The
// rest of an export's plan reads records: the data mark, splits, imports.
func (b *builder) exportSearches() []string {
	var out []string
	for _, x := range b.cfg.Exports {
		if !b.selected(x.Address) || !workbook(x) {
			continue
		}
		for _, sh := range x.Sheets {
			if len(sh.Changes) > 0 {
				continue // a sheet of changes: not counted
			}
			for _, src := range b.cfg.Resolve(sh.From) {
				if b.st.Searches[src] != nil {
					out = append(out, src)
				}
			}
		}
	}
	return out
}
