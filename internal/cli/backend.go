package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/state/local"
	"github.com/leadsync/leadsync/internal/state/pg"
)

// EnvPGConnStr gives the PostgreSQL connection string when the backend
// block has no conn_str.
const EnvPGConnStr = config.EnvPGConnStr

// envTestPGSchema makes a configuration without a backend block use the
// pg backend with this schema (and LEADSYNC_PG_CONN_STR): the end-to-end
// and kill tests of the local state run against PostgreSQL this way. Test
// only; not documented for users.
const envTestPGSchema = "LEADSYNC_TEST_PG_SCHEMA"

// EnvWorkspace chooses the workspace when --workspace is not given.
const EnvWorkspace = "LEADSYNC_WORKSPACE"

// stateSource is where a command's state lives: a workspace of the local
// backend (store, its state file; ws and local) or a workspace in
// PostgreSQL (pg). --state names a file: store alone.
type stateSource struct {
	backend backend.Backend
	store   *local.Store // nil for pg
	pg      *pg.Backend  // nil for the local file
	// local are the local backend's workspaces and ws the one in use;
	// nil for pg and for --state.
	local *local.Workspaces
	ws    *local.Workspace
}

// close releases the database connection, if any.
func (s *stateSource) close() {
	if s != nil && s.pg != nil {
		s.pg.Close()
	}
}

// exists reports whether the state was ever written (s is what Load gave).
func (s *stateSource) exists(st *state.State) bool {
	if s.store != nil {
		return s.store.Exists()
	}
	return st.Serial > 0 || !st.IsEmpty()
}

// loadExisting loads the state and fails with a hint when there is none.
func (s *stateSource) loadExisting(f *Factory) (*state.State, error) {
	st, err := s.backend.Load()
	if err != nil {
		return nil, err
	}
	if !s.exists(st) {
		return nil, fmt.Errorf("no state at %s yet: leadsync apply creates it", s.describe(f))
	}
	return st, nil
}

// describe names where the state is, relative to the working directory
// for a file.
func (s *stateSource) describe(f *Factory) string {
	if s.pg != nil {
		return s.pg.Describe()
	}
	return stateRelPath(f, s.store.Path())
}

// workspaceDescription names the workspace in use and where it is, for
// messages: `workspace "uk" (.leadsync/workspaces/uk/state.json)`.
func (s *stateSource) workspaceDescription(f *Factory) string {
	if s.pg != nil {
		return s.pg.Describe()
	}
	return fmt.Sprintf("workspace %q (%s)", s.workspaceName(), stateRelPath(f, s.store.Path()))
}

// workspace is the workspace --workspace or LEADSYNC_WORKSPACE names, ""
// for the default.
func (f *Factory) workspace() string {
	if f.Workspace != "" {
		return f.Workspace
	}
	return f.Getenv(EnvWorkspace)
}

// openSource opens the state cfg names on the workspace in use: its
// backend "pg" block, or the local state file (state_path, or a
// workspace's file beside it). A local workspace that was never made is
// refused (the pg backend refuses it when loading).
func openSource(f *Factory, cfg *config.Config) (*stateSource, error) {
	src, err := openBackend(f, cfg)
	if err != nil {
		return nil, err
	}
	if src.ws != nil && !src.local.Exists(src.ws.Name()) {
		return nil, &backend.NoWorkspaceError{Workspace: src.ws.Name()}
	}
	return src, nil
}

// openBackend is openSource whether the workspace in use exists or not
// (the workspace commands).
func openBackend(f *Factory, cfg *config.Config) (*stateSource, error) {
	opts, err := pgOptions(f, cfg)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		return localWorkspaceSource(f, stateFilePath(cfg))
	}
	b, err := pg.New(*opts)
	if err != nil {
		return nil, pgError(cfg, err)
	}
	return &stateSource{backend: b, pg: b}, nil
}

// localWorkspaceSource is the workspace in use of the local backend whose
// default workspace is the state file at path.
func localWorkspaceSource(f *Factory, path string) (*stateSource, error) {
	local := local.NewWorkspaces(path, func(p string) *local.Store { return newStateStore(f, p) })
	ws, err := local.Open(f.workspace())
	if err != nil {
		return nil, err
	}
	return &stateSource{backend: ws, store: ws.Store, local: local, ws: ws}, nil
}

// workspaceSet is a backend's workspaces, as the workspace commands use
// them.
type workspaceSet interface {
	Workspaces() ([]backend.WorkspaceInfo, error)
	CreateWorkspace(name string) error
	DeleteWorkspace(name string, force bool) error
}

// workspaces are the workspaces of s's backend; nil for a file named with
// --state.
func (s *stateSource) workspaces() workspaceSet {
	switch {
	case s.pg != nil:
		return s.pg
	case s.local != nil:
		return s.local
	}
	return nil
}

// workspaceName is the workspace in use.
func (s *stateSource) workspaceName() string {
	switch {
	case s.pg != nil:
		return s.pg.Workspace()
	case s.ws != nil:
		return s.ws.Name()
	}
	return state.DefaultWorkspace
}

// pgOptions returns where the pg backend of cfg is, nil for the local state
// file.
func pgOptions(f *Factory, cfg *config.Config) (*pg.Options, error) {
	be := cfg.Settings.Backend
	ws := f.workspace()
	if schema := f.Getenv(envTestPGSchema); be == nil && schema != "" {
		// Test only: the end-to-end tests of the local state run on pg too.
		be = &config.Backend{Type: "pg", SchemaName: schema}
	}
	if be == nil {
		return nil, nil // the local state file, and its workspaces
	}
	connStr := be.ConnStr
	if connStr == "" {
		connStr = f.Getenv(EnvPGConnStr)
	}
	if connStr == "" {
		return nil, fmt.Errorf("%s: the backend \"pg\" block has no conn_str and %s is not set; set %s to the database's connection string (like postgres://user@db.example.com/leads), as a secret in CI",
			shortRangeOf(cfg, be), EnvPGConnStr, EnvPGConnStr)
	}
	return &pg.Options{ConnStr: connStr, Schema: be.SchemaName, Workspace: ws, Now: f.Now}, nil
}

// pgError says where the backend's setting that err is about is.
func pgError(cfg *config.Config, err error) error {
	be := cfg.Settings.Backend
	if be == nil || be.ConnStr == "" {
		return fmt.Errorf("%s: %v", EnvPGConnStr, err)
	}
	return fmt.Errorf("%s: %v", shortRangeOf(cfg, be), err)
}

// shortRangeOf is the file:line of the backend block.
func shortRangeOf(cfg *config.Config, be *config.Backend) string {
	r := be.DeclRange
	if be.ConnStrRange != nil {
		r = *be.ConnStrRange
	}
	name := r.Filename
	if rel, err := filepath.Rel(cfg.Dir, name); err == nil {
		name = rel
	}
	return fmt.Sprintf("%s:%d", name, r.Start.Line)
}

func localSource(f *Factory, path string) *stateSource {
	store := newStateStore(f, path)
	return &stateSource{backend: store.AsBackend(), store: store}
}

// openStateSource returns the state the flags name: --state names a local
// file; otherwise the configuration is loaded for its backend (or
// state_path) and the workspace in use; its diagnostics are printed and an
// error in it stops the command.
func openStateSource(f *Factory, sf *stateFlags) (*stateSource, error) {
	return openStateSourceWith(f, sf, openSource)
}

// openStateSourceWith is openStateSource opening the configuration's
// backend with open.
func openStateSourceWith(f *Factory, sf *stateFlags, open func(*Factory, *config.Config) (*stateSource, error)) (*stateSource, error) {
	if sf.path != "" {
		p := sf.path
		if !filepath.IsAbs(p) {
			p = filepath.Join(f.Dir, p)
		}
		return localSource(f, p), nil
	}
	cfg, diags := loadConfig(f, &sf.vars)
	writeDiagnostics(f, cfg, diags)
	if diags.HasErrors() {
		fmt.Fprintln(f.IO.ErrOut, "The state's location comes from the configuration: fix the configuration, or name the state file with --state.")
		return nil, silentExit(ExitError)
	}
	return open(f, cfg)
}

// mentionsBackend reports whether a configuration file in dir may hold a
// backend block (a cheap look before the configuration is parsed).
func mentionsBackend(dir string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*.leads.hcl"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err != nil || bytes.Contains(b, []byte("backend")) {
			return true
		}
	}
	return false
}

// lockTimeoutHelp documents --lock-timeout.
const lockTimeoutHelp = "wait up to `DURATION` (like 5m) for another run to release the state's lock"
