package backendtest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// workspaces returns the workspaces of the backend open gives, skipping
// the test for a backend without them.
func workspaces(t *testing.T, open func(string, Who) backend.Backend, w Who) backend.Workspaces {
	set, ok := backend.WorkspacesOf(open("", w))
	if !ok {
		t.Skip("the backend has no workspaces")
	}
	return set
}

// pusher returns workspace ws as a Pusher, skipping the test for a backend
// that takes no pushed state.
func pusher(t *testing.T, b backend.Backend) backend.Pusher {
	p, ok := backend.PusherOf(b)
	if !ok {
		t.Skip("the backend takes no pushed state")
	}
	return p
}

func isNoWorkspace(err error) bool { return errors.As(err, new(*backend.NoWorkspaceError)) }

// Workspaces keep independent states: made, listed, locked and deleted
// one by one; one that holds state or is locked is not deleted.
func testWorkspaces(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	if _, err := loadOnce(open("uk", Alice)); !isNoWorkspace(err) || !strings.Contains(err.Error(), "leadsync workspace new uk") {
		t.Fatalf("load of a workspace never created: %v", err)
	}
	must(t, set.CreateWorkspace("uk"), "create uk")
	if err := set.CreateWorkspace("uk"); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("second create: %v", err)
	}
	if err := set.CreateWorkspace("no such/name"); err == nil || !strings.Contains(err.Error(), "not valid") {
		t.Fatalf("bad name: %v", err)
	}
	evs := Events()
	Apply(t, open("", Alice), evs[:2])
	Apply(t, open("uk", Alice), evs[2:3])
	d, err := loadOnce(open("", Bob))
	must(t, err, "load default")
	u, err := loadOnce(open("uk", Bob))
	must(t, err, "load uk")
	if got := d.Addresses(false); !cmp.Equal(got, []string{`search.cto["Berlin"]`}) {
		t.Fatalf("default holds %v", got)
	}
	if got := u.Addresses(false); !cmp.Equal(got, []string{"profile.founder"}) || d.Lineage == u.Lineage {
		t.Fatalf("uk holds %v (lineage %s, default's %s)", got, u.Lineage, d.Lineage)
	}
	// Locks are per workspace.
	l, err := open("", Alice).Lock("apply")
	must(t, err, "lock default")
	l2, err := open("uk", Alice).Lock("apply")
	must(t, err, "lock uk while default is locked")
	must(t, l2.Unlock(), "unlock")
	must(t, l.Unlock(), "unlock")
	list, err := set.Workspaces()
	must(t, err, "list")
	if len(list) != 2 || list[0].Name != "default" || list[1].Name != "uk" || list[1].Blocks != 1 || list[1].People != 1 ||
		list[0].Blocks != 1 || list[0].People != 3 || !list[0].Exists || !list[1].Exists || list[1].Lineage != u.Lineage || list[1].Serial != u.Serial {
		t.Fatalf("workspaces: %+v", list)
	}
	deleteWorkspaces(t, open, set, d)
	// The default one is listed before anything is written.
	list, err = workspaces(t, k.New(t), Alice).Workspaces()
	must(t, err, "list of an empty backend")
	if len(list) != 1 || list[0].Name != "default" || list[0].Exists {
		t.Fatalf("workspaces of an empty backend: %+v", list)
	}
}

// deleteWorkspaces checks deletion: never the default one, a non-empty or
// locked one only as it should, the default one untouched (d is its
// state).
func deleteWorkspaces(t *testing.T, open func(string, Who) backend.Backend, set backend.Workspaces, d *state.State) {
	if err := set.DeleteWorkspace("default", true); err == nil {
		t.Fatal("default workspace deleted")
	}
	if err := set.DeleteWorkspace("uk", false); err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("delete of a non-empty workspace: %v", err)
	}
	l, err := open("uk", Alice).Lock("apply")
	must(t, err, "lock uk")
	bobs, _ := backend.WorkspacesOf(open("", Bob))
	if err := bobs.DeleteWorkspace("uk", true); err == nil || !strings.Contains(err.Error(), "alice@laptop") {
		t.Fatalf("delete of a locked workspace: %v", err)
	}
	must(t, l.Unlock(), "unlock")
	must(t, set.DeleteWorkspace("uk", true), "delete --force")
	if _, err := loadOnce(open("uk", Bob)); !isNoWorkspace(err) {
		t.Fatalf("load of a deleted workspace: %v", err)
	}
	if err := set.DeleteWorkspace("uk", true); !isNoWorkspace(err) {
		t.Fatalf("delete of a deleted workspace: %v", err)
	}
	again, err := loadOnce(open("", Bob))
	must(t, err, "load default")
	same(t, d, again, "default changed by the other workspace's life")
	if again.Lineage != d.Lineage {
		t.Fatalf("default's lineage changed: %s, was %s", again.Lineage, d.Lineage)
	}
	must(t, set.CreateWorkspace("tmp"), "create")
	must(t, set.DeleteWorkspace("tmp", false), "delete empty")
}

// Push copies a state in, keeping its lineage; pull prints it back as a
// state file, which reads back the same; --force replaces.
func testPushPull(t *testing.T, k Kind) {
	open := k.New(t)
	local := Fold(t, Events())
	local.Serial = 41
	b := open("", Alice)
	p := pusher(t, b)
	l, err := b.Lock("state push")
	must(t, err, "lock")
	must(t, p.Push(local, false), "push")
	must(t, l.Unlock(), "unlock")
	got, err := loadOnce(open("", Bob))
	must(t, err, "load")
	same(t, local, got, "pushed state differs")
	if got.Lineage != local.Lineage || got.Serial <= 41 {
		t.Fatalf("push kept lineage %s serial %d (local %s 41)", got.Lineage, got.Serial, local.Lineage)
	}
	if err := p.Push(state.New(), false); !errors.As(err, new(*backend.NotEmptyError)) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("push into a non-empty workspace: %v", err)
	}
	var buf bytes.Buffer
	must(t, statefile.Encode(&buf, got), "encode")
	back, err := statefile.Decode("pulled.json", buf.Bytes())
	must(t, err, "decode the pulled state")
	same(t, local, back, "pulled state differs")
	small := Fold(t, Events()[2:3])
	must(t, p.Push(small, true), "push --force")
	got2, err := loadOnce(open("", Bob))
	must(t, err, "load")
	same(t, small, got2, "force-pushed state differs")
	if got2.Lineage != small.Lineage || got2.Serial <= got.Serial {
		t.Fatalf("push --force: lineage %s serial %d, want %s and past %d", got2.Lineage, got2.Serial, small.Lineage, got.Serial)
	}
}

// A push into a workspace never made is refused, as plan and apply refuse
// it: a typo in --workspace makes no new workspace.
func testPushNeedsTheWorkspace(t *testing.T, k Kind) {
	open := k.New(t)
	set := workspaces(t, open, Alice)
	local := Fold(t, Events()[:1])
	p := pusher(t, open("ukk", Alice))
	for _, force := range []bool{false, true} {
		if err := p.Push(local, force); !isNoWorkspace(err) || !strings.Contains(err.Error(), "leadsync workspace new ukk") {
			t.Fatalf("push (force %v) into a workspace never made: %v", force, err)
		}
	}
	list, err := set.Workspaces()
	must(t, err, "list")
	for _, w := range list {
		if w.Name == "ukk" {
			t.Fatalf("the refused push made the workspace: %+v", list)
		}
	}
	must(t, set.CreateWorkspace("ukk"), "workspace new")
	must(t, p.Push(local, false), "push into the new workspace")
	got, err := loadOnce(open("ukk", Bob))
	must(t, err, "load")
	same(t, local, got, "pushed state differs")
}
