package cli

import (
	"net/http"
	"os"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
)

// Factory carries the world a command runs in: streams, environment, clock,
// working directory and HTTP transport. Tests build their own.
type Factory struct {
	IO *IOStreams
	// Getenv reads the environment.
	Getenv func(string) string
	// Environ lists the environment as KEY=VALUE.
	Environ func() []string
	// Now is the clock.
	Now func() time.Time
	// Dir is the working directory, after --chdir.
	Dir string
	// HTTPClient is used for every call to the service; nil means a default
	// client built by the api package.
	HTTPClient *http.Client
	// Interrupt delivers interrupts (Ctrl-C) to long-running commands; nil
	// means the process's own signals.
	Interrupt <-chan os.Signal
	// Service builds the client of the service cfg names; nil means
	// newServiceClient (the real service, or the in-process sandbox).
	Service func(cfg *config.Config) (api.Service, error)
	// Workspace is --workspace: the backend's workspace ("" reads
	// LEADSYNC_WORKSPACE, then "default").
	Workspace string
	// CacheDir is the user's cache directory (os.UserCacheDir): results an
	// apply could not write into the state are kept in rescue files under
	// it. "" keeps none there (the answers are then printed).
	CacheDir string

	// failures collects what the running command reported, for the JSON
	// document of a failed --json command (set by Run).
	failures *failureLog
}

// service builds the client of the service cfg names.
func (f *Factory) service(cfg *config.Config) (api.Service, error) {
	if f.Service != nil {
		return f.Service(cfg)
	}
	c, err := newServiceClient(f, cfg)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return c, nil
}

// NewSystemFactory returns the factory of a real process.
func NewSystemFactory() *Factory {
	wd, _ := os.Getwd()
	cache, _ := os.UserCacheDir()
	return &Factory{
		IO:       System(),
		Getenv:   os.Getenv,
		Environ:  os.Environ,
		Now:      time.Now,
		Dir:      wd,
		CacheDir: cache,
	}
}
