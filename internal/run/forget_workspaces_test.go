package run

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
)

// TestForgetEveryWorkspace: an erasure in one workspace removes the person
// from every workspace that holds them and suppresses them in all; a
// workspace that cannot be locked stops it before anything is written.
func TestForgetEveryWorkspace(t *testing.T) {
	at := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	set := local.NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.json"), nil)
	for _, ws := range []string{"dach", "uk", "fr"} {
		if err := set.CreateWorkspace(ws); err != nil {
			t.Fatal(err)
		}
	}
	seed := func(ws string, leads ...person.Lead) {
		b, _ := set.Open(ws)
		s := state.New()
		if err := s.Fold(state.Event{At: at, Kind: state.EventSearch, Address: "search.cto", Search: &state.SearchEvent{
			Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`), Leads: leads}}); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(s); err != nil {
			t.Fatal(err)
		}
	}
	max := person.Lead{NetworkID: "1.a", PageName: "Max_M", FullName: "Max M"}
	eva := person.Lead{NetworkID: "2.b", PageName: "Eva_E", FullName: "Eva E"}
	seed("dach", max, eva)
	seed("uk", eva)
	seed("fr", max)
	uk, _ := set.Open("uk")
	d := Deps{Backend: uk, Now: func() time.Time { return at }}

	// fr is locked by another run: nothing is erased anywhere.
	fr, _ := set.Open("fr")
	held, err := fr.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Forget(d, ForgetOptions{People: []string{"Max_M"}}); err == nil || !strings.Contains(err.Error(), `workspace "fr" cannot be locked`) {
		t.Fatalf("forget with fr locked: %v", err)
	}
	held.Unlock()
	for _, ws := range []string{"dach", "uk", "fr"} {
		b, _ := set.Open(ws)
		s, _ := b.Load()
		if len(s.Suppressed) != 0 {
			t.Fatalf("%s was written although the erasure stopped", ws)
		}
	}

	res, err := Forget(d, ForgetOptions{People: []string{"https://network.example/profile/Max_M"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.People[0].Outcome != ForgetSuppressed {
		t.Errorf("uk did not hold Max: %+v", res.People[0])
	}
	want := map[string]bool{"dach": true, "fr": true, "default": false}
	if len(res.Workspaces) != 2 {
		t.Fatalf("workspaces %+v (the default one holds no state)", res.Workspaces)
	}
	for _, w := range res.Workspaces {
		if got := len(w.Held) == 1; got != want[w.Workspace] || w.Entries != 1 {
			t.Errorf("%s: %+v", w.Workspace, w)
		}
	}
	for _, ws := range []string{"dach", "uk", "fr"} {
		b, _ := set.Open(ws)
		s, err := b.Load()
		if err != nil {
			t.Fatal(err)
		}
		if s.People["1.a"] != nil || !s.IsSuppressed(max) {
			t.Errorf("%s still holds Max, or does not suppress him", ws)
		}
		if ws == "dach" && s.People["2.b"] == nil {
			t.Errorf("dach lost Eva")
		}
	}
}
