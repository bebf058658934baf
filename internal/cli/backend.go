package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state"
	"github.com/leadsync/leadsync/internal/state/pg"
)

// EnvPGConnStr gives the PostgreSQL connection string when the backend
// block has no conn_str.
const EnvPGConnStr = "LEADSYNC_PG_CONN_STR"

// envTestPGSchema makes a configuration without a backend block use the
// pg backend with this schema (and LEADSYNC_PG_CONN_STR): the end-to-end
// and kill tests of the local state run against PostgreSQL this way. Test
// only; not documented for users.
const envTestPGSchema = "LEADSYNC_TEST_PG_SCHEMA"

// EnvWorkspace chooses the workspace when --workspace is not given.
const EnvWorkspace = "LEADSYNC_WORKSPACE"

// stateSource is where a command's state lives: the local file (store) or
// a workspace in PostgreSQL (pg).
type stateSource struct {
	backend state.Backend
	store   *state.Store // nil for pg
	pg      *pg.Backend  // nil for the local file
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
	return st.Serial > 0 || len(st.Searches)+len(st.Profiles)+len(st.People) > 0
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

// workspace is the workspace --workspace or LEADSYNC_WORKSPACE names, ""
// for the default.
func (f *Factory) workspace() string {
	if f.Workspace != "" {
		return f.Workspace
	}
	return f.Getenv(EnvWorkspace)
}

// openSource opens the state cfg names: its backend "pg" block, or the
// local state file.
func openSource(f *Factory, cfg *config.Config) (*stateSource, error) {
	opts, err := pgOptions(f, cfg)
	if err != nil {
		return nil, err
	}
	if opts == nil {
		return localSource(f, stateFilePath(cfg)), nil
	}
	b, err := pg.New(*opts)
	if err != nil {
		return nil, pgError(cfg, err)
	}
	return &stateSource{backend: b, pg: b}, nil
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
		if ws != "" && ws != pg.DefaultWorkspace {
			return nil, fmt.Errorf("workspace %q: workspaces need a shared backend; add leadsync { backend \"pg\" { ... } } to the configuration, or unset --workspace and %s", ws, EnvWorkspace)
		}
		return nil, nil
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
// state_path); its diagnostics are printed and an error in it stops the
// command.
func openStateSource(f *Factory, sf *stateFlags) (*stateSource, error) {
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
	return openSource(f, cfg)
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

// lockState takes the state's lock for op, waiting up to the factory's
// --lock-timeout.
func lockState(f *Factory, b state.Backend, op string) (state.Unlocker, error) {
	if f.LockTimeout > 0 {
		return b.LockWait(context.Background(), op, f.LockTimeout)
	}
	return b.Lock(op)
}

// lockTimeoutHelp documents --lock-timeout.
const lockTimeoutHelp = "wait up to `DURATION` (like 5m) for another run to release the state's lock"
