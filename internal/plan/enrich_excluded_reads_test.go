package plan

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// TestExcludedReadsHoldEveryoneNamed checks excludedReads against the
// whole state in 400 random worlds of exclude blocks: every person a
// block names over the whole state (config.ValuesOf, with the company
// domains of every enrichment learned), and every person whose sketch
// (state.Sketch: its network ID is the person's ID) a block would name,
// is among the people it reads whole. Some people have no company of
// their own and one from their enrichment, which a block by company
// names; some are keyed by a network ID that is not their lead's, which a
// block by network ID names.
func TestExcludedReadsHoldEveryoneNamed(t *testing.T) {
	byEnrichment, bySketch := 0, 0
	for seed := range 400 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5e7c))
		f, _ := enrichWorld(rng)
		f.cfg.Excludes = nil
		nids := rekeyedPeople(rng, f.st)
		companies := enrichmentCompanies(rng, f.st)
		for i, by := range []listfile.Kind{listfile.Company, listfile.NetworkID, listfile.Domain, listfile.Email} {
			if rng.IntN(2) == 0 {
				continue
			}
			vals := map[listfile.Kind][]string{listfile.Company: append(companies, "Nobody Inc"), listfile.NetworkID: append(nids, "1.ff"),
				listfile.Domain: {"acme1.com"}, listfile.Email: {"x@example.com"}}[by]
			f.exclude(fmt.Sprintf("r%d", i), by, vals...)
		}
		if len(f.cfg.Excludes) == 0 {
			continue
		}
		ids, ok, err := excludedReads(f.cfg, enrichBase(f.st))
		if err != nil || !ok {
			t.Fatalf("seed %d: excludedReads: %v, %v", seed, ok, err)
		}
		read := map[string]bool{}
		for _, id := range ids {
			read[id] = true
		}
		x := f.cfg.Exclusion()
		known, err := state.NewBase(f.st).CompanyDomainsOf(x.ListsDomain)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range known {
			x.Learn(c.Company, c.Domain)
		}
		for _, id := range sortedPeople(f.st) {
			p := f.st.People[id]
			enr := p.Enrichment
			v := config.ValuesOf(p.Lead, p.ID, nil)
			if enr != nil {
				v = config.ValuesOf(p.Lead, p.ID, &enr.Result)
			}
			named := x.Match(v) != nil
			s := state.Sketch(p)
			sketched := x.Match(config.ValuesOf(s.Lead, s.ID, nil)) != nil
			if (named || sketched) && !read[id] {
				t.Fatalf("seed %d: %s (lead %+v) is named (whole %v, sketch %v) but not read whole", seed, id, p.Lead, named, sketched)
			}
			if named && p.Lead.Company == "" && enr != nil && enr.Result.Company != "" {
				byEnrichment++
			}
			if sketched && p.Lead.NetworkID != "" && p.Lead.NetworkID != id {
				bySketch++
			}
		}
	}
	if byEnrichment < 20 || bySketch < 20 {
		t.Fatalf("%d people named by their enrichment's company, %d by their sketch's network ID: the test no longer tests them", byEnrichment, bySketch)
	}
}

// rekeyedPeople adds people keyed by a network ID whose lead holds
// another (as after a re-key), some enriched, and returns their IDs.
func rekeyedPeople(rng *rand.Rand, st *state.State) []string {
	ids := sortedPeople(st)
	var out []string
	for i := range rng.IntN(4) {
		if len(ids) == 0 {
			break
		}
		p := *st.People[ids[rng.IntN(len(ids))]]
		p.ID = fmt.Sprintf("%d.abc", 100+i)
		p.Lead.NetworkID = fmt.Sprintf("%d.def", 100+i)
		st.People[p.ID] = &p
		out = append(out, p.ID)
	}
	return out
}

// enrichmentCompanies empties the lead's company of some enriched people
// whose enrichment names one of its own, and returns those companies.
func enrichmentCompanies(rng *rand.Rand, st *state.State) []string {
	var out []string
	for _, id := range sortedPeople(st) {
		p := st.People[id]
		if p.Enrichment == nil || rng.IntN(3) > 0 {
			continue
		}
		c := *p.Enrichment
		c.Result.Company = fmt.Sprintf("Globex %d", rng.IntN(3))
		p.Enrichment, p.Lead.Company = &c, ""
		out = append(out, c.Result.Company)
	}
	return out
}
