package plan

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/leadsync/leadsync/internal/kind"
)

// forgetsMost notes a plan that forgets more than half of the searches
// and profile reads the state holds.
func (b *builder) forgetsMost() {
	held := len(b.st.Searches) + len(b.st.Profiles)
	forgotten := 0
	for _, c := range b.p.Changes {
		if c.Action != Forget {
			continue
		}
		if _, ok := b.st.Searches[c.Address]; ok {
			forgotten++
		} else if _, ok := b.st.Profiles[c.Address]; ok {
			forgotten++
		}
	}
	if held > 0 && 2*forgotten > held {
		b.p.ForgetsMost = &ForgetsMost{Forgotten: forgotten, Held: held}
	}
}

// totals sums the changes and bounds the duration.
func (b *builder) totals() {
	b.forgetsMost()
	t := &b.p.Totals
	cpe := b.creditsPerEnrich()
	for _, c := range b.p.Changes {
		t.Calls += c.Calls
		t.Credits += c.Credits
		switch {
		case c.Action == Forget:
			t.Forgets++
		case c.Action == Update:
			t.Updates++
		case c.Action == Moved:
			t.Moves++
		case c.Action == Write:
			t.Writes++
		case c.Action == Import:
			t.Imports++
		case c.Kind == kind.Enrich:
			t.Enrichments += c.Calls
			t.Reuses += c.Reuses
		case c.Kind == kind.Search:
			t.Searches += c.Calls
			t.SearchesMax += c.CallsMax
		case c.Kind == kind.Profile:
			t.Profiles += c.Calls
		case c.Kind == kind.Track:
			t.Tracks += c.Calls
		}
	}
	t.EnrichmentsMax = b.enrichMax
	if t.EnrichmentsMax < t.Enrichments {
		t.EnrichmentsMax = t.Enrichments
	}
	t.CallsMax = t.SearchesMax + t.Profiles + t.Tracks + t.EnrichmentsMax
	t.CreditsMax = t.EnrichmentsMax * cpe
	// The monthly quota applies to the first generation (spec section 8):
	// enrich exists only there; searches and profile reads use it when
	// api.generation is 1.
	t.QuotaCalls, t.QuotaCallsMax = t.Enrichments, t.EnrichmentsMax
	if b.searchesUseQuota() {
		// Track reads are profile reads.
		t.QuotaCalls += t.Searches + t.Profiles + t.Tracks
		t.QuotaCallsMax += t.SearchesMax + t.Profiles + t.Tracks
	}
	t.RateLimit = b.cfg.API.RateLimit
	if t.RateLimit <= 0 {
		t.RateLimit = 1
	}
	t.Parallelism = b.cfg.API.Parallelism
	if t.Parallelism <= 0 {
		t.Parallelism = 1
	}
	t.DurationSecondsMax = durationMax(t.SearchesMax, t.CallsMax-t.SearchesMax, t.RateLimit, t.Parallelism)
}

// durationMax bounds the wall time of a run, in whole seconds. Calls start at
// most rate per second. A search holds one of the parallelism slots for up to
// SearchLatency, so searches also go no faster than parallelism per
// SearchLatency; the other calls are counted at the rate only (the spec gives
// them no latency). The last search may finish SearchLatency after it started.
func durationMax(searches, others int, rate float64, par int) int {
	if searches+others == 0 {
		return 0
	}
	lat := SearchLatency.Seconds()
	s := float64(searches) / rate
	if batches := (searches + par - 1) / par; batches > 1 {
		s = math.Max(s, float64(batches-1)*lat)
	}
	d := s + float64(others)/rate
	if searches > 0 {
		d += lat
	}
	return int(math.Ceil(d))
}

// costBreakdown lists what each block may cost, the largest first: searches
// and profiles grouped by block. Calls are those that use the monthly quota.
func (b *builder) costBreakdown(credits bool) string {
	type cost struct {
		block     string
		instances int
		n         int
		known     int
	}
	byBlock := map[string]*cost{}
	var order []*cost
	for _, c := range b.p.Changes {
		n, known := c.CallsMax, c.Calls
		if credits {
			n, known = c.CreditsMax, c.Credits
		} else if c.Kind != kind.Enrich && !b.searchesUseQuota() {
			continue // a second-generation call: no quota
		}
		if n == 0 {
			continue
		}
		blk := blockOf(c.Address)
		k := byBlock[blk]
		if k == nil {
			k = &cost{block: blk}
			byBlock[blk] = k
			order = append(order, k)
		}
		k.instances++
		k.n += n
		k.known += known
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].n > order[j].n })
	unit := "call"
	if credits {
		unit = "credit"
	}
	var sb strings.Builder
	sb.WriteString("What each block may cost:\n")
	for _, k := range order {
		what := plural(k.n, unit, unit+"s")
		if k.known < k.n {
			what = "up to " + what
			if k.known > 0 {
				what += fmt.Sprintf(" (%s certain)", thousands(k.known))
			}
		}
		inst := ""
		if k.instances > 1 {
			inst = fmt.Sprintf(" (%d instances)", k.instances)
		}
		fmt.Fprintf(&sb, "  %s%s: %s\n", k.block, inst, what)
	}
	if credits {
		if b.enrichMax < sumEnrichMax(b.p.Changes) {
			fmt.Fprintf(&sb, "  (people shared by several blocks are counted once in the total: up to %s enrichments)\n", thousands(b.enrichMax))
		}
	}
	return sb.String()
}

func sumEnrichMax(cs []*Change) int {
	n := 0
	for _, c := range cs {
		if c.Kind == kind.Enrich {
			n += c.CallsMax
		}
	}
	return n
}

func rangePtr(r hcl.Range) *hcl.Range {
	if r.Filename == "" {
		return nil
	}
	return &r
}
