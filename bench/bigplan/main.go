// Command bigplan writes a configuration of one search block with N
// for_each instances and a state in which every instance ran and kept its
// share of P people, so that the whole `leadsync plan` command (reading the
// configuration, loading the state, planning, rendering) can be timed on
// the size. With -modules the same searches are written through a
// module (one module block with for_each over the cities, a search in each
// instance), and the state keeps them at the module's addresses, to compare
// the two. Past 10,000 searches, the most one for_each holds, the
// searches (or modules) are split into blocks of 10,000 (blocks.go):
//
//	go run ./bench/bigplan -out /tmp/bigplan -searches 5000 -people 300000
//	go run ./bench/bigplan -out /tmp/bigplan-modules -modules
//	go build -o /tmp/leadsync . && /usr/bin/time -v /tmp/leadsync plan --offline --chdir /tmp/bigplan
//
// With -excludes K (at most 5) it adds K exclude blocks, one per kind of
// list (company, profile URL, network ID, e-mail, domain), each reading a
// CSV file of -list-rows rows of which a hundredth names people of the
// state: the plan's cost of exclusions.
//
// -history 0.1 gives a tenth of the people two changes each in their
// history (a new title, then a new company, seen by a track); -track adds
// a track block of the searches' people and refresh_on to the enrich block.
//
// It writes exactly -people people (the searches share them, the first
// ones one more when they do not divide evenly; at most 300 a search, a
// search's most results), into the local state (.leadsync/state.db, or the
// JSON state file of earlier versions with -json) or, with -pg CONNSTR,
// into the schema -pg-schema of that PostgreSQL database, whose
// configuration then names it (the connection string is read from
// LEADSYNC_PG_CONN_STR when leadsync runs):
//
//	go run ./bench/bigplan -out /tmp/bigplan-pg -pg "$LEADSYNC_TEST_PG" -pg-schema bigplan
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
)

// target is where the state goes: the local store (the SQLite database,
// or the JSON file with -json) or a PostgreSQL schema.
type target struct {
	json     bool
	stream   bool
	pgConn   string
	pgSchema string
}

func main() {
	out := flag.String("out", "", "directory to write (created; its state is replaced)")
	searches := flag.Int("searches", 5000, "search instances")
	people := flag.Int("people", 300000, "people in state")
	excludes := flag.Int("excludes", 0, "exclude blocks to add (0 to 5)")
	listRows := flag.Int("list-rows", 10000, "rows of each exclude block's list")
	history := flag.Float64("history", 0, "share of people with two changes in their history")
	track := flag.Bool("track", false, "add a track block and refresh_on")
	modules := flag.Bool("modules", false, "write the searches through a module")
	var to target
	flag.BoolVar(&to.json, "json", false, "write the JSON state file of earlier versions (.leadsync/state.json)")
	flag.BoolVar(&to.stream, "stream", false, "write the state a chunk of searches at a time, as state push streams one (bounded memory: 10,000,000 people)")
	flag.StringVar(&to.pgConn, "pg", "", "write the state into PostgreSQL at `CONNSTR` instead")
	flag.StringVar(&to.pgSchema, "pg-schema", "bigplan", "the PostgreSQL schema of -pg (its state is replaced)")
	flag.Parse()
	if *out == "" || *searches <= 0 || *people < *searches || *people > *searches*api.MaxResults {
		fmt.Fprintf(os.Stderr, "usage: bigplan -out DIR [-searches N] [-people P] (N <= P <= %d N)\n", api.MaxResults)
		os.Exit(2)
	}
	if *modules && *track {
		fmt.Fprintln(os.Stderr, "bigplan: -modules and -track do not go together")
		os.Exit(2)
	}
	if to.stream && (to.json || *history > 0) {
		fmt.Fprintln(os.Stderr, "bigplan: -stream writes the database or pg, without -history")
		os.Exit(2)
	}
	if err := write(*out, *searches, *people, *history, *track, *modules, to); err != nil {
		fmt.Fprintln(os.Stderr, "bigplan:", err)
		os.Exit(1)
	}
	if err := writeExcludes(*out, *excludes, *listRows, *searches, *people); err != nil {
		fmt.Fprintln(os.Stderr, "bigplan:", err)
		os.Exit(1)
	}
}

func key(i int) string { return fmt.Sprintf("c%05d", i) }

// write writes a configuration of n search instances (a for_each, or a
// module's for_each when modules) and a state of people people found by
// them, a third of them enriched.
func write(dir string, n, people int, history float64, track, modules bool, to target) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	maxResults := max(100, (people+n-1)/n)
	cfg, addr := configOf(n, maxResults, track, modules, to)
	if modules {
		if err := os.MkdirAll(filepath.Join(dir, "persona"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "persona", "main.leads.hcl"), []byte(fmt.Sprintf(personaModule, maxResults)), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(cfg), 0o644); err != nil {
		return err
	}

	now := time.Now().UTC()
	if to.stream {
		g, err := newGenStream(now, n, people, maxResults, addr)
		if err != nil {
			return err
		}
		where, err := to.pushStream(dir, g)
		if err != nil {
			return err
		}
		fmt.Printf("wrote %s (%d search instances) and %s (%d people)\n", filepath.Join(dir, "main.leads.hcl"), n, where, people)
		return nil
	}
	st := state.New()
	first := 0 // the number of the search's first person
	for i := 0; i < n; i++ {
		per := people / n
		if i < people%n {
			per++
		}
		if err := foldSearch(st, now, i, first, per, maxResults, addr(i)); err != nil {
			return err
		}
		first += per
	}
	if len(st.People) != people {
		return fmt.Errorf("the state holds %d people, not the %d asked for", len(st.People), people)
	}
	if err := drift(st, now, history); err != nil {
		return err
	}
	where, err := to.save(dir, st)
	if err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d search instances) and %s (%d people)\n", filepath.Join(dir, "main.leads.hcl"), n, where, len(st.People))
	return nil
}

// settings is the leadsync block of the configuration: the JSON state
// file, or the pg backend (its connection string from the environment).
func (to target) settings() string {
	switch {
	case to.pgConn != "":
		return fmt.Sprintf("leadsync {\n  backend \"pg\" {\n    schema_name = %q\n  }\n}\n\n", to.pgSchema)
	case to.json:
		return "leadsync {\n  state_path = \".leadsync/state.json\"\n}\n\n"
	}
	return ""
}

// save makes st the state of dir's configuration and says where it went.
func (to target) save(dir string, st *state.State) (string, error) {
	if to.pgConn != "" {
		b, err := pg.New(pg.Options{ConnStr: to.pgConn, Schema: to.pgSchema})
		if err != nil {
			return "", err
		}
		defer b.Close()
		if err := b.Push(st, true); err != nil {
			return "", err
		}
		return fmt.Sprintf("the PostgreSQL schema %q", to.pgSchema), nil
	}
	name := "state.db"
	if to.json {
		name = "state.json"
	}
	path := filepath.Join(dir, ".leadsync", name)
	for _, p := range []string{path, path + "-wal", path + "-shm", path + ".backup"} {
		os.Remove(p)
	}
	store := local.NewStore(path)
	defer store.Close()
	if err := store.Save(st); err != nil {
		return "", err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s (%.0f MB)", path, float64(fi.Size())/1e6), nil
}

// flatConfig is the configuration of write: its search blocks
// (searchBlock), the references to them of the enrich block, its track
// attribute, the track block (trackAttr, trackBlock) and the export.
const flatConfig = `%sapi {
  base_url    = "https://api.example.com"
  max_credits = 1000000
}

%s
enrich "contacts" {
  from    = [%s]
  limit   = 250000
  refresh = "180d"
%s}
%s
export "all" {
  path = "out/all.xlsx"
  sheet "All" {
    from = [%s]
  }
}
`

// modulesConfig is the configuration of write with modules: its module
// blocks (moduleBlock) and the references to their outputs of the enrich
// block and the export. Each instance of personaModule has one search.
const modulesConfig = `%sapi {
  base_url    = "https://api.example.com"
  max_credits = 1000000
}

%s
enrich "contacts" {
  from    = [%s]
  limit   = 250000
  refresh = "180d"
}

export "all" {
  path = "out/all.xlsx"
  sheet "All" {
    from = [%s]
  }
}
`

const personaModule = `variable "city" {
  type = string
}

search "cto" {
  keywords    = "CTO"
  city        = var.city
  max_results = %d
  refresh     = "30d"
}

output "ctos" {
  value = [search.cto]
}
`

// foldSearch folds the i-th search's run (at addr) into st: per people
// found (numbered from first), all kept (maxResults), every third one
// enriched. A tenth of the searches changed their request since, another
// tenth are due for refresh.
func foldSearch(st *state.State, now time.Time, i, first, per, maxResults int, addr string) error {
	day := 24 * time.Hour
	params := map[string]any{"keywords": "CTO", "city": key(i)}
	if i%10 == 1 {
		params["city"] = "old"
	}
	body, err := json.Marshal(api.SearchRequest{Params: params})
	if err != nil {
		return err
	}
	ranAt := now.Add(-2 * day)
	if i%10 == 2 {
		ranAt = now.Add(-40 * day)
	}
	leads := make([]person.Lead, per)
	for j := range leads {
		id := fmt.Sprintf("%d.%05x", 10000000+first+j, j)
		leads[j] = person.Lead{FirstName: "First", LastName: fmt.Sprint(j), FullName: fmt.Sprintf("First %d", j),
			Title: "CTO", Company: "Company " + key(i), Location: "Berlin, Germany", NetworkID: id, PageName: "page-" + id}
	}
	if err := st.Fold(state.Event{At: ranAt, Kind: state.EventSearch, Address: addr, Search: &state.SearchEvent{
		Generation: api.Gen1, Request: body, RequestHash: state.RequestHash(api.Gen1, body), Leads: leads, MaxResults: maxResults,
	}}); err != nil {
		return err
	}
	for j, l := range leads {
		if j%3 != 0 {
			continue
		}
		at := now.Add(-time.Duration(j%200) * day)
		if err := st.Fold(state.Event{At: at, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{
			PersonID: l.NetworkID, Credits: 1,
			Result: person.EnrichedProfile{PageName: l.PageName, NetworkID: l.NetworkID, FullName: l.FullName,
				Email: "x@example.com", ValidationStatus: person.StatusValid, CompanyDomain: "example.com"},
		}}); err != nil {
			return err
		}
	}
	return nil
}

// writeExcludes writes k exclude blocks (excludes.leads.hcl) and their
// lists: rows values each, every hundredth one naming a person (or the
// company of a search) of the state written by write, the others no one.
func writeExcludes(dir string, k, rows, n, people int) error {
	_ = os.Remove(filepath.Join(dir, "excludes.leads.hcl"))
	if k <= 0 {
		return nil
	}
	per := people / n
	kinds := []struct {
		name, by string
		value    func(i int, hit bool) string
	}{
		{"customers", "company", func(i int, hit bool) string {
			if hit {
				return "Company " + key(i%n) + " GmbH"
			}
			return fmt.Sprintf("Other Company %d AG", i)
		}},
		{"dnc", "profile_url", func(i int, hit bool) string {
			if hit {
				return fmt.Sprintf("https://www.network.example/profile/page-%d.%05x/", 10000000+i, i%per)
			}
			return fmt.Sprintf("network.example/profile/nobody-%d", i)
		}},
		{"ids", "network_id", func(i int, hit bool) string {
			if hit {
				return fmt.Sprintf("%d.%05x", 10000000+i, i%per)
			}
			return fmt.Sprintf("9%d.abc", i)
		}},
		{"bounced", "email", func(i int, hit bool) string { return fmt.Sprintf("person%d@bounced.example", i) }},
		{"competitors", "domain", func(i int, hit bool) string { return fmt.Sprintf("www.competitor-%d.example", i) }},
	}
	var cfg strings.Builder
	for _, kind := range kinds[:min(k, len(kinds))] {
		var b strings.Builder
		b.WriteString("Value\n")
		for i := range rows {
			hit := i%100 == 0
			v := kind.value(i*(people/rows), hit)
			fmt.Fprintf(&b, "%q\n", v)
		}
		file := filepath.Join("lists", kind.name+".csv")
		if err := os.MkdirAll(filepath.Join(dir, "lists"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte(b.String()), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&cfg, "exclude %q {\n  file   = %q\n  column = \"Value\"\n  by     = %q\n}\n\n", kind.name, file, kind.by)
	}
	if err := os.WriteFile(filepath.Join(dir, "excludes.leads.hcl"), []byte(cfg.String()), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %d exclude blocks of %d rows each\n", min(k, len(kinds)), rows)
	return nil
}

func trackAttr(track bool) string {
	if !track {
		return ""
	}
	return "  refresh_on = [\"company\"]\n"
}

func trackBlock(track bool, refs string) string {
	if !track {
		return ""
	}
	return "\ntrack \"cto\" {\n  from = [" + refs + "]\n}\n"
}

// drift gives every person whose number falls in the share two changes in
// their history, as track reads 10 and 5 days ago would have recorded them:
// a new title, then a new company. Only the history is written (a track
// read would also keep the profile it read), so that what is measured is
// the history's cost.
func drift(st *state.State, now time.Time, share float64) error {
	if share <= 0 {
		return nil
	}
	every := int(1 / share)
	ids := make([]string, 0, len(st.People))
	for id := range st.People {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for i, id := range ids {
		if i%every != 0 {
			continue
		}
		p := st.People[id]
		p.History = []state.Drift{
			{Field: state.DriftTitle, Before: p.Lead.Title, After: "VP Engineering", At: now.Add(-10 * 24 * time.Hour), By: "track.cto", Call: state.CallTrack},
			{Field: state.DriftCompany, Before: p.Lead.Company, After: "Moved GmbH", At: now.Add(-5 * 24 * time.Hour), By: "track.cto", Call: state.CallTrack},
		}
		checked := now.Add(-5 * 24 * time.Hour)
		p.Lead.Title, p.Lead.Company, p.CheckedAt = "VP Engineering", "Moved GmbH", &checked
	}
	return nil
}
