package pg

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/statefile"
)

// wsBackend is one workspace of a backend under test.
type wsBackend interface {
	backend.Backend
	Push(s *state.State, force bool) error
}

// workspaceSet is a backend's workspaces.
type workspaceSet interface {
	Workspaces() ([]backend.WorkspaceInfo, error)
	CreateWorkspace(name string) error
	DeleteWorkspace(name string, force bool) error
}

// wsKind is one backend under test with workspaces: open is workspace ws
// ("" for the default one) as w sees it, set the workspaces as w sees them.
type wsKind struct {
	name string
	open func(ws string, w who) wsBackend
	set  func(w who) workspaceSet
}

// wsKinds returns, fresh, the local backend (a new folder) and, when a
// server is there, pg (a new schema).
func wsKinds(t *testing.T) []wsKind {
	path := filepath.Join(t.TempDir(), ".leadsync", "state.json")
	localSet := func(w who) *local.Workspaces {
		return local.NewWorkspaces(path, func(p string) *local.Store {
			st := local.NewStore(p)
			st.User, st.Host, st.PID = func() string { return w.user }, func() string { return w.host }, w.pid
			st.Now = func() time.Time { return t0.Add(time.Hour) }
			return st
		})
	}
	out := []wsKind{{name: "local",
		open: func(ws string, w who) wsBackend {
			b, err := localSet(w).Open(ws)
			mustNoErr(t, err, "open workspace %q", ws)
			return b
		},
		set: func(w who) workspaceSet { return localSet(w) },
	}}
	if cs := os.Getenv("LEADSYNC_TEST_PG"); cs != "" || os.Getenv("CI") == "true" {
		cs = testConnStr(t)
		schema := testSchema(t, cs)
		out = append(out, wsKind{name: "pg",
			open: func(ws string, w who) wsBackend { return newPG(t, cs, schema, ws, w) },
			set:  func(w who) workspaceSet { return newPG(t, cs, schema, "", w) },
		})
	} else {
		t.Log("only the local backend: set LEADSYNC_TEST_PG (source .ci/pg-start) to run these against PostgreSQL too")
	}
	return out
}

// Workspaces keep independent states on every backend.
func TestWorkspacesIsolated(t *testing.T) {
	fresh := wsKinds(t)
	for i, k := range wsKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			def := k.open("", alice)
			uk := k.open("uk", alice)
			set := k.set(alice)

			if _, err := uk.Load(); !errors.As(err, new(*NoWorkspaceError)) || !strings.Contains(err.Error(), "leadsync workspace new uk") {
				t.Fatalf("load of a workspace never created: %v", err)
			}
			if k.name == "local" { // (pg refuses it at the Load that follows)
				if _, err := uk.Lock("apply"); !errors.As(err, new(*NoWorkspaceError)) {
					t.Fatalf("lock of a workspace never created: %v", err)
				}
			}
			mustNoErr(t, set.CreateWorkspace("uk"), "create uk")
			if err := set.CreateWorkspace("uk"); err == nil || !strings.Contains(err.Error(), "already exists") {
				t.Fatalf("second create: %v", err)
			}
			if err := set.CreateWorkspace("no such/name"); err == nil || !strings.Contains(err.Error(), "not valid") {
				t.Fatalf("bad name: %v", err)
			}
			evs := events()
			apply(t, def, evs[:2])
			apply(t, uk, evs[2:3])

			d, err := k.open("", bob).Load()
			mustNoErr(t, err, "load default")
			u, err := k.open("uk", bob).Load()
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

			list, err := set.Workspaces()
			mustNoErr(t, err, "list")
			if len(list) != 2 || list[0].Name != "default" || list[1].Name != "uk" || list[1].Blocks != 1 || list[1].People != 1 ||
				list[0].Blocks != 1 || list[0].People != 3 || !list[0].Exists || !list[1].Exists || list[1].Lineage != u.Lineage || list[1].Serial != u.Serial {
				t.Fatalf("workspaces: %+v", list)
			}
			if err := set.DeleteWorkspace("default", true); err == nil {
				t.Fatal("default workspace deleted")
			}
			if err := set.DeleteWorkspace("uk", false); err == nil || !strings.Contains(err.Error(), "not empty") || !strings.Contains(err.Error(), "--force") {
				t.Fatalf("delete of a non-empty workspace: %v", err)
			}
			// A locked workspace is not deleted under its holder.
			l, err = uk.Lock("apply")
			mustNoErr(t, err, "lock uk")
			if err := k.set(bob).DeleteWorkspace("uk", true); err == nil || !strings.Contains(err.Error(), "alice@laptop") {
				t.Fatalf("delete of a locked workspace: %v", err)
			}
			mustNoErr(t, l.Unlock(), "unlock")
			mustNoErr(t, set.DeleteWorkspace("uk", true), "delete --force")
			if _, err := k.open("uk", bob).Load(); !errors.As(err, new(*NoWorkspaceError)) {
				t.Fatalf("load of a deleted workspace: %v", err)
			}
			if err := set.DeleteWorkspace("uk", true); !errors.As(err, new(*NoWorkspaceError)) {
				t.Fatalf("delete of a deleted workspace: %v", err)
			}
			// The default one is untouched.
			again, err := k.open("", bob).Load()
			mustNoErr(t, err, "load default")
			if diff := cmp.Diff(canon(t, d), canon(t, again)); diff != "" || again.Lineage != d.Lineage {
				t.Fatalf("default changed by the other workspace's life:\n%s", diff)
			}
			// An empty one goes without force.
			mustNoErr(t, set.CreateWorkspace("tmp"), "create")
			mustNoErr(t, set.DeleteWorkspace("tmp", false), "delete empty")
			// The default one is listed before anything is written.
			list, err = fresh[i].set(alice).Workspaces()
			mustNoErr(t, err, "list of an empty backend")
			if len(list) != 1 || list[0].Name != "default" || list[0].Exists {
				t.Fatalf("workspaces of an empty backend: %+v", list)
			}
		})
	}
}

// push copies a local state in; pull prints it back as the local file.
func TestPushPull(t *testing.T) {
	for _, k := range wsKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			local := state.New()
			for _, e := range events() {
				mustNoErr(t, local.Fold(e), "apply")
			}
			local.Serial = 41
			b := k.open("", alice)
			l, err := b.Lock("state push")
			mustNoErr(t, err, "lock")
			mustNoErr(t, b.Push(local, false), "push")
			mustNoErr(t, l.Unlock(), "unlock")

			got, err := k.open("", bob).Load()
			mustNoErr(t, err, "load")
			if d := cmp.Diff(canon(t, local), canon(t, got)); d != "" {
				t.Fatalf("pushed state differs (-local +%s):\n%s", k.name, d)
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
			mustNoErr(t, statefile.Encode(&buf, got), "encode")
			back, err := statefile.Decode("pulled.json", buf.Bytes())
			mustNoErr(t, err, "decode the pulled state")
			if d := cmp.Diff(canon(t, local), canon(t, back)); d != "" {
				t.Fatalf("pulled state differs (-local +pulled):\n%s", d)
			}
			// --force replaces.
			small := state.New()
			mustNoErr(t, small.Fold(events()[2]), "apply")
			mustNoErr(t, b.Push(small, true), "push --force")
			got2, err := k.open("", bob).Load()
			mustNoErr(t, err, "load")
			if d := cmp.Diff(canon(t, small), canon(t, got2)); d != "" {
				t.Fatalf("force-pushed state differs (-local +%s):\n%s", k.name, d)
			}
			if got2.Lineage != small.Lineage || got2.Serial <= got.Serial {
				t.Fatalf("push --force: lineage %s serial %d, want %s and past %d", got2.Lineage, got2.Serial, small.Lineage, got.Serial)
			}
		})
	}
}

// A push into a workspace that was never made is refused, as plan and apply
// refuse it: a typo in --workspace makes no new workspace.
func TestPushNeedsTheWorkspace(t *testing.T) {
	for _, k := range wsKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			local := state.New()
			mustNoErr(t, local.Fold(events()[0]), "apply")
			b := k.open("ukk", alice)
			set := k.set(alice)
			for _, force := range []bool{false, true} {
				err := b.Push(local, force)
				var nw *NoWorkspaceError
				if !errors.As(err, &nw) || !strings.Contains(err.Error(), "leadsync workspace new ukk") {
					t.Fatalf("push (force %v) into a workspace never made: %v", force, err)
				}
			}
			list, err := set.Workspaces()
			mustNoErr(t, err, "list")
			for _, w := range list {
				if w.Name == "ukk" {
					t.Fatalf("the refused push made the workspace: %+v", list)
				}
			}
			mustNoErr(t, set.CreateWorkspace("ukk"), "workspace new")
			mustNoErr(t, b.Push(local, false), "push into the new workspace")
			got, err := k.open("ukk", bob).Load()
			mustNoErr(t, err, "load")
			if d := cmp.Diff(canon(t, local), canon(t, got)); d != "" {
				t.Fatalf("pushed state differs (-local +%s):\n%s", k.name, d)
			}
		})
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
	mustNoErr(t, s.Fold(events()[2]), "apply")
	if err := b.Commit(s); err == nil || !strings.Contains(err.Error(), "another state") {
		t.Fatalf("commit over a replaced state: %v", err)
	}
}

// A workspace deleted and made again, then pushed the same lineage, can
// reach the serial an export was recorded at with other data (the person
// forgotten meanwhile): its epoch differs, so the export's mark does not
// match. Within one making of the workspace the epoch stays, push or not.
func TestDataMarkWorkspaceMadeAgain(t *testing.T) {
	for _, k := range wsKinds(t) {
		t.Run(k.name, func(t *testing.T) {
			set := k.set(alice)
			pushed := func(b wsBackend, s *state.State, force bool) *state.State {
				t.Helper()
				l, err := b.Lock("state push")
				mustNoErr(t, err, "lock")
				defer l.Unlock()
				mustNoErr(t, b.Push(s, force), "push")
				got, err := b.Load()
				mustNoErr(t, err, "load")
				return got
			}
			// The file pushed: all the events, or all but the last (other
			// data, one lineage).
			file := func(less bool) *state.State {
				s := state.New()
				s.Lineage = "lineage-of-d.json"
				evs := events()
				if less {
					evs = evs[:len(evs)-1]
				}
				for _, e := range evs {
					mustNoErr(t, s.Fold(e), "apply")
				}
				s.Serial = 21
				return s
			}

			mustNoErr(t, set.CreateWorkspace("cp"), "workspace new")
			b := k.open("cp", alice)
			pushed(b, file(false), false)
			pushed(b, file(false), true)
			exported := pushed(b, file(false), true)
			rec := exported.DataMark()
			if rec.Epoch == "" {
				t.Fatal("a workspace made by workspace new has no epoch")
			}
			again, err := k.open("cp", bob).Load()
			mustNoErr(t, err, "load")
			if !again.DataMark().Equal(rec) {
				t.Fatalf("the same state reloaded: mark %+v, recorded %+v", again.DataMark(), rec)
			}

			mustNoErr(t, set.DeleteWorkspace("cp", true), "workspace delete")
			mustNoErr(t, set.CreateWorkspace("cp"), "workspace new again")
			b = k.open("cp", alice)
			pushed(b, file(true), false)
			pushed(b, file(true), true)
			now := pushed(b, file(true), true)
			if now.Lineage != exported.Lineage || now.Serial != exported.Serial {
				t.Fatalf("the case under test needs one lineage and serial: %s %d, then %s %d", exported.Lineage, exported.Serial, now.Lineage, now.Serial)
			}
			if canon(t, now) == canon(t, exported) {
				t.Fatal("the second state should hold other data")
			}
			if now.DataMark().Equal(rec) {
				t.Fatalf("other data, same mark: %+v and %+v", now.DataMark(), rec)
			}
		})
	}
}
