package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/leadsync/leadsync/internal/cli/arguments"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/run"
	"github.com/leadsync/leadsync/internal/run/rescue"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"

	// The backends leadsync is built with, registered once for every
	// command: cli opens them through the registry only.
	_ "github.com/leadsync/leadsync/internal/state/backend/builtin"
)

// EnvWorkspace chooses the workspace when --workspace is not given.
const EnvWorkspace = "LEADSYNC_WORKSPACE"

// stateSource is where a command's state lives: the backend the
// configuration names (its block, or the local state file), opened on the
// workspace in use, with its kind's definition. --state names a file: the
// default backend opens it alone. cli never asks which kind it has: what
// only some backends can do, it asks of the backend's abilities
// (internal/state/backend/abilities.go).
type stateSource struct {
	backend backend.Backend
	def     *backend.Definition
}

// close releases what the backend holds (a database connection), if
// anything.
func (s *stateSource) close() {
	if s != nil {
		backend.Close(s.backend)
	}
}

// exists reports whether the state was ever written (s is what Load gave).
func (s *stateSource) exists(st *state.State) bool { return backend.Exists(s.backend, st) }

// openExisting opens the state as a Base (state.Base: people read on
// request) and fails with a hint when there is none; the caller closes
// it.
func (s *stateSource) openExisting(f *Factory) (*state.Base, error) {
	b, err := backend.OpenBase(s.backend)
	if err != nil {
		return nil, err
	}
	if !s.exists(b.Records) {
		b.Close()
		return nil, fmt.Errorf("no state at %s yet: leadsync apply creates it", s.describe(f))
	}
	return b, nil
}

// describe names where the state is: its file relative to the working
// directory, or what the backend says.
func (s *stateSource) describe(f *Factory) string {
	if path, ok := backend.FilePath(s.backend); ok {
		return stateRelPath(f, path)
	}
	return s.backend.Describe()
}

// workspaceDescription names the workspace in use and where it is, for
// messages: `workspace "uk" (.leadsync/workspaces/uk/state.db)`.
func (s *stateSource) workspaceDescription(f *Factory) string {
	if path, ok := backend.FilePath(s.backend); ok {
		return fmt.Sprintf("workspace %q (%s)", s.workspaceName(), stateRelPath(f, path))
	}
	return s.backend.Describe()
}

// workspace is the workspace in use: the one --workspace names, else
// LEADSYNC_WORKSPACE, else the one `workspace select` kept for the working
// copy; "" for the default.
func (f *Factory) workspace() string {
	name, _ := f.workspaceAndSource()
	return name
}

// workspaceAndSource is workspace, with what chose it: "--workspace",
// EnvWorkspace, run.SelectionPath or "" (the default).
func (f *Factory) workspaceAndSource() (string, string) {
	if f.Workspace != "" {
		return f.Workspace, "--workspace"
	}
	if ws := f.Getenv(EnvWorkspace); ws != "" {
		return ws, EnvWorkspace
	}
	if ws := run.SelectedWorkspace(f.Dir); ws != "" {
		return ws, run.SelectionPath
	}
	return "", ""
}

// openSource opens the state cfg names on the workspace in use: its
// backend block, or the local state file (state_path, or a workspace's
// file beside it). A workspace the backend knows was never made is
// refused here (the others refuse it when loading).
func openSource(f *Factory, cfg *config.Config) (*stateSource, error) {
	src, err := openBackend(f, cfg)
	if err != nil {
		return nil, err
	}
	if err := backend.CheckWorkspace(src.backend); err != nil {
		return nil, err
	}
	return src, nil
}

// backendOptions are what opening cfg's backend needs from f.
func backendOptions(f *Factory, cfg *config.Config) backend.Options {
	return backend.Options{Dir: cfg.Dir, StatePath: stateFilePath(cfg), Workspace: f.workspace(),
		Getenv: f.Getenv, Now: f.Now, Notify: f.note}
}

// note prints a one-line note of a backend (the lock of a run that died
// was taken over) on stderr.
func (f *Factory) note(note string) { views.Note(f.IO.ErrOut, note) }

// openBackend is openSource whether the workspace in use exists or not
// (the workspace commands). The registry opens the kind cfg names.
func openBackend(f *Factory, cfg *config.Config) (*stateSource, error) {
	blk := cfg.Settings.Backend
	if blk == nil {
		blk = f.DefaultBackend
	}
	def, b, err := backend.Open(blk, backendOptions(f, cfg))
	if err != nil {
		return nil, err
	}
	return &stateSource{backend: rescued(f, b), def: def}, nil
}

// rescued is b within run's rescue layer (run.Rescuing): the results an
// apply could not write into the state are kept in a rescue file of the
// user's cache directory, under a key of where the state is (b.Describe:
// another state file, workspace or database schema is another key), and
// every command folds them in before anything else.
func rescued(f *Factory, b backend.Backend) backend.Backend {
	var place rescue.Place
	if f.CacheDir != "" {
		place = rescue.PlaceIn(f.CacheDir, b.Describe())
	}
	return run.Rescuing(b, run.RescueOptions{Place: place, Now: f.Now, Delays: f.WriteRetryDelays, Notify: f.note})
}

// workspaces are the workspaces of s's backend; ok false for one without
// them (a file named with --state).
func (s *stateSource) workspaces() (backend.Workspaces, bool) { return backend.WorkspacesOf(s.backend) }

// workspaceName is the workspace in use.
func (s *stateSource) workspaceName() string { return backend.WorkspaceOf(s.backend) }

// fileSource is the state file at path alone (--state).
func fileSource(f *Factory, path string) (*stateSource, error) {
	b, err := backend.OpenFile(path, backend.Options{Getenv: f.Getenv, Now: f.Now, Notify: f.note})
	if err != nil {
		return nil, err
	}
	return &stateSource{backend: rescued(f, b), def: backend.Default()}, nil
}

// openStateSource returns the state the flags name: --state names a local
// file; otherwise the configuration is loaded for its backend (or
// state_path) and the workspace in use.
func openStateSource(f *Factory, st arguments.State) (*stateSource, error) {
	return openStateSourceWith(f, st, openSource)
}

// openStateSourceWith is openStateSource opening the configuration's
// backend with open.
func openStateSourceWith(f *Factory, st arguments.State, open func(*Factory, *config.Config) (*stateSource, error)) (*stateSource, error) {
	if st.Path != "" {
		p := st.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(f.Dir, p)
		}
		return fileSource(f, p)
	}
	cfg, err := configForState(f, st.Vars, true)
	if err != nil {
		return nil, err
	}
	return open(f, cfg)
}

// openBaseOf opens the state st names as a Base (state.Base: people read
// on request), cfg already loaded (sourceOf). A state never written is an
// empty one. The caller closes both.
func openBaseOf(f *Factory, st arguments.State, cfg *config.Config) (*stateSource, *state.Base, error) {
	return baseOn(sourceOf(f, st, cfg))
}

// baseOn opens src's state as a Base; src is closed when that fails (or
// when err, src's own error, is set).
func baseOn(src *stateSource, err error) (*stateSource, *state.Base, error) {
	if err != nil {
		return nil, nil, err
	}
	b, err := backend.OpenBase(src.backend)
	if err != nil {
		src.close()
		return nil, nil, err
	}
	return src, b, nil
}

// sourceOf is where the state st names is, cfg already loaded: the file
// of --state alone, or else cfg's backend on the workspace in use. The
// caller closes it.
func sourceOf(f *Factory, st arguments.State, cfg *config.Config) (*stateSource, error) {
	if st.Path != "" {
		return openStateSource(f, st) // --state: that file alone
	}
	return openSource(f, cfg)
}

// configForState loads the configuration for where its state is: its
// diagnostics are printed, and an error in it stops the command, saying
// so (and, for a command that has --state, that the flag goes around it).
func configForState(f *Factory, vars arguments.Vars, hasStateFlag bool) (*config.Config, error) {
	// Only where the state is matters: the list files of exclude and
	// import blocks are not read (a broken customer list must not stop an
	// erasure).
	cfg, diags := loadConfigNoLists(f, vars)
	writeDiagnostics(f, cfg, diags)
	if !diags.HasErrors() {
		return cfg, nil
	}
	views.StateLocationBroken(f.IO.ErrOut, hasStateFlag)
	return nil, silentExit(ExitError)
}

// configSource loads the configuration of a command without --state and
// opens its state on the workspace in use.
func configSource(f *Factory, vars arguments.Vars) (*config.Config, *stateSource, error) {
	cfg, err := configForState(f, vars, false)
	if err != nil {
		return nil, nil, err
	}
	src, err := openSource(f, cfg)
	if err != nil {
		return nil, nil, err
	}
	return cfg, src, nil
}

// mentionsBackend reports whether a configuration file in dir may hold a
// backend block or a state_path (a cheap look before the configuration is
// parsed): the state is then elsewhere than the default, and loading the
// default one early would read it (or make it from a state.json) for
// nothing.
func mentionsBackend(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.leads.hcl"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err != nil || bytes.Contains(b, []byte("backend")) || bytes.Contains(b, []byte("state_path")) {
			return true
		}
	}
	return false
}

// stateFilePath is where the state of cfg lives.
func stateFilePath(cfg *config.Config) string {
	p := cfg.Settings.StatePath
	if p == "" {
		p = config.DefaultStatePath
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(cfg.Dir, p)
	}
	return p
}

// stateRelPath shows path relative to the working directory when inside it.
func stateRelPath(f *Factory, path string) string {
	if rel, err := filepath.Rel(f.Dir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}
