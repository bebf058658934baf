package run

import (
	"bytes"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/statetest"
)

const consoleSrc = `
api {
  sandbox = true
}
locals {
  cities = ["Berlin", "Hamburg"]
}
search "s" {
  for_each    = toset(local.cities)
  keywords    = "CTO"
  city        = each.key
  max_results = 5
}
enrich "e" {
  from = [search.s]
}
`

// consoleState holds three people: Ada and Bob found in Berlin (Ada
// enriched with a valid e-mail, Bob's not found), Cem in Hamburg.
func consoleState(t *testing.T) (*state.State, map[string]string) {
	t.Helper()
	s := state.New()
	ada, bob, cem := statetest.Lead("1", "ada", "Ada Lovelace"), statetest.Lead("2", "bob", "Bob Byte"), statetest.Lead("3", "cem", "Cem Code")
	bob.Title = "Engineer"
	fold := func(e state.Event) {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	fold(statetest.SearchEv(statetest.Day(1), `search.s["Berlin"]`, 5, ada, bob))
	fold(statetest.SearchEv(statetest.Day(1), `search.s["Hamburg"]`, 5, cem))
	ids := map[string]string{"ada": s.Resolve(ada), "bob": s.Resolve(bob), "cem": s.Resolve(cem)}
	fold(statetest.EnrichEv(statetest.Day(2), "enrich.e", ids["ada"], person.EnrichedProfile{Email: "ada@x.example", ValidationStatus: "valid"}))
	fold(statetest.EnrichEv(statetest.Day(2), "enrich.e", ids["bob"], person.EnrichedProfile{ValidationStatus: "empty"}))
	return s, ids
}

// withMover adds Dee to the people of consoleState: found in Hamburg at
// Alt & "Söhne", enriched with a valid e-mail there, then found (with
// Cem) at another company: her e-mail is of her former employer.
func withMover(t *testing.T, s *state.State, ids map[string]string) {
	t.Helper()
	cem, dee := statetest.Lead("3", "cem", "Cem Code"), statetest.Lead("4", "dee", "Dee Delta")
	dee.Title, dee.Company = "Head of Sales", `Alt & "Söhne"`
	moved := dee
	moved.Company = "Neu GmbH"
	ids["dee"] = s.Resolve(dee)
	for _, e := range []state.Event{
		statetest.SearchEv(statetest.Day(1), `search.s["Hamburg"]`, 5, cem, dee),
		statetest.EnrichEv(statetest.Day(2), "enrich.e", ids["dee"], person.EnrichedProfile{Email: "dee@alt.example", ValidationStatus: "valid", CompanyDomain: "alt.example", Company: dee.Company}),
		statetest.SearchEv(statetest.Day(3), `search.s["Hamburg"]`, 5, cem, moved),
	} {
		if err := s.Fold(e); err != nil {
			t.Fatal(err)
		}
	}
	ids["dee"] = s.Resolve(dee)
}

// TestConsoleHandle runs the console's lines on the state read whole and
// on a SQLite store, whose where on lead.<field> or on person.<field>
// reads those columns alone (state.LeadPager), and the enrichments' and
// histories' that say whether an e-mail is current.
func TestConsoleHandle(t *testing.T) {
	st, ids := consoleState(t)
	withMover(t, st, ids)
	t.Run("whole", func(t *testing.T) {
		consoleHandle(t, st, ids, func() (*state.Base, error) { return state.NewBase(st), nil })
	})
	t.Run("state.db", func(t *testing.T) {
		ws, err := local.NewWorkspaces(filepath.Join(t.TempDir(), ".leadsync", "state.db"), nil).Open("default")
		if err == nil {
			err = ws.Push(st, false)
		}
		if err != nil {
			t.Fatal(err)
		}
		consoleHandle(t, st, ids, ws.OpenBase)
	})
}

// consoleHandle checks the lines of TestConsoleHandle on the state of
// consoleState (st, ids) that open opens.
func consoleHandle(t *testing.T, st *state.State, ids map[string]string, open func() (*state.Base, error)) {
	sess, err := NewConsoleSession(loadConfigText(t, t.TempDir(), consoleSrc), open)
	if err != nil {
		t.Fatal(err)
	}
	all := []string{"ada", "bob", "cem", "dee"}
	cases := []struct {
		line     string
		want     cty.Value // a value
		selected []string  // or the people a where selects
		err      string    // or a problem
		help     bool
		exit     bool
	}{
		{line: "local.cities[1]", want: cty.StringVal("Hamburg")},
		{line: `  search.s["Berlin"].people  `, want: cty.NumberIntVal(2)},
		{line: `search.s["Hamburg"].people`, want: cty.NumberIntVal(2)},
		{line: `where person.validationStatus == "valid"`, selected: []string{"ada"}},
		// The sheet's word of a status: the service's "empty" is "not found".
		{line: `where person.validationStatus == "not found"`, selected: []string{"bob"}},
		{line: `where person.validationStatus == "empty"`, err: `write person.validationStatus == "not found"`},
		{line: `where person.validationStatus == ""`, selected: []string{"cem"}},
		// Dee's e-mail is of her former employer: neither shown nor her
		// company's domain.
		{line: `where person.email != ""`, selected: []string{"ada"}},
		{line: `where person.validationStatus == "former employer"`, selected: []string{"dee"}},
		{line: `where person.companyDomain == "alt.example"`, selected: []string{}},
		{line: `where person.company == "Neu GmbH" && person.title == "Head of Sales"`, selected: []string{"dee"}},
		{line: `where person.enrichedAt != "" && person.firstName != "Nobody"`, selected: []string{"ada", "bob", "dee"}},
		{line: `where person.firstSeen == person.lastSeen`, selected: []string{"ada", "bob"}},
		{line: `where person.fullName == "Dee Delta"`, selected: []string{"dee"}},
		{line: `where lead.title == "CTO"`, selected: []string{"ada", "cem"}},
		{line: `where contains(local.cities, "Berlin") && lead.fullName != ""`, selected: all},
		{line: `where lead.title == "Nobody"`, selected: []string{}},
		// Two fields: the memo keeps their values apart.
		{line: `where lead.title == "CTO" && lead.fullName != "Cem Code"`, selected: []string{"ada"}},
		{line: `where lead.title == "Engineer" || lead.fullName == "Cem Code"`, selected: []string{"bob", "cem"}},
		{line: `where lead.title`, err: "A where must give true or false for each person; for person." + ids["ada"] + " it gave string."},
		{line: `where person.titel == "CTO"`, err: `Did you mean "title"?`},
		{line: `where 1 == 1`, err: "this one reads neither"},
		{line: `where`, err: "where takes an expression"},
		{line: `where person.title ==`, err: "Expected the start of an expression"},
		{line: "local.nope", err: `does not have an attribute named "nope"`},
		{line: "help", help: true},
		{line: " exit ", exit: true},
		{line: "   "},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			res := sess.Handle(c.line, 1)
			if c.err != "" {
				if !res.Diags.HasErrors() || !strings.Contains(res.Diags.Error(), c.err) {
					t.Fatalf("diagnostics %v, want one saying %q", res.Diags, c.err)
				}
				return
			}
			if res.Diags.HasErrors() {
				t.Fatal(res.Diags)
			}
			if res.Help != c.help || res.Exit != c.exit {
				t.Errorf("help %v exit %v, want %v %v", res.Help, res.Exit, c.help, c.exit)
			}
			switch {
			case c.selected != nil:
				if res.Selection == nil {
					t.Fatalf("no selection: %+v", res)
				}
				var want []SelectedPerson
				for _, n := range c.selected {
					want = append(want, SelectedPerson{ID: ids[n], Name: st.People[ids[n]].Lead.FullName})
				}
				if fmt.Sprint(res.Selection.People) != fmt.Sprint(want) || res.Selection.Of != len(st.People) {
					t.Errorf("selected %v of %d, want %v of %d", res.Selection.People, res.Selection.Of, want, len(st.People))
				}
			case c.want != cty.NilVal:
				if !res.Value.RawEquals(c.want) {
					t.Errorf("= %#v, want %#v", res.Value, c.want)
				}
			default:
				if res.Value != cty.NilVal || res.Selection != nil {
					t.Errorf("gave %+v, want nothing", res)
				}
			}
		})
	}
}

// recordingConsole writes down what the console shows, one line per call.
type recordingConsole struct{ bytes.Buffer }

func (r *recordingConsole) Prompt()           { r.WriteString("prompt\n") }
func (r *recordingConsole) Value(v cty.Value) { fmt.Fprintf(&r.Buffer, "value %#v\n", v) }
func (r *recordingConsole) Selected(sel Selection) {
	fmt.Fprintf(&r.Buffer, "selected %d of %d\n", len(sel.People), sel.Of)
}
func (r *recordingConsole) Help() { r.WriteString("help\n") }
func (r *recordingConsole) Diagnostics(d hcl.Diagnostics, line string, n int) {
	fmt.Fprintf(&r.Buffer, "diagnostics %d on line %d %q at %s\n", len(d), n, line, d[0].Subject)
}

func TestConsoleLoop(t *testing.T) {
	st, _ := consoleState(t)
	sess, err := NewConsoleSession(loadConfigText(t, t.TempDir(), consoleSrc), func() (*state.Base, error) { return state.NewBase(st), nil })
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, in    string
		interactive bool
		want        string
		failed      int
	}{
		{name: "an error does not stop the loop", in: "local.nope\n\nlocal.cities[0]\nwhere lead.title == \"CTO\"\n1 +\nhelp",
			want: "diagnostics 1 on line 1 \"local.nope\" at <console-input>:1,6-11\nvalue cty.StringVal(\"Berlin\")\nselected 2 of 3\ndiagnostics 1 on line 5 \"1 +\" at <console-input>:5,4-4\nhelp\n", failed: 2},
		{name: "exit ends it", in: "local.cities[0]\nexit\nlocal.nope\n", want: "value cty.StringVal(\"Berlin\")\n"},
		{name: "a prompt before each line typed", in: "local.cities[0]\n", interactive: true, want: "prompt\nvalue cty.StringVal(\"Berlin\")\nprompt\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var view recordingConsole
			failed, err := Console(sess, strings.NewReader(c.in), &view, c.interactive)
			if err != nil {
				t.Fatal(err)
			}
			if view.String() != c.want || failed != c.failed {
				t.Errorf("showed\n%s(%d failed), want\n%s(%d failed)", view.String(), failed, c.want, c.failed)
			}
		})
	}
}

// snapshotStore is a store's snapshot of the people of s for a Base
// (only what the console asks: a page after an ID, Close), counting the
// snapshots open.
type snapshotStore struct {
	state.PeopleStore
	s    *state.State
	open *int
}

func (p snapshotStore) After(id string, n int) ([]*state.Person, error) {
	var out []*state.Person
	for _, pid := range slices.Sorted(maps.Keys(p.s.People)) {
		if pid > id && len(out) < n {
			out = append(out, p.s.People[pid])
		}
	}
	return out, nil
}

func (p snapshotStore) Close() error {
	*p.open--
	return nil
}

// TestConsoleHoldsNoSnapshot: the console reads a store's records at the
// start and its people for each where, and ends each read before the
// next line, so that no snapshot of a database stays open while a person
// types (it would keep an erasure from emptying the write-ahead log).
func TestConsoleHoldsNoSnapshot(t *testing.T) {
	st, _ := consoleState(t)
	open, opened := 0, 0
	sess, err := NewConsoleSession(loadConfigText(t, t.TempDir(), consoleSrc), func() (*state.Base, error) {
		open++
		opened++
		records := *st
		records.People = nil
		kept := map[string]int{}
		for addr, sr := range st.Searches {
			kept[addr] = len(sr.LeadIDs)
		}
		return state.NewStoredBase(&records, kept, snapshotStore{s: st, open: &open}), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var view recordingConsole
	in := "search.s[\"Berlin\"].people\nwhere lead.title == \"CTO\"\nwhere person.email != \"\"\n"
	if _, err := Console(sess, strings.NewReader(in), &view, false); err != nil {
		t.Fatal(err)
	}
	if want := "value cty.NumberIntVal(2)\nselected 2 of 3\nselected 1 of 3\n"; view.String() != want {
		t.Errorf("showed\n%swant\n%s", view.String(), want)
	}
	if open != 0 || opened != 3 {
		t.Errorf("%d snapshots opened, %d still open; want 3 (the records, each where), none open", opened, open)
	}
}
