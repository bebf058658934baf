package export

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
)

// privateState is a search's six people as profile and track reads left
// them, built through Fold:
//
//	Ann   profile read public, then a track read found it private
//	Bob   never read by a profile block; a track read found it private
//	Cleo  profile read private, then a track read found it public
//	Dan   profile read public, then a track read found them gone
//	Eve   never read
//	Fay   profile read public, a track read public too
func privateState(t *testing.T) *state.State {
	t.Helper()
	at := t0
	next := func() time.Time { at = at.Add(time.Hour); return at }
	lead := func(page, name string) person.Lead {
		return person.Lead{NetworkID: "n-" + page, PageName: page, FullName: name, Title: "CTO", Company: "ACME"}
	}
	public := func(name string) person.Profile {
		return person.Profile{FullName: name, CurrentPosition: []person.Position{{JobTitle: "CTO", Company: "ACME"}}}
	}
	read := func(page string, p person.Profile) state.Event {
		return state.Event{At: next(), Kind: state.EventProfile, Address: founder, Profile: &state.ProfileEvent{
			Generation: api.Gen1, PageName: page, Request: []byte(`{"pageName":"` + page + `"}`), Profile: p}}
	}
	track := func(page string, p *person.Profile) state.Event {
		return state.Event{At: next(), Kind: state.EventTrack, Address: "track.champions", Track: &state.TrackEvent{
			PersonID: "n-" + page, Generation: api.Gen1, Request: []byte(`{"pageName":"` + page + `"}`), Profile: p, Gone: p == nil}}
	}
	s := state.New()
	events := []state.Event{
		{At: next(), Kind: state.EventSearch, Address: berlin, Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"keywords":"CTO"}`),
			Leads: []person.Lead{lead("ann", "Ann"), lead("bob", "Bob"), lead("cleo", "Cleo"), lead("dan", "Dan"), lead("eve", "Eve"), lead("fay", "Fay")}}},
		read("ann", public("Ann")), read("cleo", person.Profile{FullName: "Cleo", Private: true}), read("dan", public("Dan")), read("fay", public("Fay")),
		track("ann", &person.Profile{Private: true}), track("bob", &person.Profile{Private: true}),
		track("cleo", func() *person.Profile { p := public("Cleo"); return &p }()), track("dan", nil),
		track("fay", func() *person.Profile { p := public("Fay"); return &p }()),
	}
	for _, e := range events {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestPrivateColumnGolden: the private column, and person.private in a
// sheet's where, show the latest knowledge of a profile, whichever read
// found it: a track read that finds a profile private (Ann, Bob) or public
// (Cleo) wins over an older profile read; a profile gone (Dan) or never
// read (Eve) is unknown, an empty cell, and not private in a where.
func TestPrivateColumnGolden(t *testing.T) {
	dir := t.TempDir()
	cols := []string{"fullName", "private", "premiumProfile"}
	cfg, _ := fixture("out/private.xlsx",
		&config.Sheet{Name: "Everyone", From: []string{"search.cto"}, Dedupe: true, Columns: cols},
		&config.Sheet{Name: "Private", From: []string{"search.cto"}, Dedupe: true, Columns: cols,
			Where: whereExpr(t, `person.private`), WhereFields: []string{"private"}},
		&config.Sheet{Name: "Not private", From: []string{"search.cto"}, Dedupe: true, Columns: cols,
			Where: whereExpr(t, `!person.private`), WhereFields: []string{"private"}})
	cfg.Dir = dir
	got, err := writeExports(cfg, privateState(t), Options{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	f := openXLSX(t, got[0].Path)
	var out []byte
	for _, sh := range []string{"Everyone", "Private", "Not private"} {
		out = append(out, "== "+sh+"\n"+dumpCells(t, f, sh)...)
	}
	golden.Check(t, "testdata/private.xlsx.txt", out)
}
