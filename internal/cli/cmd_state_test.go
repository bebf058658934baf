package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

const stateTestConfig = `
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
`

// stateTestDir is a configuration folder with a state made by a few calls;
// the clock of configTestFactory is 2026-01-02 03:04:05 UTC.
func stateTestDir(t *testing.T) (dir string, store *local.Store) {
	t.Helper()
	dir = t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(stateTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC)
	s := state.New()
	s.Lineage = "00000000-0000-4000-8000-000000000001"
	leads := []person.Lead{
		{FullName: "Ann Albers", FirstName: "Ann", LastName: "Albers", Title: "CTO", Company: "ACME", NetworkID: "101.aa", PageName: "ann"},
		{FullName: "Bob Brandt", FirstName: "Bob", LastName: "Brandt", Title: "CTO", Company: "Bits & Bytes", NetworkID: "102.bb", PageName: "bob"},
	}
	events := []state.Event{
		{At: at, Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"city":"Berlin","keywords":"CTO"}`), Leads: leads}},
		{At: at.Add(time.Hour), Kind: state.EventSearch, Address: `search.cto["Hamburg"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"city":"Hamburg","keywords":"CTO"}`), Leads: leads[1:]}},
		{At: at, Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen1, PageName: "Max_Mustermann", Request: []byte(`{"pageName":"Max_Mustermann"}`),
			Profile: person.Profile{FullName: "Max Mustermann", CurrentPosition: []person.Position{{JobTitle: "Founder", Company: "Muster AG"}}}}},
		{At: at, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "101.aa", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "101.aa", Email: "ann@acme.example", ValidationStatus: person.StatusValid, CompanyDomain: "acme.example", CreditBalance: 499}}},
		{At: at, Kind: state.EventBilling, Billing: &api.Usage{RemainingRequests: 9114, InvoicingStartDate: "2025-12-01"}},
		{At: at, Kind: state.EventFailure, Address: "search.old", Failure: &state.Failure{Message: "service unavailable", Status: 503}},
		// Ann changed jobs after her enrichment; Bob left the network.
		{At: at.Add(2 * time.Hour), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{PersonID: "101.aa", Generation: api.Gen1,
			Request: []byte(`{"pageName":"ann"}`), Profile: &person.Profile{FullName: "Ann Albers", CurrentPosition: []person.Position{{JobTitle: "VP Engineering", Company: "Rheinbank AG"}}}}},
		{At: at.Add(2 * time.Hour), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{PersonID: "102.bb", Generation: api.Gen1,
			Request: []byte(`{"pageName":"bob"}`), Gone: true}},
	}
	for _, e := range events {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	store = local.NewStore(filepath.Join(dir, ".leadsync", "state.db"))
	if err := store.Save(s); err != nil {
		t.Fatal(err)
	}
	return dir, store
}

func TestStateCommandsGolden(t *testing.T) {
	dir, _ := stateTestDir(t)
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"show", []string{"show"}},
		{"show-json", []string{"show", "--json"}},
		{"state-list", []string{"state", "list"}},
		{"state-list-prefix", []string{"state", "list", "--no-people", "search.cto"}},
		{"state-list-json", []string{"state", "list", "--json"}},
		{"state-list-json-empty", []string{"state", "list", "--json", "nothing."}},
		{"state-show-search", []string{"state", "show", `search.cto["Berlin"]`}},
		{"state-show-profile", []string{"state", "show", "profile.founder"}},
		{"state-show-person", []string{"state", "show", "person.101.aa"}},
		{"state-show-person-json", []string{"state", "show", "--json", "person.101.aa"}},
		{"state-show-person-left", []string{"state", "show", "person.102.bb"}},
		{"state-show-person-profile", []string{"state", "show", "person.page:Max_Mustermann"}},
		{"state-show-profile-json", []string{"state", "show", "--json", "profile.founder"}},
		{"state-show-track", []string{"state", "show", "track.champions"}},
		{"state-show-track-json", []string{"state", "show", "--json", "track.champions"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runIn(t, dir, tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			golden.Check(t, filepath.Join("testdata", "state", tt.name+".golden"), []byte(out))
		})
	}
}

func TestShowJSONHasNoNullLists(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.leads.hcl"), []byte(stateTestConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runIn(t, dir, "show", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "null") {
		t.Errorf("null in:\n%s", out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || v["format_version"] != "1" {
		t.Errorf("%v: %s", err, out)
	}
	code, out, _ = runIn(t, dir, "show")
	if code != 0 || !strings.Contains(out, "No state yet") {
		t.Errorf("exit %d: %s", code, out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync")); err == nil {
		t.Error("show created the state folder")
	}
}

func TestStateShowUnknownAddress(t *testing.T) {
	dir, _ := stateTestDir(t)
	code, _, errOut := runIn(t, dir, "state", "show", "search.cto[Berlin]")
	if code != 1 || !strings.Contains(errOut, `search.cto["Berlin"]`) || !strings.Contains(errOut, "quote instance keys") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestStateShowUnknownAddressMessage: one sentence per point, a suggestion
// for a typo, the address form for something that is no address.
func TestStateShowUnknownAddressMessage(t *testing.T) {
	dir, _ := stateTestDir(t)
	tests := []struct{ args, want []string }{
		{[]string{"state", "show", "profile.fonder"}, []string{"the state holds nothing at profile.fonder; did you mean profile.founder?", `Run "leadsync state list" to see every address`}},
		{[]string{"state", "show", "garbage"}, []string{"holds nothing at garbage. Addresses look like search.cto,", `. Run "leadsync state list"`}},
		{[]string{"state", "rm", "search.nope"}, []string{"the state holds nothing at search.nope, so nothing was removed. Run"}},
	}
	for _, tt := range tests {
		code, out, errOut := runIn(t, dir, tt.args...)
		if code != 1 || out != "" || strings.Count(errOut, "Error:") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", tt.args, code, out, errOut)
		}
		for _, w := range tt.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr lacks %q: %s", tt.args, w, errOut)
			}
		}
	}
}

func TestStateRm(t *testing.T) {
	dir, store := stateTestDir(t)
	before, _ := os.ReadFile(store.Path())

	// One unknown address: nothing is removed.
	code, _, errOut := runIn(t, dir, "state", "rm", `search.cto["Berlin"]`, "search.nope")
	if code != 1 || !strings.Contains(errOut, "nothing was removed") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(store.Path()); string(after) != string(before) {
		t.Fatal("state changed")
	}

	code, out, errOut := runIn(t, dir, "state", "rm", `search.cto["Berlin"]`, "person.102.bb")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "state", "state-rm.golden"), []byte(out))
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Searches[`search.cto["Berlin"]`] != nil || s.People["102.bb"] != nil || s.People["101.aa"] == nil || s.People["101.aa"].Enrichment == nil {
		t.Errorf("after rm: searches %v, people %v", s.Addresses(false), s.Addresses(true))
	}
	if len(s.Searches[`search.cto["Hamburg"]`].LeadIDs) != 0 {
		t.Errorf("removed person still listed: %v", s.Searches[`search.cto["Hamburg"]`].LeadIDs)
	}
	// The database keeps no copy of each write (the JSON file's backup:
	// internal/state/local's tests), and state rm says none.
	if _, err := os.Stat(store.BackupPath()); !os.IsNotExist(err) || strings.Contains(out, "kept in") {
		t.Errorf("a backup is named or made by a write to the database (%v):\n%s", err, out)
	}
	if _, err := os.Stat(store.LockPath()); !os.IsNotExist(err) {
		t.Errorf("lock left behind: %v", err)
	}
}

// TestStateRmTrack: state rm track.X forgets when the track read its
// people, and says so: the track leaves state list, its people have no
// read time left (so the next plan finds them due), their history and
// status stay; a person a profile block read keeps that read.
func TestStateRmTrack(t *testing.T) {
	dir, store := stateTestDir(t)
	code, out, errOut := runIn(t, dir, "state", "rm", "track.champions")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden.Check(t, filepath.Join("testdata", "state", "state-rm-track.golden"), []byte(out))
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if k := s.Kind("track.champions"); k != "" {
		t.Errorf("track.champions is still a %s in state", k)
	}
	for _, id := range []string{"101.aa", "102.bb"} {
		p := s.People[id]
		if p.Tracked != nil || p.Checked() != nil || len(p.History) == 0 {
			t.Errorf("%s after rm: tracked %v, checked %v, history %d; want no read time and the history kept", id, p.Tracked, p.Checked(), len(p.History))
		}
	}
	if s.People["102.bb"].Status != state.StatusLeft {
		t.Errorf("Bob's status %q: a removed track's record keeps what was found", s.People["102.bb"].Status)
	}
	if s.People["page:Max_Mustermann"].Checked() == nil {
		t.Error("the profile block's read of the founder was forgotten with the track")
	}
	code, out, _ = runIn(t, dir, "state", "list", "--no-people")
	if code != 0 || strings.Contains(out, "track.") {
		t.Errorf("state list after rm (exit %d):\n%s", code, out)
	}
}

func TestStateRmRespectsTheLock(t *testing.T) {
	dir, store := stateTestDir(t)
	l, err := store.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runIn(t, dir, "state", "rm", "profile.founder")
	if code != 1 || !strings.Contains(errOut, "locked by") || !strings.Contains(errOut, l.Info.ID) {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestForceUnlock(t *testing.T) {
	dir, store := stateTestDir(t)
	code, _, errOut := runIn(t, dir, "force-unlock", "abc")
	if code != 1 || !strings.Contains(errOut, "not locked") {
		t.Errorf("unlocked: exit %d: %s", code, errOut)
	}
	l, err := store.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runIn(t, dir, "force-unlock", "abc", "--force")
	if code != 1 || !strings.Contains(errOut, "does not match") {
		t.Errorf("wrong ID: exit %d: %s", code, errOut)
	}
	code, _, errOut = runIn(t, dir, "force-unlock", l.Info.ID)
	if code != 1 || !strings.Contains(errOut, "--force") {
		t.Errorf("no terminal, no --force: exit %d: %s", code, errOut)
	}

	// On a terminal, input that ends without an answer cancels, and the
	// error starts on a line of its own.
	f, _, errBuf := configTestFactory(dir)
	f.IO.InTTY = true
	f.IO.In = strings.NewReader("")
	if code := Run(context.Background(), f, []string{"force-unlock", l.Info.ID}); code != 1 {
		t.Fatalf("EOF at the prompt: exit %d: %s", code, errBuf)
	}
	if !strings.Contains(errBuf.String(), "accepted: \nError: force-unlock cancelled") {
		t.Errorf("EOF at the prompt: %q", errBuf)
	}

	// On a terminal, "yes" confirms.
	f, out, errBuf := configTestFactory(dir)
	f.IO.InTTY = true
	f.IO.In = strings.NewReader("yes\n")
	if code := Run(context.Background(), f, []string{"force-unlock", l.Info.ID}); code != 0 {
		t.Fatalf("exit %d: %s", code, errBuf)
	}
	if !strings.Contains(out.String(), "Removed the state lock") {
		t.Errorf("output %q", out)
	}
	if info, _ := store.ReadLock(); info != nil {
		t.Errorf("still locked: %+v", info)
	}
}

func TestStateCommandsWithStateFlag(t *testing.T) {
	_, store := stateTestDir(t)
	empty := t.TempDir() // no configuration at all
	code, out, errOut := runIn(t, empty, "state", "list", "--no-people", "--state", store.Path())
	if code != 0 || !strings.Contains(out, "profile.founder") {
		t.Errorf("exit %d: %s%s", code, out, errOut)
	}
	code, _, errOut = runIn(t, empty, "state", "list")
	if code != 1 || !strings.Contains(errOut, "--state") {
		t.Errorf("without configuration: exit %d: %s", code, errOut)
	}
}

// TestShowCountsEnrichmentInFlightAtKill: an apply killed with Bob's
// enrichment in flight leaves its pending note in the journal and no
// outcome; show (which replays the journal) counts that credit as one
// that may have been charged, in the text and in --json.
func TestShowCountsEnrichmentInFlightAtKill(t *testing.T) {
	dir, store := stateTestDir(t)
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	rec, err := store.AsBackend().OpenJournal(s)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 12, 31, 10, 0, 0, 0, time.UTC)
	e := state.Event{At: at, Kind: state.EventEnrichPending, Address: "enrich.contacts",
		Enrich: &state.EnrichEvent{PersonID: "102.bb", Credits: 1}}
	if err := rec.Append(&e); err != nil {
		t.Fatal(err)
	}
	// Killed: the call stays recorded, not folded into the rows.
	store.Close()
	code, out, errOut := runIn(t, dir, "show")
	if code != 0 || !strings.Contains(out, "1 credit spent in all runs (and 1 that may have been charged: enrichments whose outcome is unknown)") {
		t.Errorf("show after a kill with an enrichment in flight: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, "show", "--json")
	if code != 0 || !strings.Contains(out, `"credits_unknown": 1`) {
		t.Errorf("show --json after a kill with an enrichment in flight: exit %d\n%s%s", code, out, errOut)
	}
}

// TestStateShowFailure: an address whose only call failed is shown with
// its last failure (show lists it under the failures of the last runs), in
// text and JSON.
func TestStateShowFailure(t *testing.T) {
	dir, _ := stateTestDir(t)
	code, out, errOut := runIn(t, dir, "state", "show", "search.old")
	if code != 0 || !strings.Contains(out, "no successful call recorded") || !strings.Contains(out, "last failure") || !strings.Contains(out, "HTTP 503: service unavailable") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runIn(t, dir, "state", "show", "--json", "search.old")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	var got struct {
		Kind        string         `json:"kind"`
		LastFailure *state.Failure `json:"last_failure"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || got.Kind != "failure" || got.LastFailure == nil || got.LastFailure.Status != 503 {
		t.Errorf("json %+v (%v):\n%s", got, err, out)
	}
}

// TestShowJSONFirstRun: show --json says which searches had only their
// first run, and counts their people as added, not 0.
func TestShowJSONFirstRun(t *testing.T) {
	dir, _ := stateTestDir(t)
	code, out, errOut := runIn(t, dir, "show", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var v struct {
		Searches []struct {
			Address  string `json:"address"`
			Kept     int    `json:"kept"`
			Added    int    `json:"added"`
			FirstRun *bool  `json:"first_run"`
		} `json:"searches"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	for _, s := range v.Searches {
		if s.FirstRun == nil || !*s.FirstRun || s.Added != s.Kept || s.Kept == 0 {
			t.Errorf("%s: first_run %v, added %d, kept %d; want a first run with every person kept added", s.Address, s.FirstRun, s.Added, s.Kept)
		}
	}
}
