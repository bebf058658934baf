package backend

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/leadsync/leadsync/internal/state"
)

// memBackend is the least a backend is: a state in memory, no abilities.
type memBackend struct {
	where string
	st    *state.State
}

func (m *memBackend) Load() (*state.State, error)                { return m.st, nil }
func (m *memBackend) Lock(string) (Unlocker, error)              { return nil, nil }
func (m *memBackend) OpenJournal(*state.State) (Recorder, error) { return nil, nil }
func (m *memBackend) Commit(s *state.State) error                { m.st = s; return nil }
func (m *memBackend) Describe() string                           { return m.where }
func (m *memBackend) LockWait(context.Context, string, time.Duration) (Unlocker, error) {
	return nil, nil
}

// The registry gives each kind by name, the default without a block, the
// names a message offers, and opens what a block names.
func TestRegistry(t *testing.T) {
	var opened []string
	def := &Definition{Name: "mem", Title: "memory", Default: true, Open: func(b *Block, o Options) (Backend, error) {
		opened = append(opened, "mem:"+o.Workspace)
		return &memBackend{where: "memory", st: state.New()}, nil
	}, OwnFiles: func(statePath string) ([]string, map[string]string) {
		return []string{statePath + ".d"}, map[string]string{"x.lock": "the lock"}
	}}
	other := &Definition{Name: "zz", Title: "ZZ", Schema: &hcl.BodySchema{}, Open: func(b *Block, o Options) (Backend, error) {
		opened = append(opened, "zz:"+b.Value("where"))
		return &memBackend{where: "zz"}, nil
	}}
	Register(def)
	Register(other)
	if Default() != def || Lookup("zz") != other || Lookup("mem") != nil || Lookup("s3") != nil {
		t.Fatalf("lookup: default %v, zz %v, mem %v", Default(), Lookup("zz"), Lookup("mem"))
	}
	if got := Blocks(); got != `backend "zz" (ZZ)` {
		t.Errorf("Blocks() = %q", got)
	}
	if d, b, err := Open(nil, Options{Workspace: "uk"}); err != nil || d != def || b.Describe() != "memory" {
		t.Errorf("Open(nil) = %v, %v, %v", d, b, err)
	}
	blk := &Block{Type: "zz", Attrs: map[string]*Attr{"where": {Value: "here", Known: true}}}
	if d, _, err := Open(blk, Options{}); err != nil || d != other {
		t.Errorf("Open(zz) = %v, %v", d, err)
	}
	if _, _, err := Open(&Block{Type: "s3"}, Options{}); err == nil || !strings.Contains(err.Error(), `backend "s3" is not registered`) {
		t.Errorf("Open(s3): %v", err)
	}
	if strings.Join(opened, ",") != "mem:uk,zz:here" {
		t.Errorf("opened %v", opened)
	}
	dirs, files := OwnFiles("/w/state.json")
	if len(dirs) != 1 || dirs[0] != "/w/state.json.d" || files["x.lock"] != "the lock" {
		t.Errorf("OwnFiles: %v %v", dirs, files)
	}
	for name, d := range map[string]*Definition{"twice": {Name: "zz", Open: other.Open}, "second default": {Name: "d2", Default: true, Open: def.Open}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(d)
		}()
	}
}

func TestBlockValueAndWhere(t *testing.T) {
	rng := func(line int) hcl.Range {
		return hcl.Range{Filename: "/cfg/main.leads.hcl", Start: hcl.Pos{Line: line}}
	}
	b := &Block{Type: "pg", DeclRange: rng(2), Attrs: map[string]*Attr{
		"conn_str":    {Value: "x", Known: true, Range: rng(3)},
		"schema_name": {Value: "bad", Known: false, Range: rng(4)},
	}}
	if b.Value("conn_str") != "x" || b.Value("schema_name") != "" || b.Value("nothing") != "" || (*Block)(nil).Value("x") != "" {
		t.Error("Value: a known value is given, an unknown or missing one is empty")
	}
	if got := b.Where("conn_str", "/cfg"); got != "main.leads.hcl:3" {
		t.Errorf("Where(conn_str) = %q", got)
	}
	if got := b.Where("nothing", "/cfg"); got != "main.leads.hcl:2" {
		t.Errorf("Where of an attribute not set = %q, want the block's line", got)
	}
}

// A backend without abilities gets the fallbacks.
func TestAbilitiesFallBack(t *testing.T) {
	m := &memBackend{where: "memory", st: state.New()}
	if Exists(m, state.New()) || KnownAbsent(m) || Offline(m) {
		t.Error("an empty state of a backend that cannot tell exists, or is known absent, or offline")
	}
	written := state.New()
	written.Serial = 1
	if !Exists(m, written) {
		t.Error("a state with a serial does not exist")
	}
	if _, ok := FilePath(m); ok {
		t.Error("a file path")
	}
	if WorkspaceOf(m) != state.DefaultWorkspace || CheckWorkspace(m) != nil || LockHolder(m) != nil || Close(m) != nil {
		t.Error("workspace, check, holder or close")
	}
	if f, why := ForceUnlockerOf(m); f != nil || !strings.Contains(why, "memory has no lock to force") {
		t.Errorf("ForceUnlockerOf: %v %q", f, why)
	}
	if _, ok := SharedPace(m, "k"); ok {
		t.Error("a shared pace")
	}
	if _, ok := WorkspacesOf(m); ok {
		t.Error("workspaces")
	}
	if _, ok := PusherOf(m); ok {
		t.Error("push")
	}
	if _, ok := BackupOf(m); ok {
		t.Error("backup")
	}
	if _, ok := RecovererOf(m); ok {
		t.Error("recoverer")
	}
	if _, ok := JournalPending(m); ok {
		t.Error("journal")
	}
}

// fileBackend has one ability: its state is a file.
type fileBackend struct{ memBackend }

func (fileBackend) Path() string { return "/work/.leadsync/state.json" }

// layer adds to a backend (as run's rescue layer does) without
// re-implementing its abilities.
type layer struct{ Backend }

func (l layer) Unwrap() Backend { return l.Backend }

// An ability is found through layers (Wrapper), and a layer over a
// backend without it has none.
func TestAbilitiesThroughLayers(t *testing.T) {
	f := &fileBackend{memBackend{where: "file", st: state.New()}}
	if path, ok := FilePath(layer{layer{f}}); !ok || path != f.Path() {
		t.Errorf("FilePath through two layers = %q, %v", path, ok)
	}
	if _, ok := FilePath(layer{&memBackend{where: "memory"}}); ok {
		t.Error("a layer over a backend without a file has one")
	}
}
