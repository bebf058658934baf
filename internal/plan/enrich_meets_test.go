package plan

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/kind"
)

// TestEnrichReadsWithATrackOrAnImport plans worlds of an enrich block
// EnrichReadsOf answers, with a track (of the searches, or of the people
// the block enriched), some of whose people it read before, and an
// import, which the track watches or not, of members by network ID, by
// page name only, and by a page name in other letters: planned together,
// the plan over what EnrichReadsOf names is the whole state's.
func TestEnrichReadsWithATrackOrAnImport(t *testing.T) {
	compared, tracked, imported, gives := 0, 0, 0, 0
	for seed := range 600 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x7ac4))
		f, o := enrichWorld(rng)
		b := enrichBase(f.st)
		if _, _, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b); !ok {
			continue
		}
		var from []string
		for _, s := range f.cfg.Searches {
			from = append(from, s.Address)
		}
		if rng.IntN(3) == 0 {
			from = []string{f.cfg.Enriches[0].Address} // the people it enriched
		}
		tr := f.track("w", 30*day, from...)
		if rng.IntN(4) > 0 {
			im := worldImport(rng, f, 20)
			if rng.IntN(2) == 0 {
				tr.From = append(tr.From, im)
			}
			meetPages(rng, f)
		}
		if o.Targets != nil {
			o.Targets = append(o.Targets, blockTargets(rng, f)...)
		}
		for _, id := range sortedPeople(f.st) {
			if f.st.People[id].Lead.PageName != "" && rng.IntN(3) == 0 {
				f.trackRead(tr.Address, id, t0.Add(-10*day), "CTO", f.st.People[id].Lead.Company, false)
			}
		}
		if !planOfEnrich(t, seed, f, o).compared {
			continue
		}
		compared++
		got, _ := Build(f.cfg, f.st, o)
		for _, c := range got.Changes {
			tracked += btoi(c.Kind == kind.Track && c.Action == Track)
			imported += btoi(c.Kind == kind.Import && c.Action == Import)
		}
		gives += btoi(got.Savings.Imported.People > 0)
	}
	t.Logf("%d worlds compared: %d tracks read, %d imports run, %d with e-mails imported", compared, tracked, imported, gives)
	if compared < 150 || tracked < 50 || imported < 50 || gives < 20 {
		t.Fatalf("%d worlds compared, %d tracks read, %d imports run, %d with e-mails imported: the test no longer tests EnrichReadsOf with a track or an import",
			compared, tracked, imported, gives)
	}
}

// meetPages makes members of the import known by page name only, or by
// their page name in upper case beside their network ID.
func meetPages(rng *rand.Rand, f *fixture) {
	im := f.cfg.Imports[len(f.cfg.Imports)-1]
	for i := range im.People {
		r := &im.People[i].Result
		if r.PageName == "" {
			continue
		}
		switch rng.IntN(4) {
		case 0:
			r.NetworkID = ""
		case 1:
			r.PageName = strings.ToUpper(r.PageName)
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
