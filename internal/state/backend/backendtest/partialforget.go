package backendtest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
)

// forgetView is a workspace for run.Forget that counts its loads of the
// state whole; with whole set it reads its state whole (its Base is not
// opened: as before partial states), and so do the siblings it opens.
type forgetView struct {
	backend.Backend
	whole bool
	loads map[string]int // by workspace, shared with the siblings
}

func (f *forgetView) Unwrap() backend.Backend { return f.Backend }

func (f *forgetView) ReadsPeopleOnRequest() bool {
	return !f.whole && backend.ReadsInPart(f.Backend)
}

func (f *forgetView) Load() (*state.State, error) {
	f.loads[f.Workspace()]++
	return f.Backend.Load()
}

func (f *forgetView) cross() backend.CrossWorkspace {
	cw, _ := backend.CrossWorkspaceOf(f.Backend)
	return cw
}

func (f *forgetView) Workspace() string { return backend.WorkspaceOf(f.Backend) }

func (f *forgetView) OtherWorkspaces() ([]string, error) { return f.cross().OtherWorkspaces() }

func (f *forgetView) Sibling(ws string) (backend.Backend, error) {
	b, err := f.cross().Sibling(ws)
	if err != nil {
		return nil, err
	}
	return &forgetView{Backend: b, whole: f.whole, loads: f.loads}, nil
}

func (f *forgetView) EnrichmentsElsewhere(keys []string) (map[string]state.Reusable, error) {
	return f.cross().EnrichmentsElsewhere(keys)
}

// forgetWorkspaces are the workspaces of testPartialForget: the default
// one, two more with states of their own, and one never written.
var forgetWorkspaces = []string{"", "dach", "uk", "fr"}

// forgetWorld applies the states of forgetWorkspaces: partialFixture in
// the default workspace, Events in dach, and in uk people by other
// letters' case of their page names (a page name of a second lower case,
// "ſtan", which only strings.EqualFold finds by "stan"; one of more
// variants than a partial state asks for), a profile read of Ivy by
// hers.
func forgetWorld(t *testing.T, open func(string, Who) backend.Backend) {
	set := workspaces(t, open, Alice)
	if b, ok := set.(backend.Backend); ok {
		defer backend.Close(b)
	}
	for _, ws := range forgetWorkspaces[1:] {
		must(t, set.CreateWorkspace(ws), "create %s", ws)
	}
	apply := func(ws string, evs []state.Event) {
		b := open(ws, Alice)
		defer backend.Close(b)
		Apply(t, b, evs)
	}
	apply("", partialFixture())
	apply("dach", Events())
	apply("uk", []state.Event{
		{At: At(30), Kind: state.EventSearch, Address: "search.uk", Search: &state.SearchEvent{Generation: api.Gen1, Request: json.RawMessage(`{"keywords":"uk"}`),
			Leads: []person.Lead{lead("n1", "Anna", "Anna"), lead("", "Ben", "Ben"), lead("", "ſtan", "Stan"), lead("n11", "SsSsSsSsSsStan", "Sss"),
				lead("n12", "", "Nel")}}},
		{At: At(31), Kind: state.EventProfile, Address: "profile.ivy", Profile: &state.ProfileEvent{Generation: api.Gen1,
			Request: json.RawMessage(`{"pageName":"IVY"}`), PageName: "IVY", Profile: person.Profile{FullName: "Ivy Ives"}}},
	})
}

// forgetSteps are the erasures testPartialForget makes one after the
// other, each from a workspace (Where). Whole marks one whose page name
// has more letter-case variants than a partial state asks for: it reads
// the state whole, there and in the workspaces that held its people.
var forgetSteps = []struct {
	Where  string
	People []string
	Whole  bool
}{
	{Where: "", People: []string{"ANNA"}},
	{Where: "dach", People: []string{"person.n7"}},
	{Where: "uk", People: []string{"https://network.example/profile/BEN", "nobody_here", "n3"}},
	{Where: "", People: []string{"n5", "eve", "n5"}},
	{Where: "fr", People: []string{"ivy"}},
	{Where: "", People: []string{"ANNA", "n5"}},
	{Where: "", People: []string{"STAN", "person.page:gus"}},
	{Where: "dach", People: []string{"jon", "kim", "n10", "n12"}},
	{Where: "", People: []string{"ssssssssssstan"}, Whole: true},
}

// testPartialForget: run.Forget leaves the same stored states in every
// workspace, the same erasure record and the same answer, whether each
// workspace is read in part (the people the PERSONs may name, and what
// removing them changes) or whole; and a workspace read in part is not
// loaded whole. Then the same for erasures of identifiers drawn at
// random on a fresh world (FORGET_SEED=n draws others).
func testPartialForget(t *testing.T, k Kind) {
	part, whole := k.New(t), k.New(t)
	forgetWorld(t, part)
	forgetWorld(t, whole)
	b := part("", Bob)
	inPart := backend.ReadsInPart(b)
	backend.Close(b)
	if !inPart {
		t.Skip("the backend reads its state whole")
	}
	for i, st := range forgetSteps {
		loads := compareForget(t, part, whole, At(40+i), st.Where, st.People)
		if n := loads[""] + loads["dach"] + loads["uk"]; (n > 0) != st.Whole {
			t.Fatalf("forget %v from %q loaded the states whole %v times, want partial reads (unless too many letter cases)", st.People, st.Where, loads)
		}
	}
	seed := uint64(1)
	if v := os.Getenv("FORGET_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("FORGET_SEED=%q: %v", v, err)
		}
		seed = n
	}
	rnd := rand.New(rand.NewPCG(seed, 1))
	part, whole = k.New(t), k.New(t)
	forgetWorld(t, part)
	forgetWorld(t, whole)
	for i := range 3 {
		where := forgetWorkspaces[rnd.IntN(len(forgetWorkspaces))]
		compareForget(t, part, whole, At(60+i), where, randomIdents(rnd))
	}
}

// randomIdents draws one to three PERSONs of the worlds' people, in
// every form forget takes, page names in a random letter case.
func randomIdents(rnd *rand.Rand) []string {
	pages := []string{"anna", "ben", "cleo", "eve", "fay", "gus", "hal", "ivy", "jon", "kim", "stan", "nobody"}
	var out []string
	for range 1 + rnd.IntN(3) {
		page := []rune(pages[rnd.IntN(len(pages))])
		for j := range page {
			if rnd.IntN(2) == 0 {
				page[j] = []rune(strings.ToUpper(string(page[j])))[0]
			}
		}
		n := fmt.Sprintf("n%d", 1+rnd.IntN(12))
		forms := []string{string(page), n, "person." + n, "https://network.example/profile/" + string(page), "person.page:" + string(page)}
		out = append(out, forms[rnd.IntN(len(forms))])
	}
	return out
}

// compareForget runs one forget of people from workspace where on both
// places and compares the answers, the states of every workspace and
// the erasure records; it returns the partial place's loads of a state
// whole, by workspace.
func compareForget(t *testing.T, part, whole func(string, Who) backend.Backend, at time.Time, where string, people []string) map[string]int {
	t.Helper()
	name := fmt.Sprintf("forget %q from %q", people, where)
	wantOut, _ := forgetOn(t, whole, true, at, where, people)
	gotOut, loads := forgetOn(t, part, false, at, where, people)
	if wantOut != gotOut {
		t.Fatalf("%s: the answers differ:\nwhole:   %s\npartial: %s", name, wantOut, gotOut)
	}
	for _, ws := range forgetWorkspaces {
		same(t, loadClosed(t, whole, ws), loadClosed(t, part, ws), fmt.Sprintf("%s: workspace %q differs (-whole +partial)", name, ws))
	}
	if wr, gr := erasureRecord(t, whole), erasureRecord(t, part); wr != gr {
		t.Fatalf("%s: the erasure records differ:\nwhole:   %s\npartial: %s", name, wr, gr)
	}
	return loads
}

// loadClosed loads workspace ws of the place open opens, and closes it.
func loadClosed(t *testing.T, open func(string, Who) backend.Backend, ws string) *state.State {
	b := open(ws, Alice)
	defer backend.Close(b)
	s, err := b.Load()
	must(t, err, "load %q", ws)
	return s
}

// forgetOn runs run.Forget on the place open opens, the workspaces read
// whole or in part, and returns its answer and the loads of a state
// whole, by workspace.
func forgetOn(t *testing.T, open func(string, Who) backend.Backend, whole bool, at time.Time, where string, people []string) (string, map[string]int) {
	b := &forgetView{Backend: open(where, Bob), whole: whole, loads: map[string]int{}}
	defer backend.Close(b.Backend)
	res, err := run.Forget(run.Deps{Backend: b, Now: func() time.Time { return at }}, run.ForgetOptions{People: people})
	if err != nil {
		return err.Error(), b.loads
	}
	var out []string
	for _, f := range res.People {
		id := ""
		if f.Person != nil {
			id = f.Person.ID
		}
		out = append(out, fmt.Sprintf("%s: %d %s", f.Ident, f.Outcome, id))
	}
	return fmt.Sprintf("%s; entries %d, suppressed %d, workspaces %+v", strings.Join(out, ", "), res.Entries, res.Suppressed, res.Workspaces), b.loads
}

// erasureRecord is the place's erasure record, its entries' keys and
// times ("" without one).
func erasureRecord(t *testing.T, open func(string, Who) backend.Backend) string {
	b := open("", Alice)
	defer backend.Close(b)
	k, ok := backend.ErasuresOf(b)
	if !ok {
		return ""
	}
	entries, err := k.Erasures()
	must(t, err, "read the erasure record")
	var out []string
	for _, e := range entries {
		out = append(out, e.At.UTC().Format(time.RFC3339Nano)+" "+state.EntryKey(e.Keys))
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}
