package plan

import (
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/cputime"
	"github.com/leadsync/leadsync/internal/listfile"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// benchWorld builds a configuration of n instances of one for_each search
// and a state in which every instance ran and kept people/n people of its
// own (people in all). A tenth of the instances changed their request and
// a tenth are due for refresh; one enrich block reads all of them, with a
// third of the people already enriched and some of those stale.
func benchWorld(n, people int) (*config.Config, *state.State) {
	cfg := &config.Config{
		Hash: "bench",
		API: config.API{Generation: api.Gen1, RateLimit: 1, Parallelism: 4, CreditsPerEnrich: 1,
			MaxCredits: 1 << 30, MinRemainingRequests: 100},
	}
	st := state.New()
	st.Serial = 1
	st.People = make(map[string]*state.Person, people)
	per := people / n
	for i := range n {
		key := fmt.Sprintf("k%05d", i)
		addr := `search.cto["` + key + `"]`
		s := &config.Search{Address: addr, Addr: typed(addr), Block: "search.cto", Name: "cto", MaxResults: 100,
			Refresh: 30 * day,
			Request: api.SearchRequest{Params: map[string]any{
				"keywords": "CTO", "city": key, "industryFilter": []string{"Internet and IT"}}}}
		cfg.Searches = append(cfg.Searches, s)
		req := s.Request
		if i%10 == 1 {
			req = api.SearchRequest{Params: map[string]any{"keywords": "CTO", "city": "old"}}
		}
		body, _ := json.Marshal(req)
		ranAt := t0.Add(-2 * day)
		if i%10 == 2 {
			ranAt = t0.Add(-40 * day)
		}
		rec := &state.Search{Address: addr, Generation: api.Gen1, Request: body,
			RequestHash: state.RequestHash(api.Gen1, body), RanAt: ranAt, ResultCount: per}
		for j := range per {
			id := fmt.Sprintf("%d.%05x", i*per+j, j)
			l := person.Lead{FirstName: "First", LastName: fmt.Sprint(j), FullName: "First Last", Title: "CTO",
				Company: "Company", Location: "Berlin, Germany", NetworkID: id, PageName: "page-" + id}
			p := &state.Person{ID: id, Lead: l, FirstSeen: ranAt, LastSeen: ranAt, FoundBy: []string{addr}}
			if (i*per+j)%3 == 0 {
				p.Enrichment = &state.Enrichment{EnrichedAt: t0.Add(-time.Duration(j%200) * day), By: "enrich.contacts",
					Result: person.EnrichedProfile{Email: "x@example.com", ValidationStatus: "valid"}}
			}
			st.People[id] = p
			rec.LeadIDs = append(rec.LeadIDs, id)
		}
		st.Searches[addr] = rec
	}
	cfg.Enriches = []*config.Enrich{{Address: "enrich.contacts", Addr: typed("enrich.contacts"), Name: "contacts", From: []string{"search.cto"},
		Limit: 250000, Refresh: 180 * day}}
	cfg.Exports = []*config.Export{{Address: "export.all", Addr: typed("export.all"), Name: "all", Path: "out/all.xlsx", Format: "xlsx",
		Sheets: []*config.Sheet{{Name: "All", From: []string{"search.cto"}, Columns: config.DefaultColumns}}}}
	return cfg, st
}

// BenchmarkBuild plans the world of benchWorld at three sizes, to show the
// time grows linearly. heap-MB is the live heap after a collection with the
// state and the plan held, i.e. what a plan run needs beyond the process.
//
//	go test ./internal/plan -run '^$' -bench Build -benchmem -benchtime 5x
func BenchmarkBuild(b *testing.B) {
	for _, size := range []struct{ searches, people int }{{1250, 75000}, {2500, 150000}, {5000, 300000}, {10000, 600000}} {
		b.Run(fmt.Sprintf("searches=%d/people=%d", size.searches, size.people), func(b *testing.B) {
			cfg, st := benchWorld(size.searches, size.people)
			opts := Options{Now: t0, Usage: &api.Usage{RemainingRequests: 1 << 30}, FileExists: func(string) bool { return true }}
			var p *Plan
			b.ReportAllocs()
			runtime.GC()
			cpu0 := cputime.Self()
			b.ResetTimer()
			for range b.N {
				var diags interface{ HasErrors() bool }
				p, diags = Build(cfg, st, opts)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
			}
			b.StopTimer()
			// CPU time is reported too: on a shared machine wall time
			// measures the neighbours as much as the code.
			b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heap-MB")
			runtime.KeepAlive(st)
			runtime.KeepAlive(p)
		})
	}
}

// benchExcludes adds five exclude blocks to cfg, one per kind (company,
// profile URL, network ID, e-mail, domain), of rows keys each, every
// hundredth of which names someone of benchWorld's state.
func benchExcludes(cfg *config.Config, rows, n, people int) {
	per := people / n
	kinds := []struct {
		by    listfile.Kind
		value func(i int, hit bool) string
	}{
		{listfile.Company, func(i int, hit bool) string {
			if hit {
				return "Company GmbH"
			}
			return fmt.Sprintf("Other Company %d AG", i)
		}},
		{listfile.ProfileURL, func(i int, hit bool) string {
			return fmt.Sprintf("https://www.network.example/profile/page-%d.%05x/", i, i%per)
		}},
		{listfile.NetworkID, func(i int, hit bool) string { return fmt.Sprintf("%d.%05x", i, i%per) }},
		{listfile.Email, func(i int, hit bool) string { return fmt.Sprintf("person%d@bounced.example", i) }},
		{listfile.Domain, func(i int, hit bool) string { return fmt.Sprintf("www.competitor-%d.example", i) }},
	}
	for k, kind := range kinds {
		set := listfile.NewSet(kind.by)
		for i := range rows {
			hit := i%100 == 0 && k != 0
			set.Add(kind.value(i*(people/rows)+1, hit))
		}
		cfg.Excludes = append(cfg.Excludes, &config.Exclude{Address: fmt.Sprintf("exclude.x%d", k), Addr: typed(fmt.Sprintf("exclude.x%d", k)), Name: fmt.Sprintf("x%d", k),
			By: kind.by, Keys: set, Column: "Value", ListFile: config.ListFile{File: "x.csv", Rows: rows}})
	}
}

// BenchmarkBuildExcludes plans benchWorld's 300,000 people without and
// with five exclude blocks of 10,000 rows: the plan's cost of exclusions
// (the figure: at most 10 %).
//
//	go test ./internal/plan -run '^$' -bench BuildExcludes -benchmem -benchtime 5x
func BenchmarkBuildExcludes(b *testing.B) {
	for _, k := range []int{0, 5} {
		b.Run(fmt.Sprintf("excludes=%d", k), func(b *testing.B) {
			cfg, st := benchWorld(5000, 300000)
			if k > 0 {
				benchExcludes(cfg, 10000, 5000, 300000)
			}
			opts := Options{Now: t0, Usage: &api.Usage{RemainingRequests: 1 << 30}, FileExists: func(string) bool { return true }}
			b.ReportAllocs()
			runtime.GC()
			cpu0 := cputime.Self()
			b.ResetTimer()
			for range b.N {
				p, diags := Build(cfg, st, opts)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				if k > 0 && p.Savings.Excluded.People == 0 {
					b.Fatal("nobody excluded")
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}

// BenchmarkTargets plans 1, 100 and 1,000 --target flags, each one
// instance, over benchWorld's 10,000 instances: what run.Plan asks of
// this package (CheckAddresses, ReadsOf, Build). Each flag is looked up
// (targetIndex), so the time grows with the instances planned, not with
// flags times the addresses of the configuration and the state.
//
//	go test ./internal/plan -run '^$' -bench Targets -benchmem -benchtime 5x
func BenchmarkTargets(b *testing.B) {
	cfg, st := benchWorld(10000, 100000)
	for _, n := range []int{1, 100, 1000} {
		b.Run(fmt.Sprintf("targets=%d", n), func(b *testing.B) {
			var targets []string
			for i := range n {
				targets = append(targets, fmt.Sprintf(`search.cto["k%05d"]`, i*10000/n))
			}
			opts := Options{Now: t0, Usage: &api.Usage{RemainingRequests: 1 << 30}, FileExists: func(string) bool { return true },
				Targets: targets}
			b.ReportAllocs()
			runtime.GC()
			cpu0 := cputime.Self()
			b.ResetTimer()
			for range b.N {
				if diags := CheckAddresses(cfg, st, targets, nil); diags.HasErrors() {
					b.Fatal(diags)
				}
				if r := ReadsOf(cfg, st, opts); len(r.Searches) != n {
					b.Fatalf("the plan reads %d lead lists, want %d", len(r.Searches), n)
				}
				p, diags := Build(cfg, st, opts)
				if diags.HasErrors() {
					b.Fatal(diags)
				}
				if len(p.Targets) != n {
					b.Fatalf("%d targets, want %d", len(p.Targets), n)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(cputime.Self()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
