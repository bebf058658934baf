package engine

import (
	"fmt"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/plan"
	"github.com/leadsync/leadsync/internal/state"
)

// ImportOutcome is what one import block adopted.
type ImportOutcome struct {
	Address string
	Rows    int // data rows of the file
	People  int // people adopted (erased people left out)
	// Enriched are those who came with an e-mail: enriched at no credit.
	Enriched int
	// Saved are those of Enriched no exclude block names: an excluded
	// person would not be enriched anyway, so their e-mail saves nothing.
	Saved int
	// Excluded are the people adopted whom an exclude block names (with
	// an e-mail or not): they count as excluded, as the plan counts them.
	// Saved and Excluded are counted again at the end of the run, with
	// what it learned (a colleague's domain), so that the run's figures
	// are the next plan's for the same state.
	Excluded   int
	Suppressed int // people erased with leadsync forget, not adopted again
}

// imports records the plan's imports, before any call: each file's people
// in one event, so that an import is in the state whole or not at all and
// the enrich blocks find the people it gives an e-mail enriched.
func (r *runner) imports() error {
	for _, c := range r.opts.Plan.Changes {
		if c.Action != plan.Import {
			continue
		}
		im := findImport(r.opts.Config, c.Address)
		if im == nil {
			return fmt.Errorf("the plan names %s, which the configuration does not declare; run plan again", c.Address)
		}
		ev := &state.Event{At: r.now(), Kind: state.EventImport, Address: im.Address, Import: im.Event()}
		if err := r.record(ev); err != nil {
			return err
		}
		rec := r.st.Imports[im.Address]
		out := ImportOutcome{Address: im.Address, Rows: rec.Rows, People: len(rec.PersonIDs), Enriched: rec.Enriched, Suppressed: rec.Suppressed}
		out.Saved, out.Excluded = r.importCounts(im.Address)
		r.sum.Imported = append(r.sum.Imported, out)
	}
	return nil
}

// importCounts counts the people the import at addr adopted whom an
// exclude block names (excluded), and of the others those it gave an
// e-mail (saved): each person once, excluded first, as the plan counts
// them (importText, env.count).
func (r *runner) importCounts(addr string) (saved, excluded int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rec := r.st.Imports[addr]
	if rec == nil {
		return 0, 0
	}
	for _, id := range rec.PersonIDs {
		p := r.st.Person(id)
		switch {
		case p == nil:
		case r.cands.Excludes(r.st, p, r.planTime()):
			excluded++
		case p.Enrichment != nil && p.Enrichment.ImportedEnrichment() && p.Enrichment.By == addr:
			saved++
		}
	}
	return saved, excluded
}

func findImport(cfg *config.Config, addr string) *config.Import {
	for _, im := range cfg.Imports {
		if im.Address == addr {
			return im
		}
	}
	return nil
}
