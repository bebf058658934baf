package run

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
)

// seededDeps is a Deps over a local state file holding two people (Ann,
// found by two searches and enriched; Bob, by one) and a profile read.
func seededDeps(t *testing.T) (Deps, *recBackend, *local.Store, string) {
	t.Helper()
	dir := t.TempDir()
	leads := []person.Lead{
		{FullName: "Ann Albers", NetworkID: "101.aa", PageName: "ann"},
		{FullName: "Bob Brandt", NetworkID: "102.bb", PageName: "bob"},
	}
	s := state.New()
	for _, e := range []state.Event{
		{At: t0, Kind: state.EventSearch, Address: `search.cto["Berlin"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"city":"Berlin"}`), Leads: leads}},
		{At: t0, Kind: state.EventSearch, Address: `search.cto["Hamburg"]`, Search: &state.SearchEvent{Generation: api.Gen1, Request: []byte(`{"city":"Hamburg"}`), Leads: leads[:1]}},
		{At: t0, Kind: state.EventProfile, Address: "profile.founder", Profile: &state.ProfileEvent{Generation: api.Gen1, PageName: "Max_Mustermann", Request: []byte(`{"pageName":"Max_Mustermann"}`),
			Profile: person.Profile{FullName: "Max Mustermann"}}},
		{At: t0, Kind: state.EventEnrich, Address: "enrich.contacts", Enrich: &state.EnrichEvent{PersonID: "101.aa", Credits: 1,
			Result: person.EnrichedProfile{NetworkID: "101.aa", Email: "ann@acme.example", ValidationStatus: person.StatusValid, CompanyDomain: "acme.example"}}},
	} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	store := local.NewStore(filepath.Join(dir, ".leadsync", "state.json"))
	if err := store.Save(s); err != nil {
		t.Fatal(err)
	}
	b := &recBackend{Backend: store.AsBackend()}
	return Deps{Backend: b, Now: func() time.Time { return t0 }, Exists: func(*state.State) bool { return store.Exists() }}, b, store, dir
}

func TestForgetRunsThroughTheBackend(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	dropped := 0
	res, err := Forget(d, ForgetOptions{People: []string{"ann", "Zed", "101.aa"}, DropBackup: func() error {
		dropped++
		if got := b.ops[len(b.ops)-1]; got != "commit" {
			t.Errorf("the backup is dropped after %q; want after the commit", got)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock forget, load, journal, commit, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s", got, want)
	}
	var outcomes []ForgetOutcome
	for _, p := range res.People {
		outcomes = append(outcomes, p.Outcome)
	}
	if want := []ForgetOutcome{ForgetRemoved, ForgetSuppressed, ForgetSamePerson}; !reflect.DeepEqual(outcomes, want) {
		t.Errorf("outcomes %v, want %v", outcomes, want)
	}
	if p := res.People[0].Person; p == nil || p.ID != "101.aa" {
		t.Errorf("removed person: %+v", p)
	}
	if res.Entries != 2 || res.Suppressed != 2 || dropped != 1 {
		t.Errorf("entries %d, suppressed %d, backup dropped %d times; want 2, 2, 1", res.Entries, res.Suppressed, dropped)
	}
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.People["101.aa"] != nil || s.People["102.bb"] == nil || len(s.Suppressed) != 2 {
		t.Errorf("after forget: Ann %v, Bob %v, %d suppressed", s.People["101.aa"] != nil, s.People["102.bb"] != nil, len(s.Suppressed))
	}

	// Again, and one more: this call's count and the total are apart.
	b.ops = nil
	res, err = Forget(d, ForgetOptions{People: []string{"bob"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Entries != 1 || res.Suppressed != 3 {
		t.Errorf("second forget: entries %d, suppressed %d; want 1 and 3", res.Entries, res.Suppressed)
	}
}

func TestForgetOfTheAlreadyErasedWritesNothing(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	if _, err := Forget(d, ForgetOptions{People: []string{"ann"}}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	b.ops = nil
	res, err := Forget(d, ForgetOptions{People: []string{"ann", "101.aa"}, DropBackup: func() error { t.Error("backup dropped with nothing written"); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock forget, load, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s (no journal, no commit)", got, want)
	}
	if res.Entries != 0 || res.Suppressed != 1 || res.People[0].Outcome != ForgetAlreadyErased {
		t.Errorf("result %+v", res)
	}
	if after, _ := os.ReadFile(store.Path()); string(after) != string(before) {
		t.Error("the state file changed")
	}
}

func TestForgetBlankPersonTouchesNothing(t *testing.T) {
	d, b, _, _ := seededDeps(t)
	if _, err := Forget(d, ForgetOptions{People: []string{"ann", " "}}); !errors.Is(err, ErrBlankPerson) {
		t.Errorf("err = %v, want ErrBlankPerson", err)
	}
	if len(b.ops) != 0 {
		t.Errorf("backend used: %v", b.ops)
	}
}

// TestForgetRefusesWhatNamesNobody: a full name is no identifier (a page
// name has no spaces): forget refuses it, changes nothing (no journal, no
// commit, the file as it was), says which forms are accepted and, when
// people of the state have that name, their page names to choose from.
// Before, "Ann Albers" was suppressed as an identifier nobody has, and
// Ann stayed.
func TestForgetRefusesWhatNamesNobody(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	before, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		people  []string
		matches []string
		says    string
	}{
		{[]string{"Ann Albers"}, []string{"ann"}, "The state holds one person of that name: leadsync forget ann."},
		{[]string{"bob", "  ann   ALBERS "}, []string{"ann"}, "leadsync forget ann"},
		{[]string{"Marie Schmidt"}, nil, "No one in the state has that name."},
		{[]string{"12345 678"}, nil, "a page name (no spaces: Max_Mustermann)"},
	} {
		b.ops = nil
		_, err := Forget(d, ForgetOptions{People: tc.people, DropBackup: func() error { t.Error("backup dropped"); return nil }})
		var np *NotAPersonError
		if !errors.As(err, &np) || !reflect.DeepEqual(np.Matches, tc.matches) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "nothing was changed") {
			t.Errorf("forget %q: %v; want a refusal naming %v and saying %q", tc.people, err, tc.matches, tc.says)
		}
		if got := strings.Join(b.ops, ", "); strings.Contains(got, "journal") || strings.Contains(got, "commit") {
			t.Errorf("forget %q wrote: %s", tc.people, got)
		}
	}
	if after, _ := os.ReadFile(store.Path()); string(after) != string(before) {
		t.Error("the state file changed")
	}
	// The accepted forms still work.
	res, err := Forget(d, ForgetOptions{People: []string{"102.bb", "https://network.example/profile/ann", "person.Max_Mustermann", "ACoAAB12345"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.People[0].Outcome != ForgetRemoved || res.People[1].Outcome != ForgetRemoved {
		t.Errorf("accepted forms: %+v", res.People)
	}
}

func TestLockRefusedNamesTheHolder(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	held, err := store.Lock("apply")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	for name, op := range map[string]func() error{
		"forget":   func() error { _, err := Forget(d, ForgetOptions{People: []string{"ann"}}); return err },
		"state rm": func() error { _, err := StateRm(d, []string{"profile.founder"}); return err },
	} {
		b.ops = nil
		err := op()
		var le *local.LockedError
		if !errors.As(err, &le) || le.Info == nil || le.Info.ID != held.Info.ID || le.Info.Operation != "apply" {
			t.Errorf("%s: err = %v; want a *local.LockedError naming the apply holding it", name, err)
		}
		if got := strings.Join(b.ops, ", "); got != "lock "+name {
			t.Errorf("%s: backend use %s; want the lock only", name, got)
		}
	}
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.People["101.aa"] == nil || len(s.Suppressed) != 0 || s.Profiles["profile.founder"] == nil {
		t.Error("a refused lock changed the state")
	}
}

func TestStateRmRunsThroughTheBackend(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	removed, err := StateRm(d, []string{`search.cto["Berlin"]`, "person.102.bb", "profile.founder", "profile.founder"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock state rm, load, commit, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s", got, want)
	}
	want := []RemovedRecord{
		{Address: `search.cto["Berlin"]`, Kind: "search", Leads: 2},
		{Address: "person.102.bb", Kind: "person"},
		{Address: "profile.founder", Kind: "profile"},
	}
	if !reflect.DeepEqual(removed, want) {
		t.Errorf("removed %+v\nwant %+v", removed, want)
	}
	s, err := store.Load()
	if err != nil {
		t.Fatal(err)
	}
	if s.Searches[`search.cto["Berlin"]`] != nil || s.Profiles["profile.founder"] != nil || s.People["102.bb"] != nil || s.People["101.aa"] == nil {
		t.Errorf("after rm: %v", s.Addresses(true))
	}
}

func TestStateRmOfAnUnknownAddressWritesNothing(t *testing.T) {
	d, b, store, _ := seededDeps(t)
	before, err := os.ReadFile(store.Path())
	if err != nil {
		t.Fatal(err)
	}
	_, err = StateRm(d, []string{"profile.founder", `search.cto[Berlin]`})
	var ue *UnknownAddressError
	if !errors.As(err, &ue) || ue.Address != `search.cto[Berlin]` {
		t.Fatalf("err = %v, want an *UnknownAddressError", err)
	}
	if want := []string{`search.cto["Berlin"]`, `search.cto["Hamburg"]`}; !reflect.DeepEqual(ue.Near, want) {
		t.Errorf("near %v, want %v", ue.Near, want)
	}
	for _, w := range []string{"nothing at search.cto[Berlin], so nothing was removed", `did you mean search.cto["Berlin"]`, "quote instance keys"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("message lacks %q: %s", w, err)
		}
	}
	if got, want := strings.Join(b.ops, ", "), "lock state rm, load, unlock"; got != want {
		t.Errorf("backend use:\n got %s\nwant %s (no commit)", got, want)
	}
	if after, _ := os.ReadFile(store.Path()); string(after) != string(before) {
		t.Error("the state file changed")
	}
}

func TestStateRmWithoutStateIsErrNoState(t *testing.T) {
	b := &recBackend{Backend: local.Open(filepath.Join(t.TempDir(), "state.json"))}
	if _, err := StateRm(Deps{Backend: b}, []string{"search.x"}); !errors.Is(err, ErrNoState) {
		t.Errorf("err = %v, want ErrNoState", err)
	}
	if got := strings.Join(b.ops, ", "); got != "lock state rm, load, unlock" {
		t.Errorf("backend use %s", got)
	}
}

func TestExportReadsWithoutALock(t *testing.T) {
	d, b, _, dir := newDeps(t)
	cfg := loadConfig(t, dir)
	noState := 0
	written, err := Export(d, ExportOptions{Config: cfg, NoState: func() { noState++ }})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.ops, ", "); got != "load" {
		t.Errorf("backend use %s; want a load only", got)
	}
	if noState != 1 || len(written) != 2 {
		t.Errorf("no-state notices %d, files %d; want 1 and 2 (the CSV and its summary)", noState, len(written))
	}
	for _, w := range written {
		if _, err := os.Stat(w.Path); err != nil {
			t.Error(err)
		}
	}
}

func TestSavePlanIsRelativeToDir(t *testing.T) {
	d, _, _, dir := newDeps(t)
	d.Service = func() (api.Service, error) { t.Fatal("offline plan built a client"); return nil, nil }
	p, _, err := Plan(t.Context(), d, PlanOptions{Config: loadConfig(t, dir), Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := SavePlan(PlanOut{Config: loadConfig(t, dir), Dir: dir, Path: "leads.plan"}, p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "leads.plan")); err != nil {
		t.Error(err)
	}
}

func TestEarlyStateOnlyForItsPath(t *testing.T) {
	dir := t.TempDir()
	e := EarlyLoad(local.Open(filepath.Join(dir, "state.json")))
	other := local.Open(filepath.Join(dir, "other.json"))
	if got := e.For(other); got != other {
		t.Error("another path got the early state")
	}
	same := local.Open(filepath.Join(dir, "state.json"))
	if got := e.For(same); got == same {
		t.Error("its own path did not get the early state")
	}
	if got := (*EarlyState)(nil).For(other); got != other {
		t.Error("nil EarlyState")
	}
}

// recPusher records what StatePush pushed.
type recPusher struct {
	b      *recBackend
	header *state.State
	people int
	force  bool
}

func (p *recPusher) PushStream(src backend.Stream, force bool) (*backend.Pushed, error) {
	p.b.note("push")
	p.header, p.force = src.Header(), force
	err := src.People(func(batch []*state.Person) error {
		p.people += len(batch)
		return nil
	})
	return &backend.Pushed{Records: len(p.header.Searches) + len(p.header.Profiles), People: p.people}, err
}

func TestStatePushPushesUnderTheLock(t *testing.T) {
	_, from, _, _ := seededDeps(t)
	to := &recBackend{Backend: local.Open(filepath.Join(t.TempDir(), "shared.json"))}
	p := &recPusher{b: to}
	pushed, err := StatePush(Deps{Backend: to}, from, p, true)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(from.ops, ", "), "load"; got != want {
		t.Errorf("source: %s, want %s", got, want)
	}
	if got, want := strings.Join(to.ops, ", "), "lock state push, push, unlock"; got != want {
		t.Errorf("target: %s, want %s", got, want)
	}
	if !p.force || pushed.People != 3 || p.people != 3 { // Ann, Bob and the founder
		t.Errorf("pushed %d people (returned %d), force %v", p.people, pushed.People, p.force)
	}
}

// A push into a local workspace: under its lock, into its own folder; one
// never made is refused before anything is written.
func TestStatePushIntoLocalWorkspace(t *testing.T) {
	_, from, store, dir := seededDeps(t)
	lw := local.NewWorkspaces(store.Path(), nil)
	uk, err := lw.Open("uk")
	if err != nil {
		t.Fatal(err)
	}
	b := &recBackend{Backend: uk}
	if _, err := StatePush(Deps{Backend: b}, from, uk, false); !errors.As(err, new(*backend.NoWorkspaceError)) {
		t.Fatalf("push into a workspace never made: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".leadsync", "workspaces")); err == nil {
		t.Fatal("the refused push made the workspace")
	}
	if err := lw.CreateWorkspace("uk"); err != nil {
		t.Fatal(err)
	}
	b.ops = nil
	pushed, err := StatePush(Deps{Backend: b}, from, uk, false)
	if err != nil {
		t.Fatal(err)
	}
	s, err := from.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(b.ops, ", "), "lock state push, unlock"; got != want {
		t.Errorf("target: %s, want %s", got, want)
	}
	got, err := local.NewStore(filepath.Join(dir, ".leadsync", "workspaces", "uk", "state.json")).Load()
	if err != nil || got.Lineage != s.Lineage || len(got.People) != len(s.People) || pushed.People != len(s.People) {
		t.Fatalf("uk's state file after the push: %v, %v", got, err)
	}
}

func TestStateRecoverTakesTheLock(t *testing.T) {
	d, b, _, _ := seededDeps(t)
	res, err := StateRecover(d)
	if err != nil {
		t.Fatal(err)
	}
	if res.Journal != nil || res.Repaired.Any() {
		t.Errorf("the backend shows no journal and every ID names someone, but recover says %+v", res)
	}
	if got, want := strings.Join(b.ops, ", "), "lock state recover, load, unlock"; got != want {
		t.Errorf("backend use %s, want %s", got, want)
	}
}

// TestUnknownAddressErrorPunctuation: the message is sentences, a question
// ending one and no full stop after it.
func TestUnknownAddressErrorPunctuation(t *testing.T) {
	for _, tc := range []struct {
		err  *UnknownAddressError
		want string
	}{
		{&UnknownAddressError{Address: "search.bb", Near: []string{"search.b"}},
			`the state holds nothing at search.bb; did you mean search.b? Run "leadsync state list" to see every address`},
		{&UnknownAddressError{Address: "search.bb", Consequence: ", so nothing was removed", Near: []string{"search.b", "search.bc"}},
			`the state holds nothing at search.bb, so nothing was removed; did you mean search.b, search.bc? Run "leadsync state list" to see every address`},
		{&UnknownAddressError{Address: "search.bb", Consequence: ", so nothing was moved"},
			`the state holds nothing at search.bb, so nothing was moved. Run "leadsync state list" to see every address`},
		{&UnknownAddressError{Address: "serch.b", Near: []string{"search.b"}},
			`the state holds nothing at serch.b; did you mean search.b? Addresses look like search.cto, search.cto["Berlin"], profile.founder, module.dach.search.cto, import.crm, track.champions or person.<id>. Run "leadsync state list" to see every address`},
		{&UnknownAddressError{Address: "search.cto[Berlin]"},
			`the state holds nothing at search.cto[Berlin] (quote instance keys in the shell: 'search.cto["Berlin"]'). Run "leadsync state list" to see every address`},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
