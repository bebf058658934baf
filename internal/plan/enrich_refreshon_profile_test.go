package plan

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/state"
)

// TestEnrichReadsWithAProfileAndRefreshOn plans worlds of an enrich block
// with refresh_on EnrichReadsOf answers, with a profile block of a
// person of the state (their page name in other letters, read before or
// not: a read of this run may show them changed): the plan over what
// EnrichReadsOf names is the whole state's.
func TestEnrichReadsWithAProfileAndRefreshOn(t *testing.T) {
	compared, reading := 0, 0
	for seed := range 800 {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x9f0e))
		f, o := enrichWorld(rng)
		if !anyRefreshOn(f.cfg) {
			f.cfg.Enriches[0].RefreshOn = []string{state.DriftCompany}
		}
		ids := sortedPeople(f.st)
		if len(ids) == 0 {
			continue
		}
		p := f.st.People[ids[rng.IntN(len(ids))]]
		if p.Lead.PageName == "" {
			continue
		}
		page := p.Lead.PageName
		if rng.IntN(2) == 0 {
			page = strings.ToUpper(page)
		}
		pr := f.profile(fmt.Sprintf("profile.w%d", seed), page)
		if rng.IntN(3) == 0 {
			f.read(pr.Address, t0.Add(-40*day))
		}
		if o.Targets != nil && rng.IntN(2) == 0 {
			o.Targets = append(o.Targets, pr.Address)
		}
		b := enrichBase(f.st)
		if _, _, ok, _ := EnrichReadsOf(f.cfg, b.Records, o, b); !ok {
			continue
		}
		if !planOfEnrich(t, seed, f, o).compared {
			continue
		}
		compared++
		got, _ := Build(f.cfg, f.st, o)
		if c := got.Change(pr.Address); c != nil && c.Action == Read {
			reading++
		}
	}
	t.Logf("%d worlds compared, %d with the profile read in the run", compared, reading)
	if compared < 150 || reading < 50 {
		t.Fatalf("%d worlds compared, %d with the profile read in the run: the test no longer tests refresh_on with a profile block", compared, reading)
	}
}

// TestASCIIPageKey: the page key of an ASCII page name without spaces at
// its ends is api.PageKey's; any other is left to api.PageKey.
func TestASCIIPageKey(t *testing.T) {
	for _, page := range []string{"max-mustermann_1", "Max.Mustermann", "KS", "a", " x", "x ", "\\tx", "ſam", "Kelvin\u212a", "ümit"} {
		got, ok := asciiPageKey(nil, []byte(page))
		if ascii := strings.TrimSpace(page) == page && !strings.ContainsFunc(page, func(r rune) bool { return r >= 0x80 }); ok != ascii {
			t.Errorf("%q: ok %v, want %v", page, ok, ascii)
		}
		if ok && string(got) != api.PageKey(page) {
			t.Errorf("%q: key %q, want api.PageKey's %q", page, got, api.PageKey(page))
		}
	}
}
