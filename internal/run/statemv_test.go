package run

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/leadsync/leadsync/internal/state"
)

func TestStateMvMovesEveryRecord(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	moves, err := StateMv(d, "search.cto", "module.dach.search.cto")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock state mv, load, journal, commit, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s", got, want)
	}
	want := []state.Move{
		{From: `search.cto["Berlin"]`, To: `module.dach.search.cto["Berlin"]`},
		{From: `search.cto["Hamburg"]`, To: `module.dach.search.cto["Hamburg"]`},
	}
	if !reflect.DeepEqual(moves, want) {
		t.Errorf("moves = %+v", moves)
	}
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Searches[`search.cto["Berlin"]`] != nil || s.Searches[`module.dach.search.cto["Berlin"]`] == nil {
		t.Fatalf("searches after the move: %v", s.Addresses(false))
	}
	if got := s.Searches[`module.dach.search.cto["Berlin"]`].Address; got != `module.dach.search.cto["Berlin"]` {
		t.Errorf("the record keeps its old address inside: %s", got)
	}
	if got := s.People["101.aa"].FoundBy; !reflect.DeepEqual(got, []string{`module.dach.search.cto["Berlin"]`, `module.dach.search.cto["Hamburg"]`}) {
		t.Errorf("Ann is found by %q", got)
	}

	// An enrich block: its enrichments follow it.
	if _, err := StateMv(d, "enrich.contacts", "enrich.cto_contacts"); err != nil {
		t.Fatal(err)
	}
	s, _ = store.Load()
	if by := s.People["101.aa"].Enrichment.By; by != "enrich.cto_contacts" {
		t.Errorf("Ann's enrichment is by %s", by)
	}
}

func TestStateMvRefusesWithoutWriting(t *testing.T) {
	tests := []struct {
		from, to string
		check    func(error) bool
		want     string
	}{
		{"search.nope", "search.other", func(err error) bool { var u *UnknownAddressError; return errors.As(err, &u) }, "holds nothing at search.nope, so nothing was moved"},
		{`search.cto["Berlin"]`, `search.cto["Hamburg"]`, func(err error) bool { var c *MoveConflictError; return errors.As(err, &c) }, `already holds records at search.cto["Hamburg"]`},
		{`search.cto["Berlin"]`, "search.cto", func(err error) bool { var c *MoveConflictError; return errors.As(err, &c) },
			`already holds records at search.cto["Hamburg"], so nothing was moved: moving search.cto["Berlin"] to search.cto would keep records of search.cto both without a key and with keys`},
		{"search.cto", "profile.cto", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) }, "a search moves to a search"},
		{"track.a[0]", "track.b", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) }, "track.a[0]: a track block has no instances; write track.a"},
		{"import.crm", "profile.crm", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) },
			"from is an import block and to is a profile: a search moves to a search, a profile to a profile, an import block to an import block, an enrich block to an enrich block, a track block to a track block, a module to a module"},
		{"search.cto", "search.cto", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) }, "the same address"},
		{"export.x", "export.y", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) }, "export blocks have none in state"},
		{"search", "search.y", func(err error) bool { var i *InvalidMoveError; return errors.As(err, &i) }, "not an address"},
	}
	for _, tc := range tests {
		d, b, store, _ := seededDeps(t)
		before, _ := store.Load()
		_, err := StateMv(d, tc.from, tc.to)
		if err == nil || !tc.check(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("StateMv(%s, %s) = %v; want an error with %q", tc.from, tc.to, err, tc.want)
		}
		for _, op := range b.ops {
			if op == "journal" || op == "commit" {
				t.Errorf("StateMv(%s, %s) wrote: %v", tc.from, tc.to, b.ops)
			}
		}
		after, _ := store.Load()
		if after.Serial != before.Serial {
			t.Errorf("StateMv(%s, %s) changed the state", tc.from, tc.to)
		}
	}
}

func TestStateMvWithoutState(t *testing.T) {
	d, _, _, _ := seededDeps(t)
	d.Exists = func(*state.State) bool { return false }
	if _, err := StateMv(d, "search.cto", "search.x"); !errors.Is(err, ErrNoState) {
		t.Errorf("err = %v, want ErrNoState", err)
	}
}

// state rm of a block or a module removes every record inside it.
func TestStateRmOfABlockOrModule(t *testing.T) {
	d, _, store, _ := seededDeps(t)
	if _, err := StateMv(d, "search.cto", "module.dach.search.cto"); err != nil {
		t.Fatal(err)
	}
	removed, err := StateRm(d, []string{"module.dach"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range removed {
		got = append(got, r.Address)
	}
	if want := []string{`module.dach.search.cto["Berlin"]`, `module.dach.search.cto["Hamburg"]`}; !reflect.DeepEqual(got, want) {
		t.Errorf("removed %q, want %q", got, want)
	}
	s, _ := store.Load()
	if got := s.Addresses(false); !reflect.DeepEqual(got, []string{"profile.founder"}) {
		t.Errorf("left %q", got)
	}
	if _, err := StateRm(d, []string{"module.nope"}); err == nil || !strings.Contains(err.Error(), "holds nothing at module.nope") {
		t.Errorf("unknown module: %v", err)
	}
}
