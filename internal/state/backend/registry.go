package backend

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
)

// Definition is one kind of backend, as it registers itself: its name, the
// schema of its block, its checks and its opener. The rest of leadsync
// asks the registry for these and never which kind it has (terraform's
// backend/init does the same). Adding a backend is one package with a
// Definition, one line in internal/state/backend/builtin, and
// backendtest.Run in its tests.
type Definition struct {
	// Name is the label of its block, backend "pg" { ... }.
	Name string
	// Title names it in messages: "PostgreSQL".
	Title string
	// Default marks the backend used when the configuration has no backend
	// block (the local state file). It has no block of its own; exactly
	// one registered backend is the default.
	Default bool
	// Schema is the schema of its block's body. Every attribute is a
	// string (variables allowed); a backend needing another type parses
	// the string in Check.
	Schema *hcl.BodySchema
	// Secrets are the attributes whose values are secrets: masked when
	// written in the file, scrubbed from every message. EnvSecrets are
	// environment variables whose values are secrets too (a connection
	// string given by the environment).
	Secrets    []string
	EnvSecrets []string
	// Check checks a block of this kind without connecting anywhere (it
	// runs in validate): diagnostics carry the range of what they are
	// about, so that validate prints file:line. An attribute that could
	// not be evaluated (Attr.Known false) is already reported.
	Check func(b *Block, getenv func(string) string) hcl.Diagnostics
	// Open returns the backend of the workspace opts names; b is its block
	// (nil for the default backend). It connects to nothing yet: errors
	// are of the settings (file:line where there is one).
	Open func(b *Block, opts Options) (Backend, error)
	// OwnFiles, when set, lists the folders and files (with what each is)
	// the backend keeps in the working copy beside the state file at
	// statePath: a saved plan is never written over them.
	OwnFiles func(statePath string) (dirs []string, files map[string]string)
}

// Options are what opening a backend needs from the command.
type Options struct {
	// Dir is the configuration's folder: file:line in messages is relative
	// to it.
	Dir string
	// StatePath is the local state file (state_path, absolute): the local
	// backend's default workspace, the file state push copies.
	StatePath string
	// File, when set, is a state file named on the command line (--state,
	// state push --from): the default backend opens that file alone,
	// without workspaces, and StatePath does not matter.
	File string
	// Workspace is the workspace in use; "" for the default one.
	Workspace string
	// Getenv reads the environment (a connection string); os.Getenv when
	// nil.
	Getenv func(string) string
	// Now is the clock of lock times; time.Now when nil.
	Now func() time.Time
	// Notify, when set, receives one-line notes for the user (the lock of
	// a run that died was taken over).
	Notify func(note string)
}

// Block is a backend block of the configuration, as config keeps it: its
// kind, the attributes set (evaluated) and where it is. Only the backend
// of that kind reads the attributes.
type Block struct {
	Type      string
	Attrs     map[string]*Attr
	DeclRange hcl.Range
}

// Attr is one attribute of a backend block.
type Attr struct {
	// Value is the attribute's value; Known is false when it could not be
	// evaluated (the problem is already reported).
	Value string
	Known bool
	// Literal is true when the value is written in the file (no
	// variable); Sensitive when it comes from a sensitive variable.
	Literal, Sensitive bool
	// NameRange and Range are the ranges of the name and of the value.
	NameRange, Range hcl.Range
}

// Value is the value of the attribute name, "" when it is not set or not
// known.
func (b *Block) Value(name string) string {
	if b == nil || b.Attrs[name] == nil || !b.Attrs[name].Known {
		return ""
	}
	return b.Attrs[name].Value
}

// Where is the file:line of the attribute name (of the block when it is
// not set), the file relative to dir.
func (b *Block) Where(name, dir string) string {
	r := b.DeclRange
	if a := b.Attrs[name]; a != nil {
		r = a.Range
	}
	file := r.Filename
	if rel, err := filepath.Rel(dir, file); err == nil && dir != "" {
		file = rel
	}
	return fmt.Sprintf("%s:%d", file, r.Start.Line)
}

var (
	regMu    sync.Mutex
	registry = map[string]*Definition{}
)

// Register adds a kind of backend. Registering a name twice, or a second
// default, is a programming error: it panics (at init).
func Register(d *Definition) {
	regMu.Lock()
	defer regMu.Unlock()
	if d.Name == "" || d.Open == nil {
		panic("backend.Register: a definition needs a name and an opener")
	}
	if registry[d.Name] != nil {
		panic("backend.Register: " + d.Name + " registered twice")
	}
	if d.Default && defaultLocked() != nil {
		panic("backend.Register: a second default backend, " + d.Name)
	}
	registry[d.Name] = d
}

// Lookup returns the kind of backend a block names, nil when none is
// registered under that name (or it is the default, which has no block).
func Lookup(name string) *Definition {
	regMu.Lock()
	defer regMu.Unlock()
	if d := registry[name]; d != nil && !d.Default {
		return d
	}
	return nil
}

// Default returns the backend used without a backend block; nil when
// none is registered (a program that imports no backend).
func Default() *Definition {
	regMu.Lock()
	defer regMu.Unlock()
	return defaultLocked()
}

func defaultLocked() *Definition {
	for _, d := range registry {
		if d.Default {
			return d
		}
	}
	return nil
}

// Blocks lists the backends a block can name, sorted, as `backend "pg"
// (PostgreSQL)`: what a message offers instead of an unknown name.
func Blocks() string {
	regMu.Lock()
	defer regMu.Unlock()
	var names []string
	for _, d := range registry {
		if !d.Default {
			names = append(names, d.Name)
		}
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("backend %q (%s)", n, registry[n].Title)
	}
	return strings.Join(out, " or ")
}

// Open opens the backend block b names (the default backend when b is
// nil) for the workspace opts names, and returns its definition with it.
func Open(b *Block, opts Options) (*Definition, Backend, error) {
	var d *Definition
	if b == nil {
		d = Default()
	} else {
		d = Lookup(b.Type)
	}
	if d == nil {
		what := "the default backend"
		if b != nil {
			what = fmt.Sprintf("backend %q", b.Type)
		}
		return nil, nil, fmt.Errorf("%s is not registered in this build of leadsync", what)
	}
	be, err := d.Open(b, opts)
	if err != nil {
		return nil, nil, err
	}
	return d, be, nil
}

// OpenFile opens the state file at path alone with the default backend
// (--state, state push --from).
func OpenFile(path string, opts Options) (Backend, error) {
	opts.File = path
	_, b, err := Open(nil, opts)
	return b, err
}

// OwnFiles lists the folders and files every registered backend keeps
// beside the state file at statePath, with what each is.
func OwnFiles(statePath string) (dirs []string, files map[string]string) {
	regMu.Lock()
	defer regMu.Unlock()
	files = map[string]string{}
	for _, d := range registry {
		if d.OwnFiles == nil {
			continue
		}
		ds, fs := d.OwnFiles(statePath)
		dirs = append(dirs, ds...)
		for k, v := range fs {
			files[k] = v
		}
	}
	sort.Strings(dirs)
	return dirs, files
}
