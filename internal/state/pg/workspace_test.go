package pg

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
)

// Workspaces keep independent states in one schema.
func TestWorkspacesIsolated(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	def := newPG(t, cs, schema, "", alice)
	uk := newPG(t, cs, schema, "uk", alice)

	if _, err := uk.Load(); !errors.As(err, new(*NoWorkspaceError)) || !strings.Contains(err.Error(), "leadsync workspace new uk") {
		t.Fatalf("load of a workspace never created: %v", err)
	}
	mustNoErr(t, def.CreateWorkspace("uk"), "create uk")
	if err := def.CreateWorkspace("uk"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second create: %v", err)
	}
	if err := def.CreateWorkspace("no such/name"); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("bad name: %v", err)
	}
	evs := events()
	apply(t, def, evs[:2])
	apply(t, uk, evs[2:3])

	d, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load default")
	u, err := newPG(t, cs, schema, "uk", bob).Load()
	mustNoErr(t, err, "load uk")
	if got := d.Addresses(false); !cmp.Equal(got, []string{`search.cto["Berlin"]`}) {
		t.Fatalf("default holds %v", got)
	}
	if got := u.Addresses(false); !cmp.Equal(got, []string{"profile.founder"}) {
		t.Fatalf("uk holds %v", got)
	}
	if d.Lineage == u.Lineage {
		t.Fatal("two workspaces share a lineage")
	}
	// Locks are per workspace.
	l, err := def.Lock("apply")
	mustNoErr(t, err, "lock default")
	l2, err := uk.Lock("apply")
	mustNoErr(t, err, "lock uk while default is locked")
	mustNoErr(t, l2.Unlock(), "unlock")
	mustNoErr(t, l.Unlock(), "unlock")

	list, err := def.Workspaces()
	mustNoErr(t, err, "list")
	if len(list) != 2 || list[0].Name != "default" || list[1].Name != "uk" || list[1].Blocks != 1 || list[1].People != 1 {
		t.Fatalf("workspaces: %+v", list)
	}
	if err := def.DeleteWorkspace("default", true); err == nil {
		t.Fatal("default workspace deleted")
	}
	if err := def.DeleteWorkspace("uk", false); err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("delete of a non-empty workspace: %v", err)
	}
	// A locked workspace is not deleted under its holder.
	l, err = uk.Lock("apply")
	mustNoErr(t, err, "lock uk")
	if err := def.DeleteWorkspace("uk", true); err == nil || !strings.Contains(err.Error(), "alice@laptop") {
		t.Fatalf("delete of a locked workspace: %v", err)
	}
	mustNoErr(t, l.Unlock(), "unlock")
	mustNoErr(t, def.DeleteWorkspace("uk", true), "delete --force")
	if _, err := newPG(t, cs, schema, "uk", bob).Load(); !errors.As(err, new(*NoWorkspaceError)) {
		t.Fatalf("load of a deleted workspace: %v", err)
	}
	// An empty one goes without force.
	mustNoErr(t, def.CreateWorkspace("tmp"), "create")
	mustNoErr(t, def.DeleteWorkspace("tmp", false), "delete empty")
	// The default one is listed before anything is written.
	fresh := newPG(t, cs, testSchema(t, cs), "", alice)
	list, err = fresh.Workspaces()
	mustNoErr(t, err, "list of an empty database")
	if len(list) != 1 || list[0].Name != "default" || list[0].Exists {
		t.Fatalf("workspaces of an empty database: %+v", list)
	}
}

// push copies a local state in; pull prints it back as the local file.
func TestPushPull(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	local := state.New()
	for _, e := range events() {
		mustNoErr(t, local.Apply(e), "apply")
	}
	local.Serial = 41
	b := newPG(t, cs, schema, "", alice)
	l, err := b.Lock("state push")
	mustNoErr(t, err, "lock")
	mustNoErr(t, b.Push(local, false), "push")
	mustNoErr(t, l.Unlock(), "unlock")

	got, err := newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if d := cmp.Diff(canon(t, local), canon(t, got)); d != "" {
		t.Fatalf("pushed state differs (-local +pg):\n%s", d)
	}
	if got.Lineage != local.Lineage || got.Serial <= 41 {
		t.Fatalf("push kept lineage %s serial %d (local %s 41)", got.Lineage, got.Serial, local.Lineage)
	}

	err = b.Push(state.New(), false)
	var ne *NotEmptyError
	if !errors.As(err, &ne) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("push into a non-empty workspace: %v", err)
	}
	// Pull: the local file's JSON, which the local store reads back.
	var buf bytes.Buffer
	mustNoErr(t, state.Encode(&buf, got), "encode")
	back, err := state.Decode("pulled.json", buf.Bytes())
	mustNoErr(t, err, "decode the pulled state")
	if d := cmp.Diff(canon(t, local), canon(t, back)); d != "" {
		t.Fatalf("pulled state differs (-local +pulled):\n%s", d)
	}
	// --force replaces.
	small := state.New()
	mustNoErr(t, small.Apply(events()[2]), "apply")
	mustNoErr(t, b.Push(small, true), "push --force")
	got, err = newPG(t, cs, schema, "", bob).Load()
	mustNoErr(t, err, "load")
	if d := cmp.Diff(canon(t, small), canon(t, got)); d != "" {
		t.Fatalf("force-pushed state differs (-local +pg):\n%s", d)
	}
	// A run that loaded the old state cannot write over the new one.
	if err := b.Commit(local); err == nil {
		t.Log("commit of an untracked state replaces (push semantics)")
	}
}

// A push into a workspace that was never made is refused, as plan and apply
// refuse it: a typo in --workspace makes no new workspace.
func TestPushNeedsTheWorkspace(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	local := state.New()
	mustNoErr(t, local.Apply(events()[0]), "apply")
	b := newPG(t, cs, schema, "ukk", alice)
	for _, force := range []bool{false, true} {
		err := b.Push(local, force)
		var nw *NoWorkspaceError
		if !errors.As(err, &nw) || !strings.Contains(err.Error(), "leadsync workspace new ukk") {
			t.Fatalf("push (force %v) into a workspace never made: %v", force, err)
		}
	}
	list, err := b.Workspaces()
	mustNoErr(t, err, "list")
	for _, w := range list {
		if w.Name == "ukk" {
			t.Fatalf("the refused push made the workspace: %+v", list)
		}
	}
	mustNoErr(t, b.CreateWorkspace("ukk"), "workspace new")
	mustNoErr(t, b.Push(local, false), "push into the new workspace")
	got, err := newPG(t, cs, schema, "ukk", bob).Load()
	mustNoErr(t, err, "load")
	if d := cmp.Diff(canon(t, local), canon(t, got)); d != "" {
		t.Fatalf("pushed state differs (-local +pg):\n%s", d)
	}
}

// A run that loaded the state before a push --force replaced it does not
// write its rows into the new one.
func TestCommitRefusesReplacedState(t *testing.T) {
	cs := testConnStr(t)
	schema := testSchema(t, cs)
	b := newPG(t, cs, schema, "", alice)
	apply(t, b, events()[:2])
	s, err := b.Load()
	mustNoErr(t, err, "load")
	mustNoErr(t, newPG(t, cs, schema, "", bob).Push(state.New(), true), "push --force")
	mustNoErr(t, s.Apply(events()[2]), "apply")
	if err := b.Commit(s); err == nil || !strings.Contains(err.Error(), "another state") {
		t.Fatalf("commit over a replaced state: %v", err)
	}
}
