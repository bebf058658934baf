package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend/backendtest"
	"github.com/leadsync/leadsync/internal/state/local"
)

const storedReadConfig = `
api {
  sandbox = true
}
search "cto" {
  for_each = toset(["Berlin", "Hamburg"])
  keywords = "CTO"
  city     = each.value
}
profile "founder" {
  page_name = "Max_Mustermann"
}
enrich "contacts" {
  from = [search.cto]
}
track "champions" {
  from = [search.cto]
}
output "ctos" {
  value = [search.cto, profile.founder]
}
output "reached" {
  value = [enrich.contacts, track.champions]
}
`

// storedReadEvents: Ann and Bob found in Berlin, Bob and Cem in Hamburg,
// Max read by the profile; Ann enriched, Cem's enrichment copied from
// workspace dach by enrich.contacts; Ann read by the track.
func storedReadEvents() []state.Event {
	at := time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC)
	ann := person.Lead{FullName: "Ann Albers", Title: "CTO", NetworkID: "101.aa", PageName: "ann"}
	bob := person.Lead{FullName: "Bob Brandt", Title: "CTO", NetworkID: "102.bb", PageName: "bob"}
	cem := person.Lead{FullName: "Cem Cakir", Title: "CTO", NetworkID: "103.cc", PageName: "cem"}
	search := func(city string, leads ...person.Lead) state.Event {
		return state.Event{At: at, Kind: state.EventSearch, Address: `search.cto["` + city + `"]`, Search: &state.SearchEvent{
			Generation: api.Gen1, Request: []byte(`{"city":"` + city + `","keywords":"CTO"}`), Leads: leads}}
	}
	return []state.Event{
		search("Berlin", ann, bob),
		search("Hamburg", bob, cem),
		{At: at, Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen1, PageName: "Max_Mustermann",
			Request: []byte(`{"pageName":"Max_Mustermann"}`), Profile: person.Profile{FullName: "Max Mustermann"}}},
		{At: at, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "101.aa", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "101.aa", Email: "ann@acme.example", ValidationStatus: person.StatusValid}}},
		{At: at, Kind: state.EventReuse, Address: "enrich.contacts", Reuse: &state.ReuseEvent{PersonID: "103.cc", Workspace: "dach",
			Enrichment: state.Enrichment{EnrichedAt: at, By: "enrich.dach", Result: person.EnrichedProfile{NetworkID: "103.cc",
				Email: "cem@cakir.example", ValidationStatus: person.StatusValid}}}},
		{At: at.Add(time.Hour), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{PersonID: "101.aa",
			Generation: api.Gen1, Request: []byte(`{"pageName":"ann"}`), Profile: &person.Profile{FullName: "Ann Albers"}}},
	}
}

// storedReadLines are the console's lines: the people of a search
// instance and of the profile (from the records), and a where, which
// reads the people (their e-mails) from the store.
const storedReadLines = `search.cto["Hamburg"].people
profile.founder.people
where person.email != ""
`

// TestOutputAndConsoleFromTheStore: output and console answer from a
// state whose people the store reads on request (the SQLite database, and
// PostgreSQL with LEADSYNC_TEST_PG) as from the same state read whole (a
// state file named with --state): each block's people, the people of an
// output counted once (Bob is in both searches), an enrich block's people
// (Cem's enrichment a copy), the console's counts and a where.
func TestOutputAndConsoleFromTheStore(t *testing.T) {
	t.Parallel()
	whole := storedReadDir(t, "", nil)
	db := local.NewStore(filepath.Join(whole, ".leadsync", "state.db"))
	defer db.Close()
	s, err := db.Load()
	if err != nil {
		t.Fatal(err)
	}
	if err := local.NewStore(filepath.Join(whole, "whole.json")).Save(s); err != nil {
		t.Fatal(err)
	}
	want := storedReadAnswers(t, whole, nil, "--state", "whole.json")
	for _, w := range []string{
		"ctos = 4 people in 3 blocks", `search.cto["Berlin"]   2 people`, "profile.founder        1 person",
		"reached = 2 people in 2 blocks", "enrich.contacts  2 people", "track.champions  1 person",
		"2\n1\n2 of 4 people selected:\n  person.101.aa  Ann Albers\n  person.103.cc  Cem Cakir\n",
	} {
		if !strings.Contains(want, w) {
			t.Fatalf("the state read whole gives no %q:\n%s", w, want)
		}
	}
	t.Run("SQLite", func(t *testing.T) {
		dir := storedReadDir(t, "", nil)
		if got := storedReadAnswers(t, dir, nil); got != want {
			t.Errorf("from the database:\n%s\nwant, as from the state read whole:\n%s", got, want)
		}
	})
	t.Run("pg", func(t *testing.T) {
		cs, schema := pgTestSchema(t)
		env := []string{"LEADSYNC_PG_CONN_STR=" + cs}
		dir := storedReadDir(t, "leadsync {\n  backend \"pg\" {\n    schema_name = \""+schema+"\"\n  }\n}\n", env)
		if got := storedReadAnswers(t, dir, env); got != want {
			t.Errorf("from PostgreSQL:\n%s\nwant, as from the state read whole:\n%s", got, want)
		}
	})
}

// storedReadDir is a configuration folder (with extra, a backend block)
// whose state holds storedReadEvents, written as an apply writes them.
func storedReadDir(t *testing.T, extra string, env []string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(storedReadConfig+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errOut := configTestFactory(dir, env...)
	cfg, diags := loadConfigNoLists(f, arguments.Vars{})
	if diags.HasErrors() {
		t.Fatalf("%v\n%s", diags, errOut)
	}
	src, err := openSource(f, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer src.close()
	backendtest.Apply(t, src.backend, storedReadEvents())
	return dir
}

// storedReadAnswers runs output, output --json and the console's lines in
// dir with args, and returns what they printed; a state in a store must
// be read as a Base whose people it reads on request, not whole.
func storedReadAnswers(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	if len(args) == 0 {
		f, _, _ := configTestFactory(dir, env...)
		cfg, diags := loadConfigNoLists(f, arguments.Vars{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		src, b, err := openBaseOf(f, arguments.State{}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		stored := b.Stored()
		b.Close()
		src.close()
		if !stored {
			t.Fatalf("the state of %s was read whole, not from its store", dir)
		}
	}
	var all strings.Builder
	for _, cmd := range [][]string{{"output"}, {"output", "--json"}, {"console"}} {
		f, out, errOut := configTestFactory(dir, env...)
		f.IO.In = strings.NewReader(storedReadLines)
		if code := Run(context.Background(), f, append(cmd, args...)); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", strings.Join(cmd, " "), code, out, errOut)
		}
		all.WriteString(out.String())
	}
	return all.String()
}
