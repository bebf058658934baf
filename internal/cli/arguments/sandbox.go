package arguments

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/leadsync/leadsync/internal/sandbox/knobs"
)

// Sandbox is the command line of `leadsync sandbox`.
type Sandbox struct {
	// Addr is where to listen, HOST:PORT; a loopback host unless
	// AllowRemote.
	Addr        string
	AllowRemote bool
	Key         string
	Seed        int64
	People      int
	// Rate is calls per second before 429; negative for no limit.
	Rate float64
	// SearchLatency and ReadLatency are [min, max]; {-1, -1} is none, as
	// sandbox.Options spells it.
	SearchLatency [2]time.Duration
	ReadLatency   [2]time.Duration
	Credits       int
	Quota         int
	Faults        knobs.Faults
	// Drift is the share of members who move at each epoch, Epoch the
	// epoch the population is at (knobs.CheckDrift).
	Drift float64
	Epoch int
	// PrivatePositions: private profiles answer with their positions, and
	// private members move (sandbox.Options.PrivatePositions).
	PrivatePositions bool
	Quiet            bool
}

// SandboxFlags are the flags of sandbox as given.
type SandboxFlags struct {
	Addr        string
	AllowRemote bool
	Key         string
	Seed        int64
	People      int
	Rate        float64
	Latency     string // MIN-MAX or one duration
	ReadLatency string
	Credits     int
	Quota       int
	Faults      string // NAME=VALUE,...
	Drift       float64
	Epoch       int
	// PrivatePositions is --private-positions.
	PrivatePositions bool
	Quiet            bool
}

// Register declares the flags of sandbox on fs.
func (fl *SandboxFlags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&fl.Addr, "addr", "127.0.0.1:8787", "listen on `HOST:PORT` (port 0 picks a free one)")
	fs.BoolVar(&fl.AllowRemote, "allow-remote", false, "allow a non-loopback --addr (the key is well known: anyone who reaches the port can use it)")
	fs.StringVar(&fl.Key, "key", knobs.DefaultKey, "the API `KEY` to accept")
	fs.Int64Var(&fl.Seed, "seed", 0, "population seed: the same seed gives the same members and results")
	fs.IntVar(&fl.People, "people", knobs.DefaultPeople, "population size")
	fs.Float64Var(&fl.Rate, "rate", 1, "calls per second before 429 (a negative value disables the limit)")
	fs.StringVar(&fl.Latency, "latency", "50ms-300ms", "search latency, `MIN-MAX` or one duration (0: none)")
	fs.StringVar(&fl.ReadLatency, "read-latency", "0", "latency of the other operations, `MIN-MAX` or one duration")
	fs.IntVar(&fl.Credits, "credits", knobs.DefaultCredits, "starting enrich credits")
	fs.IntVar(&fl.Quota, "quota", knobs.DefaultQuota, "starting remaining requests this month")
	fs.StringVar(&fl.Faults, "faults", "", "faults to inject, `NAME=VALUE,...` (see above)")
	fs.Float64Var(&fl.Drift, "drift", 0, "share of members who move at each epoch, from 0 to 1 (see above)")
	fs.IntVar(&fl.Epoch, "epoch", 0, "the epoch the population is at: 0 is as generated, each one later has moved once more")
	fs.BoolVar(&fl.PrivatePositions, "private-positions", false, "private profiles answer with their positions (the spec allows it), and private members change jobs too")
	fs.BoolVar(&fl.Quiet, "quiet", false, "do not log each call to stderr")
}

// ParseSandbox checks the command line of sandbox and converts its values.
func ParseSandbox(fl SandboxFlags, args []string) (*Sandbox, error) {
	if err := noArgs("leadsync sandbox", args); err != nil {
		return nil, err
	}
	o := &Sandbox{Addr: fl.Addr, AllowRemote: fl.AllowRemote, Key: fl.Key, Seed: fl.Seed, People: fl.People,
		Rate: fl.Rate, Credits: fl.Credits, Quota: fl.Quota, Drift: fl.Drift, Epoch: fl.Epoch, PrivatePositions: fl.PrivatePositions, Quiet: fl.Quiet}
	var err error
	if err = checkSandboxAddr(o.Addr, o.AllowRemote); err != nil {
		return nil, err
	}
	if o.SearchLatency, err = parseLatency(fl.Latency); err != nil {
		return nil, fmt.Errorf("--latency: %w", err)
	}
	if o.ReadLatency, err = parseLatency(fl.ReadLatency); err != nil {
		return nil, fmt.Errorf("--read-latency: %w", err)
	}
	if o.Faults, err = knobs.ParseFaults(fl.Faults); err != nil {
		return nil, fmt.Errorf("--faults: %w", err)
	}
	switch {
	case o.People <= 0:
		return nil, fmt.Errorf("--people %d: want a positive number of members", o.People)
	case o.Credits < 0:
		return nil, fmt.Errorf("--credits %d: want 0 or more", o.Credits)
	case o.Quota < 0:
		return nil, fmt.Errorf("--quota %d: want 0 or more", o.Quota)
	case o.Rate == 0:
		return nil, fmt.Errorf("--rate 0: want calls per second above 0, or a negative value for no limit")
	case strings.TrimSpace(o.Key) == "":
		return nil, fmt.Errorf("--key: want a non-empty key")
	}
	if err := knobs.CheckDrift(o.Drift, o.Epoch); err != nil {
		return nil, fmt.Errorf("--%s", err)
	}
	return o, nil
}

// checkSandboxAddr refuses addresses other machines can reach unless
// allowed: the sandbox's key is printed and well known.
func checkSandboxAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--addr %q: want HOST:PORT, e.g. 127.0.0.1:8787", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("--addr %q: port %q is not a number from 0 to 65535", addr, port)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	what := host + " is not a loopback address"
	if host == "" {
		what = "an empty host listens on every interface"
	}
	return fmt.Errorf("--addr %q: %s; the sandbox accepts a well-known key, so it listens on 127.0.0.1, [::1] or localhost unless you add --allow-remote", addr, what)
}

// parseLatency reads "MIN-MAX" or one duration. "0" means none, which
// sandbox.Options spells as a negative max.
func parseLatency(s string) ([2]time.Duration, error) {
	lo, hi, isRange := strings.Cut(strings.TrimSpace(s), "-")
	if !isRange {
		hi = lo
	}
	from, err1 := time.ParseDuration(strings.TrimSpace(lo))
	to, err2 := time.ParseDuration(strings.TrimSpace(hi))
	switch {
	case lo == "0" && !isRange:
		return [2]time.Duration{-1, -1}, nil
	case err1 != nil || err2 != nil:
		return [2]time.Duration{}, fmt.Errorf("%q: want MIN-MAX or one duration, e.g. 2s-10s or 200ms", s)
	case from < 0 || to < from:
		return [2]time.Duration{}, fmt.Errorf("%q: want 0 <= MIN <= MAX", s)
	case to == 0:
		return [2]time.Duration{-1, -1}, nil
	}
	return [2]time.Duration{from, to}, nil
}
