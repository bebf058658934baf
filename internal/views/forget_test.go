package views

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/leadsync/leadsync/internal/golden"
	"github.com/leadsync/leadsync/internal/person"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/state"
)

// TestForgetView draws forget's confirmation and its lines for each
// outcome: removed (with what was known), suppressed, already erased, the
// same person twice, the other workspaces, and the totals (one person
// removed; only suppressed; both; nothing written: no total).
func TestForgetView(t *testing.T) {
	ann := &state.Person{ID: "101.aa", Lead: person.Lead{FullName: "Ann Albers"}, FoundBy: []string{"search.b", "search.a"},
		Enrichment: &state.Enrichment{}}
	bob := &state.Person{ID: "102.bb"}
	removed := run.Forgotten{Ident: "ann", Outcome: run.ForgetRemoved, Person: ann}
	suppressed := run.Forgotten{Ident: "Zed", Outcome: run.ForgetSuppressed}
	cases := []struct {
		name string
		res  run.ForgetResult
	}{
		{"removed", run.ForgetResult{People: []run.Forgotten{removed, {Ident: "Ann_Albers", Outcome: run.ForgetSamePerson}}, Entries: 1, Suppressed: 1}},
		{"suppressed", run.ForgetResult{People: []run.Forgotten{suppressed}, Entries: 1, Suppressed: 3}},
		{"both", run.ForgetResult{People: []run.Forgotten{removed, suppressed, {Ident: "bob", Outcome: run.ForgetRemoved, Person: bob}}, Entries: 3, Suppressed: 3,
			Workspaces: []run.WorkspaceErasure{{Workspace: "uk", Held: []string{"ann"}, Entries: 2}, {Workspace: "us", Entries: 2}, {Workspace: "de"}}}},
		{"nothing written", run.ForgetResult{People: []run.Forgotten{{Ident: "ann", Outcome: run.ForgetAlreadyErased}}, Suppressed: 2}},
	}
	var b bytes.Buffer
	v := NewForget(&b)
	v.Confirmation(cases[2].res.People, []string{"uk", "us"})
	v.Cancelled()
	for _, c := range cases {
		b.WriteString("\n# " + c.name + "\n")
		v.Done(&c.res, ".leadsync/state.db")
	}
	golden.Check(t, filepath.Join("testdata", "forget.txt"), b.Bytes())
}
