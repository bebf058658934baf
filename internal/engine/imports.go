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
	Saved      int
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
		r.sum.Imported = append(r.sum.Imported, ImportOutcome{Address: im.Address, Rows: rec.Rows, People: len(rec.PersonIDs),
			Enriched: rec.Enriched, Saved: r.importSaved(im.Address, rec), Suppressed: rec.Suppressed})
	}
	return nil
}

// importSaved counts the people the import at addr gave an e-mail whom no
// exclude block names.
func (r *runner) importSaved(addr string, rec *state.ImportRecord) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, id := range rec.PersonIDs {
		p := r.st.People[id]
		if p == nil || p.Enrichment == nil || !p.Enrichment.ImportedEnrichment() || p.Enrichment.By != addr {
			continue
		}
		if !r.cands.Excludes(r.st, p, r.planTime()) {
			n++
		}
	}
	return n
}

func findImport(cfg *config.Config, addr string) *config.Import {
	for _, im := range cfg.Imports {
		if im.Address == addr {
			return im
		}
	}
	return nil
}
