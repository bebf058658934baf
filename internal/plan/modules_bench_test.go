package plan

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/cputime"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// modulesBenchFiles writes a configuration of n searches, flat (one search
// block with for_each over n cities) or through a module (one module block
// with for_each over the cities, each instance a search), with one enrich
// block and one export over all of them.
func modulesBenchFiles(n int, modules bool) fstest.MapFS {
	var cities strings.Builder
	for i := range n {
		fmt.Fprintf(&cities, "%q, ", fmt.Sprintf("k%05d", i))
	}
	head := fmt.Sprintf(`api {
  base_url    = "https://api.example.com"
  api_key     = "k"
  max_credits = 1000000
}
variable "cities" {
  type    = list(string)
  default = [%s]
}
`, cities.String())
	search := `search "cto" {
  keywords        = "CTO"
  city            = %s
  industry_filter = ["Internet and IT"]
  max_results     = 100
  refresh         = "30d"
}
`
	tail := `enrich "contacts" {
  from    = [%[1]s]
  limit   = 250000
  refresh = "180d"
}
export "all" {
  path = "out/all.xlsx"
  sheet "All" {
    from = [%[1]s]
  }
}
`
	if !modules {
		s := strings.Replace(search, `search "cto" {`, "search \"cto\" {\n  for_each        = toset(var.cities)", 1)
		return fstest.MapFS{"main.leads.hcl": {Data: []byte(head + fmt.Sprintf(s, "each.value") + fmt.Sprintf(tail, "search.cto"))}}
	}
	main := head + `module "market" {
  for_each = toset(var.cities)
  source   = "./persona"
  city     = each.value
}
` + fmt.Sprintf(tail, "module.market.ctos")
	persona := "variable \"city\" {\n  type = string\n}\n" + fmt.Sprintf(search, "var.city") + "output \"ctos\" {\n  value = [search.cto]\n}\n"
	return fstest.MapFS{"main.leads.hcl": {Data: []byte(main)}, "persona/main.leads.hcl": {Data: []byte(persona)}}
}

// modulesBenchState is the state in which every search of cfg ran and
// kept people/n people of its own, as benchWorld's: a tenth of the
// searches changed their request, a tenth are due for refresh, a third of
// the people are enriched.
func modulesBenchState(cfg *config.Config, people int) *state.State {
	st := state.New()
	st.Serial = 1
	st.People = make(map[string]*state.Person, people)
	n := len(cfg.Searches)
	per := people / n
	for i, s := range cfg.Searches {
		req := s.Request
		if i%10 == 1 {
			req = api.SearchRequest{Params: map[string]any{"keywords": "CTO", "city": "old"}}
		}
		body, _ := json.Marshal(req)
		ranAt := t0.Add(-2 * day)
		if i%10 == 2 {
			ranAt = t0.Add(-40 * day)
		}
		rec := &state.Search{Address: s.Address, Generation: api.Gen1, Request: body,
			RequestHash: state.RequestHash(api.Gen1, body), RanAt: ranAt, ResultCount: per}
		for j := range per {
			id := fmt.Sprintf("%d.%05x", i*per+j, j)
			l := person.Lead{FirstName: "First", LastName: fmt.Sprint(j), FullName: "First Last", Title: "CTO",
				Company: "Company", Location: "Berlin, Germany", NetworkID: id, PageName: "page-" + id}
			p := &state.Person{ID: id, Lead: l, FirstSeen: ranAt, LastSeen: ranAt, FoundBy: []string{s.Address}}
			if (i*per+j)%3 == 0 {
				p.Enrichment = &state.Enrichment{EnrichedAt: t0.Add(-time.Duration(j%200) * day), By: cfg.Enriches[0].Address,
					Result: person.EnrichedProfile{Email: "x@example.com", ValidationStatus: "valid"}}
			}
			st.People[id] = p
			rec.LeadIDs = append(rec.LeadIDs, id)
		}
		st.Searches[s.Address] = rec
	}
	return st
}

// BenchmarkModulesPlan plans 5,000 search instances written flat and
// through a module (one module block with for_each, a search in each
// instance), against a state of 300,000 people: config/* reads the
// configuration alone, build/* plans it, plan/* does both, as leadsync plan
// does once the state is loaded. Modules must plan within 10 % of flat.
//
//	go test ./internal/plan -run '^$' -bench ModulesPlan -benchmem -benchtime 5x -count 3
func BenchmarkModulesPlan(b *testing.B) {
	const n, people = 5000, 300000
	for _, stage := range []string{"config", "build", "plan"} {
		for _, layout := range []string{"flat", "modules"} {
			b.Run(stage+"/"+layout, func(b *testing.B) {
				fsys := modulesBenchFiles(n, layout == "modules")
				load := func() *config.Config {
					cfg, diags := config.Load(config.LoadOptions{Dir: "/bench", FS: fsys})
					if diags.HasErrors() {
						b.Fatal(diags.Error())
					}
					return cfg
				}
				cfg := load()
				if len(cfg.Searches) != n {
					b.Fatalf("%d searches", len(cfg.Searches))
				}
				var st *state.State
				if stage != "config" {
					st = modulesBenchState(cfg, people)
				}
				opts := Options{Now: t0, Usage: &api.Usage{RemainingRequests: 1 << 30}, FileExists: func(string) bool { return true }}
				b.ReportAllocs()
				runtime.GC()
				cpu0 := cputime.Self()
				b.ResetTimer()
				for range b.N {
					if stage != "build" {
						cfg = load()
					}
					if stage != "config" {
						if _, diags := Build(cfg, st, opts); diags.HasErrors() {
							b.Fatal(diags.Error())
						}
					}
				}
				b.StopTimer()
				b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			})
		}
	}
}
