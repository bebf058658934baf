package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/leadsync/leadsync/internal/api"
	"github.com/leadsync/leadsync/internal/api/pacefile"
	"github.com/leadsync/leadsync/internal/config"
	"github.com/leadsync/leadsync/internal/sandbox"
	"github.com/leadsync/leadsync/internal/state/backend"
	"github.com/leadsync/leadsync/internal/views"
)

// errNoAPIKey is returned when neither the configuration nor the environment
// gives a key.
var errNoAPIKey = errors.New("no API key: set LEADSYNC_API_KEY or api.api_key (or api { sandbox = true })")

// newServiceClient builds the client of the service the configuration names:
// the real one with the key of api.api_key or LEADSYNC_API_KEY, or, with
// api { sandbox = true }, an in-process sandbox (its own key and addresses,
// no network). LEADSYNC_LOG=debug logs every call to stderr, the key shown
// as [redacted].
func newServiceClient(f *Factory, cfg *config.Config) (*api.Client, error) {
	a := cfg.API
	opts := api.Options{
		BaseURL:     a.BaseURL,
		BaseURLV2:   a.BaseURLV2,
		Key:         a.APIKey,
		HTTPClient:  f.HTTPClient,
		RateLimit:   a.RateLimit,
		Parallelism: a.Parallelism,
		Timeout:     a.Timeout,
		Clock:       f.APIClock,
		Logger:      debugLogger(f),
	}
	if a.Sandbox {
		// The sandbox enforces the configured rate limit as the real service
		// enforces its own, so that pacing is exercised for real.
		drift, epoch, err := sandboxDriftEnv(f.Getenv)
		if err != nil {
			return nil, err
		}
		sb := sandbox.New(sandbox.Options{RateLimit: a.RateLimit, Drift: drift, Epoch: epoch})
		opts.Key = sandbox.DefaultKey
		opts.BaseURL, opts.BaseURLV2 = sandbox.BaseURL, sandbox.BaseURLV2
		opts.HTTPClient = &http.Client{Transport: sb.Transport()}
		// Each in-process sandbox is a service of its own: it gets its own
		// pacer rather than the process's shared one for the sandbox key.
		opts.Pacer = api.NewPacer(a.RateLimit, a.Parallelism, nil)
	} else {
		if opts.Key == "" && f.Getenv != nil {
			opts.Key = strings.TrimSpace(f.Getenv("LEADSYNC_API_KEY"))
		}
		if opts.Key == "" {
			return nil, errNoAPIKey
		}
		if opts.BaseURL == "" && opts.BaseURLV2 == "" {
			return nil, errors.New("no service address: set api.base_url (or api { sandbox = true })")
		}
		// The rate limit is the key's: wait for the last call of the
		// process before (plan then apply, a resume after a kill), and
		// with the pg backend for the calls of every teammate on the key.
		opts.SharedPace = sharedPace(f, cfg, opts.Key)
	}
	c, err := api.New(opts)
	if err != nil {
		return nil, fmt.Errorf("cannot use the service: %w", err)
	}
	return c, nil
}

// sandboxDriftEnv reads LEADSYNC_SANDBOX_DRIFT and LEADSYNC_SANDBOX_EPOCH,
// the drift of an in-process sandbox (docs/sandbox.md): the same knobs as
// `leadsync sandbox --drift --epoch`, from the environment because time
// passes between runs of the same configuration.
func sandboxDriftEnv(getenv func(string) string) (float64, int, error) {
	if getenv == nil {
		return 0, 0, nil
	}
	var drift float64
	var epoch int
	if v := strings.TrimSpace(getenv("LEADSYNC_SANDBOX_DRIFT")); v != "" {
		d, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("LEADSYNC_SANDBOX_DRIFT=%s: want a share of members between 0 and 1, e.g. 0.15", v)
		}
		drift = d
	}
	if v := strings.TrimSpace(getenv("LEADSYNC_SANDBOX_EPOCH")); v != "" {
		e, err := strconv.Atoi(v)
		if err != nil {
			return 0, 0, fmt.Errorf("LEADSYNC_SANDBOX_EPOCH=%s: want a whole number of epochs, e.g. 2", v)
		}
		epoch = e
	}
	if err := sandbox.CheckDrift(drift, epoch); err != nil {
		return 0, 0, fmt.Errorf("LEADSYNC_SANDBOX_DRIFT and LEADSYNC_SANDBOX_EPOCH: %w", err)
	}
	return drift, epoch, nil
}

// debugLogger returns a debug logger to stderr when LEADSYNC_LOG=debug,
// else nil.
func debugLogger(f *Factory) *slog.Logger {
	if f.Getenv == nil || !strings.EqualFold(strings.TrimSpace(f.Getenv("LEADSYNC_LOG")), "debug") {
		return nil
	}
	return slog.New(slog.NewTextHandler(f.IO.ErrOut, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// reportAPIError prints a failed call as one error with the service's
// message and what to do about it, and returns the error that makes the
// command exit 1 without printing more. Other errors are returned as they
// are.
func reportAPIError(f *Factory, doing string, err error) error {
	var e *api.Error
	if !errors.As(err, &e) {
		return fmt.Errorf("%s: %w", doing, err)
	}
	views.APIError(f.IO.ErrOut, doing, e.Error(), e.Hint())
	msg := doing + ": " + e.Error()
	if h := e.Hint(); h != "" {
		msg += " (" + h + ")"
	}
	f.failures.addMessage(msg)
	return silentExit(ExitError)
}

// sharedPace is where the pace of key is shared with other processes: the
// backend's shared pace (the pg backend's database, which teammates in
// other folders share; the local backend's pace file), else the pace file
// next to the local state. Opening the backend connects to nothing.
func sharedPace(f *Factory, cfg *config.Config, key string) api.SharedPace {
	if src, err := openBackend(f, cfg); err == nil {
		if sp, ok := backend.SharedPace(src.backend, key); ok {
			return sp
		}
	}
	return pacefile.New(filepath.Dir(stateFilePath(cfg)), key)
}

// accountID names the API account of cfg's key in the budget ledger
// (api.AccountID: a hash, never the key); "" when no key is known.
func accountID(f *Factory, cfg *config.Config) string {
	key := cfg.API.APIKey
	if cfg.API.Sandbox {
		key = sandbox.DefaultKey
	}
	if key == "" && f.Getenv != nil {
		key = strings.TrimSpace(f.Getenv("LEADSYNC_API_KEY"))
	}
	if key == "" {
		return ""
	}
	return api.AccountID(key)
}
