package cli

import (
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/state/backend"
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
	// APIClock is the time the service's client paces its calls and waits
	// between retries on; nil is the system clock. Tests set a fake one so
	// that a retried call takes no real time.
	APIClock api.Clock
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
	// PlanGC tunes the garbage collector for a plan and returns what
	// undoes it (planGC); nil leaves the collector alone (tests, which
	// run commands side by side in one process).
	PlanGC func() (restore func())
	// CacheDir is the user's cache directory (os.UserCacheDir): results an
	// apply could not write into the state are kept in rescue files under
	// it. "" keeps none there (the answers are then printed).
	CacheDir string
	// DefaultBackend is the backend of a configuration without a backend
	// block; nil is the local state. The end-to-end tests set pg here to
	// run the scripts of the local state on PostgreSQL too.
	DefaultBackend *backend.Block
	// WriteRetryDelays are the waits before each new try of a failed write
	// of the state; nil is run.WriteRetryDelays (about a minute). The
	// end-to-end fault tests shorten them.
	WriteRetryDelays []time.Duration

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
		PlanGC:   planGC,
	}
}

// planGCPercent is the collector's GOGC while a plan is made.
const planGCPercent = 200

// planGC lets the heap grow to three times what the last collection
// kept (GOGC 200) instead of twice, unless GOGC is set in the
// environment. Why: the heap of a plan is mostly the state it loads,
// which lives to the end, so each collection while it loads marks the
// state read so far and frees little; at 600,000 people, GOGC 100 marks
// it three times and its write barriers slow the decoding while it does.
// At 200 the plan of 600,000 people takes 7-10 % less CPU time, with the
// same peak memory (docs/performance.md): the garbage around the state
// (the configuration's evaluation, the plan's own lists) is small beside
// it. Only plan: apply and export make garbage as they go.
func planGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(planGCPercent)
	return func() { debug.SetGCPercent(old) }
}

// now is the time on f's clock (Now), the system's without one.
func (f *Factory) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}
