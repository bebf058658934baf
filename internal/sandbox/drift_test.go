package sandbox

import (
	"maps"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/person"
)

func TestNoDriftIsTheGeneratedPopulation(t *testing.T) {
	base := New(Options{People: 1500})
	for _, o := range []Options{{People: 1500, Epoch: 7}, {People: 1500, Drift: 0.3}, {People: 1500, Drift: 0, Epoch: MaxEpoch}} {
		s := New(o)
		if s.population() != base.population() {
			t.Errorf("drift %v epoch %d: not the generated population", o.Drift, o.Epoch)
		}
		if len(s.Changes()) != 0 {
			t.Errorf("drift %v epoch %d: %d changes, want none", o.Drift, o.Epoch, len(s.Changes()))
		}
	}
}

func TestDriftIsDeterministicAndCumulative(t *testing.T) {
	// Built twice without the process's cache: the same seed gives the
	// same changes.
	base := populationFor(3, 2000)
	a, b := base.drift(3, 0.2, 3, false), base.drift(3, 0.2, 3, false)
	if !reflect.DeepEqual(a.changes, b.changes) || !reflect.DeepEqual(a.members, b.members) {
		t.Fatal("the same seed, drift and epoch gave different populations")
	}
	other := populationFor(4, 2000).drift(4, 0.2, 3, false)
	if reflect.DeepEqual(a.changes, other.changes) {
		t.Error("seeds 3 and 4 drifted alike")
	}
	// Epoch 3 holds the changes of epochs 1 and 2 as they were.
	for e := 1; e < 3; e++ {
		earlier := base.drift(3, 0.2, e, false).changes
		var upTo []Change
		for _, c := range a.changes {
			if c.Epoch <= e {
				upTo = append(upTo, c)
			}
		}
		if !reflect.DeepEqual(earlier, upTo) {
			t.Errorf("epoch %d's changes are not those of epoch 3 up to %d", e, e)
		}
	}
}

func TestDriftShareAndKinds(t *testing.T) {
	const people = 4000
	s := New(Options{People: people, Drift: 0.15, Epoch: 1})
	moved := map[string]bool{}
	kinds := map[DriftKind]int{}
	fields := map[string]int{}
	for _, c := range s.Changes() {
		if c.Epoch != 1 {
			t.Fatalf("a change at epoch %d of a population at epoch 1", c.Epoch)
		}
		moved[c.PageName] = true
		kinds[c.Kind]++
		for _, f := range c.Fields() {
			fields[f]++
		}
		if c.Kind == DriftJob && len(c.Fields()) == 0 {
			t.Errorf("%s: a job change that changed nothing", c.PageName)
		}
		if c.Kind != DriftJob && c.Before != c.After {
			t.Errorf("%s: %s changed the job", c.PageName, c.Kind)
		}
	}
	// The public members move with probability 0.15; about 3 % are private.
	share := float64(len(moved)) / people
	if math.Abs(share-0.15*0.97) > 0.02 {
		t.Errorf("%.3f of members moved at drift 0.15, want about %.3f", share, 0.15*0.97)
	}
	for _, k := range []DriftKind{DriftJob, DriftLeft, DriftPrivate} {
		if kinds[k] == 0 {
			t.Errorf("no change of kind %s", k)
		}
	}
	for _, f := range []string{"title", "company", "location"} {
		if fields[f] == 0 {
			t.Errorf("no change of the %s", f)
		}
	}
	if left := people - len(s.Population()); left != kinds[DriftLeft] {
		t.Errorf("%d members gone from the population, %d left the network", left, kinds[DriftLeft])
	}
}

// lastChanges returns each member's last change.
func lastChanges(cs []Change) map[string]Change {
	out := map[string]Change{}
	for _, c := range cs {
		out[c.PageName] = c
	}
	return out
}

// searchFor is a search that finds the holders of job j: its title, the
// first word of its company, its city.
func searchFor(j Job) map[string]any {
	return map[string]any{"keywords": j.Title, "title": j.Title, "company": strings.Fields(j.Company)[0], "city": j.City}
}

func TestDriftIsSeenByEveryOperation(t *testing.T) {
	h := newHarness(t, func(o *Options) { o.Drift = 0.3; o.Epoch = 2 })
	checked := map[DriftKind]int{}
	last := lastChanges(h.s.Changes())
	for _, page := range slices.Sorted(maps.Keys(last)) {
		c := last[page]
		if checked[c.Kind] >= 5 || !isWordy(c.Before) || !isWordy(c.After) {
			continue
		}
		checked[c.Kind]++
		switch c.Kind {
		case DriftLeft:
			for _, path := range []string{"/v1/scrap/page", "/v1/scrap/enrich", "/scrap"} {
				r := h.do(http.MethodPost, path, map[string]string{"pageName": page})
				if r.status != http.StatusBadRequest || !strings.Contains(message(t, r), "no member with pageName") {
					t.Errorf("%s of %s, who left: status %d %s, want 400 no member", path, page, r.status, r.body)
				}
			}
			if _, ok := h.s.Member(page); ok {
				t.Errorf("Member(%s) finds a member who left", page)
			}
			var leads []person.Lead
			h.ok(http.MethodPost, "/v1/scrap", searchFor(c.Before), &leads)
			for _, l := range leads {
				if l.PageName == page {
					t.Errorf("a search still finds %s, who left", page)
				}
			}
		case DriftPrivate:
			var p person.Profile
			h.ok(http.MethodPost, "/v1/scrap/page", map[string]string{"pageName": page}, &p)
			if !p.Private || len(p.CurrentPosition) != 0 {
				t.Errorf("%s turned private: profile private=%v with %d positions", page, p.Private, len(p.CurrentPosition))
			}
			var e person.EnrichedProfile
			h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]string{"pageName": page}, &e)
			if e.ValidationStatus != person.StatusEmpty || e.Email != "" {
				t.Errorf("%s turned private: enrichment %q %q, want empty", page, e.ValidationStatus, e.Email)
			}
		case DriftJob:
			var p person.Profile
			h.ok(http.MethodPost, "/v1/scrap/page", map[string]string{"pageName": page}, &p)
			if len(p.CurrentPosition) != 1 || p.CurrentPosition[0].JobTitle != c.After.Title || p.CurrentPosition[0].Company != c.After.Company {
				t.Fatalf("%s: current position %+v, want %q at %q", page, p.CurrentPosition, c.After.Title, c.After.Company)
			}
			// The old position has ended when the new one began.
			old := p.WorkPositionTimeline[1]
			if old.JobTitle != c.Before.Title || old.Company != c.Before.Company || old.EndDate == nil || *old.EndDate != monthText(EpochStart(c.Epoch)) {
				t.Errorf("%s: previous position %+v, want %q at %q ended %s", page, old, c.Before.Title, c.Before.Company, monthText(EpochStart(c.Epoch)))
			}
			var e person.EnrichedProfile
			h.ok(http.MethodPost, "/v1/scrap/enrich", map[string]string{"pageName": page}, &e)
			if e.Company != c.After.Company || e.CompanyDomain != c.After.CompanyDomain || e.Email != c.After.Email || e.Location != c.After.Location() {
				t.Errorf("%s: enrichment %q %q %q %q, want %+v", page, e.Company, e.CompanyDomain, e.Email, e.Location, c.After)
			}
			if c.Before.Email != "" && !strings.HasSuffix(e.Email, "@"+c.After.CompanyDomain) {
				t.Errorf("%s: e-mail %q not at the new company's domain %s", page, e.Email, c.After.CompanyDomain)
			}
			// Searches see the new job, not the old one.
			var leads []person.Lead
			h.ok(http.MethodPost, "/v1/scrap", searchFor(c.After), &leads)
			if !slices.ContainsFunc(leads, func(l person.Lead) bool {
				return l.PageName == page && l.Title == c.After.Title && l.Company == c.After.Company && l.Location == c.After.Location()
			}) {
				t.Errorf("a search for %q at %q does not find %s", c.After.Title, c.After.Company, page)
			}
		}
	}
	for _, k := range []DriftKind{DriftJob, DriftLeft, DriftPrivate} {
		if checked[k] == 0 {
			t.Errorf("no change of kind %s checked", k)
		}
	}
}

func TestSetDriftMovesTime(t *testing.T) {
	h := newHarness(t, nil)
	if len(h.s.Changes()) != 0 {
		t.Fatal("changes before any drift")
	}
	if err := h.s.SetDrift(0.2, 1); err != nil {
		t.Fatal(err)
	}
	one := h.s.Changes()
	if err := h.s.SetDrift(0.2, 2); err != nil {
		t.Fatal(err)
	}
	two := h.s.Changes()
	if len(one) == 0 || len(two) <= len(one) || !reflect.DeepEqual(two[:len(one)], one) {
		t.Errorf("epoch 1: %d changes, epoch 2: %d; want epoch 2 to add to epoch 1", len(one), len(two))
	}
	if d, e := h.s.Drift(); d != 0.2 || e != 2 {
		t.Errorf("Drift() = %v, %d", d, e)
	}
	for _, bad := range []struct {
		d float64
		e int
	}{{-0.1, 1}, {1.5, 1}, {math.NaN(), 1}, {0.1, -1}, {0.1, MaxEpoch + 1}} {
		if err := h.s.SetDrift(bad.d, bad.e); err == nil {
			t.Errorf("SetDrift(%v, %d) accepted", bad.d, bad.e)
		}
	}
}

// isWordy reports whether a search can name j by its words: not the
// formula-like values of a few members.
func isWordy(j Job) bool {
	return !strings.ContainsAny(j.Title[:1]+j.Company[:1], "=+-@")
}

// TestPrivatePositions: with Options.PrivatePositions a private profile's
// answer carries the member's positions (never the description), and
// private members go on moving; without it a private profile shows no
// position and a member who turned private moves no more.
func TestPrivatePositions(t *testing.T) {
	now := EpochStart(4)
	for _, on := range []bool{false, true} {
		s := New(Options{People: 4000, Drift: 0.3, Epoch: 3, PrivatePositions: on})
		turned := map[string]bool{}
		movedAfter := 0
		for _, c := range s.Changes() {
			switch {
			case c.Kind == DriftPrivate:
				turned[c.PageName] = true
			case c.Kind == DriftJob && turned[c.PageName]:
				movedAfter++
			}
		}
		if on != (movedAfter > 0) {
			t.Errorf("PrivatePositions %v: %d job changes of members already private", on, movedAfter)
		}
		seen := 0
		for page := range turned {
			m, ok := s.Member(page)
			if !ok {
				continue // left the network since
			}
			if !m.Private {
				t.Fatalf("%s turned private; the sandbox has a public profile", page)
			}
			p := m.profile(now, on)
			if !p.Private || p.Description != "" {
				t.Errorf("%s: private %v, description %q", page, p.Private, p.Description)
			}
			if !on {
				if len(p.CurrentPosition)+len(p.WorkPositionTimeline) > 0 {
					t.Errorf("%s: a private profile shows positions without PrivatePositions", page)
				}
				continue
			}
			if len(p.CurrentPosition) == 0 || p.CurrentPosition[0].JobTitle != m.Title || p.CurrentPosition[0].Company != m.Company {
				t.Errorf("%s is %s at %s; the private profile shows %+v", page, m.Title, m.Company, p.CurrentPosition)
			}
			seen++
		}
		if on && seen == 0 {
			t.Error("no private member to check")
		}
	}
}
