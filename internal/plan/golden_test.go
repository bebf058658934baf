package plan

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/state"
)

// designFixture is the configuration of design.md: searches for CTOs in two
// cities, a founder's profile, an enrichment and an export.
func designFixture() *fixture {
	f := newFixture()
	for _, city := range []string{"Berlin", "Hamburg"} {
		f.search(`search.cto["`+city+`"]`, map[string]any{
			"keywords": "CTO", "city": city,
			"industryFilter": []string{"Internet and IT"}, "levelFilter": []string{"Executive"},
			"countryFilter": []string{"Germany"},
		}, maxResults(100), refresh(7*day))
	}
	f.profile("profile.founder", "Max_Mustermann")
	f.enrich("cto_contacts", []string{"search.cto", "profile.founder"}, 50, 180*day)
	f.export("marketing", "out/cto-leads.xlsx", "search.cto", "profile.founder")
	return f
}

// TestGolden builds the plan of each case and compares its JSON form with
// testdata/<name>.json. The human form of the same plans is drawn from
// these files by internal/views (its goldens are testdata/<name>.txt there).
func TestGolden(t *testing.T) {
	tests := []struct {
		name  string
		setup func(f *fixture, o *Options)
	}{
		{name: "fresh", setup: func(f *fixture, o *Options) {}},
		{name: "fresh_offline", setup: func(f *fixture, o *Options) { o.Usage, o.Offline = nil, true }},
		{name: "offline_last_known", setup: func(f *fixture, o *Options) {
			o.Usage, o.Offline = nil, true
			f.apply(state.Event{At: t0.Add(-3 * day), Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 8000}})
		}},
		{name: "partly_run", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.read("profile.founder", t0.Add(-2*day))
		}},
		{name: "all_run", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 30)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-2*day), ids(25, 30)...)
			f.read("profile.founder", t0.Add(-2*day))
			for _, id := range ids(1, 50) {
				f.enriched(id, "enrich.cto_contacts", t0.Add(-day))
			}
			f.wrote("export.marketing")
		}},
		{name: "stale", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-9*day), ids(20, 8)...)
			f.read("profile.founder", t0.Add(-2*day))
			for _, id := range ids(1, 12) {
				f.enriched(id, "enrich.cto_contacts", t0.Add(-200*day))
			}
			f.enriched("page:Max_Mustermann", "enrich.cto_contacts", t0.Add(-10*day))
			f.wrote("export.marketing")
		}},
		{name: "removed", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-2*day), ids(20, 8)...)
			f.read("profile.founder", t0.Add(-2*day))
			for _, id := range append(ids(1, 12), ids(20, 8)...) {
				f.enriched(id, "enrich.cto_contacts", t0.Add(-day))
			}
			f.enriched("page:Max_Mustermann", "enrich.cto_contacts", t0.Add(-day))
			f.ranRequest("search.old", t0.Add(-30*day), api.SearchRequest{Params: kw("VP")}, 0, ids(100, 41)...)
			f.wrote("export.marketing")
		}},
		{name: "changed_filters", setup: func(f *fixture, o *Options) {
			f.ranRequest(`search.cto["Berlin"]`, t0.Add(-2*day), api.SearchRequest{Params: map[string]any{
				"keywords": "CTO", "city": "Berlin", "levelFilter": []string{"Manager"},
			}}, 100, ids(1, 12)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-2*day), ids(20, 8)...)
			f.read("profile.founder", t0.Add(-2*day))
			f.wrote("export.marketing")
		}},
		{name: "targets_replace", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-2*day), ids(20, 8)...)
			f.read("profile.founder", t0.Add(-2*day))
			f.wrote("export.marketing")
			o.Targets = []string{`search.cto["Hamburg"]`, "export.marketing"}
			o.Replace = []string{`search.cto["Hamburg"]`}
		}},
		{name: "generation2", setup: func(f *fixture, o *Options) {
			// Searches and the profile read go to the second generation
			// and use no quota; only the enrichments count.
			f.cfg.API.Generation, f.cfg.API.BaseURLV2 = api.Gen2, "https://v2.example.com"
		}},
		{name: "credits_short", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.read("profile.founder", t0.Add(-2*day))
			bal, at := 0, t0.Add(-2*time.Hour)
			f.st.Usage.CreditBalance, f.st.Usage.CreditBalanceAt = &bal, &at
		}},
		{name: "moved", setup: func(f *fixture, o *Options) {
			// Renamed: search.ctos is search.cto now, enrich.contacts is
			// enrich.cto_contacts; Hamburg is also due for its refresh.
			for _, s := range f.cfg.Searches {
				addr := strings.Replace(s.Address, "search.cto", "search.ctos", 1)
				at := t0.Add(-2 * day)
				if strings.Contains(addr, "Hamburg") {
					at = t0.Add(-9 * day)
				}
				f.ranRequest(addr, at, s.Request, s.MaxResults, ids(1+10*len(addr), 8)...)
			}
			f.read("profile.founder", t0.Add(-2*day))
			for _, id := range ids(1+10*len(`search.ctos["Berlin"]`), 8) {
				f.enriched(id, "enrich.contacts", t0.Add(-day))
			}
			for _, m := range [][2]string{{"search.ctos", "search.cto"}, {"enrich.contacts", "enrich.cto_contacts"}} {
				mv, err := config.NewMove(m[0], m[1])
				if err != nil {
					panic(err)
				}
				f.cfg.Moves = append(f.cfg.Moves, mv)
			}
		}},
		{name: "excluded", setup: func(f *fixture, o *Options) {
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 12)...)
			f.read("profile.founder", t0.Add(-2*day))
			f.exclude("customers", listfile.Company, "Co 1.0001 GmbH", "Co 2.0002", "Co 3.0003 AG")
			f.exclude("dnc", listfile.Email, "someone@example.com")
		}},
		{name: "tracked", setup: func(f *fixture, o *Options) {
			// A track of the contacts and the founder; the contacts are
			// enriched again when their company changed (refresh_on). One
			// is known to have moved: enriched again for certain; the
			// reads of the others may find more.
			f.cfg.Enriches[0].RefreshOn = []string{"company"}
			f.track("champions", 30*day, "enrich.cto_contacts", "profile.founder")
			f.ran(`search.cto["Berlin"]`, t0.Add(-2*day), ids(1, 30)...)
			f.ran(`search.cto["Hamburg"]`, t0.Add(-2*day), ids(25, 30)...)
			f.read("profile.founder", t0.Add(-2*day))
			for _, id := range ids(1, 50) {
				f.enriched(id, "enrich.cto_contacts", t0.Add(-60*day))
			}
			f.trackRead("track.champions", ids(1, 1)[0], t0.Add(-3*day), "VP Engineering", "Rheinbank AG", false)
			f.wrote("export.marketing")
		}},
		{name: "over_budget", setup: func(f *fixture, o *Options) {
			f.cfg.Enriches[0].Limit = 0
			f.cfg.API.MaxCredits = 100
			o.Usage = &api.Usage{RemainingRequests: 250}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := designFixture()
			o := f.opts()
			tt.setup(f, &o)
			p, _ := Build(f.cfg, f.st, o)
			var js bytes.Buffer
			if err := WriteJSON(&js, p); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", tt.name+".json"), js.Bytes())
		})
	}
}
