package views

import (
	"fmt"
	"io"
	"strconv"
	"time"
)

// SandboxStart is what `leadsync sandbox` says when it serves: where, the
// key, and the population and limits it serves with.
type SandboxStart struct {
	BaseURL, Key string
	Members      int
	Seed         int64
	// Drift and Epoch are the drift's rate and epoch (0: no drift), and
	// Changes how many changes the drift made.
	Drift          float64
	Epoch, Changes int
	// Rate is the rate limit in calls a second, negative for none.
	Rate float64
	// SearchLatency is the range of a search's latency ([1] 0: none).
	SearchLatency  [2]time.Duration
	Credits, Quota int
}

// SandboxStats is what the sandbox served, said when it stops.
type SandboxStats struct {
	Calls, Accepted, RateLimited, Forbidden int
	CreditsSpent, RequestsSpent             int
}

// Sandbox is the view of `leadsync sandbox`: the banner on stdout, one
// line per call and the summary on stderr.
type Sandbox struct{ out, errOut io.Writer }

// NewSandbox returns the sandbox's view: banner to out, the calls and the
// summary to errOut.
func NewSandbox(out, errOut io.Writer) Sandbox { return Sandbox{out, errOut} }

// Started prints the banner: the base URLs, the key, the population and
// the limits.
func (v Sandbox) Started(s SandboxStart) error {
	_, err := fmt.Fprintf(v.out, `leadsync sandbox: both generations of the lead service on %s

  base_url    = %q   (first generation, /v1/...)
  base_url_v2 = %q   (second generation, /search and /scrap)
  API key       %s   (export LEADSYNC_API_KEY=%s)

%s (seed %d%s); rate limit %s; search latency %s; %s; %s left this month.
Press Ctrl-C to stop.
`, s.BaseURL, s.BaseURL, s.BaseURL, s.Key, s.Key, Plural(s.Members, "member"), s.Seed, sandboxDriftText(s), sandboxRateText(s.Rate), sandboxLatencyText(s.SearchLatency),
		Plural(s.Credits, "credit"), Plural(s.Quota, "request"))
	return err
}

// Call logs one call: time, method, path, status, duration.
func (v Sandbox) Call(start time.Time, method, path, status string, took time.Duration) {
	fmt.Fprintf(v.errOut, "%s %-4s %-18s %s %s\n", start.Format("15:04:05.000"), method, path, status, took.Round(time.Millisecond))
}

// Crashed says that the sandbox answered method path 500 on an internal
// error (value, a panic's), its stack in the crash log at log ("" when
// it could not be written).
func (v Sandbox) Crashed(method, path, value, log string) {
	if log == "" {
		log = "no file (it could not be written)"
	}
	fmt.Fprintf(v.errOut, "sandbox: an internal error answering %s %s: %s. This is a bug in leadsync: please report it with the details in %s.\n",
		method, path, value, log)
}

// Stopped says what the sandbox served and what it charged.
func (v Sandbox) Stopped(s SandboxStats) error {
	_, err := fmt.Fprintf(v.errOut, "sandbox stopped: %s (%s accepted, %s rate limited, %s forbidden), %s and %s spent\n",
		Plural(s.Calls, "call"), thousands(s.Accepted), thousands(s.RateLimited), thousands(s.Forbidden),
		Plural(s.CreditsSpent, "credit"), Plural(s.RequestsSpent, "request"))
	return err
}

// sandboxDriftText is ", drift 0.15 at epoch 2: 1,234 changes", or ""
// without drift.
func sandboxDriftText(s SandboxStart) string {
	if s.Drift == 0 || s.Epoch == 0 {
		return ""
	}
	return fmt.Sprintf(", drift %s at epoch %d: %s", strconv.FormatFloat(s.Drift, 'f', -1, 64), s.Epoch, Plural(s.Changes, "change"))
}

func sandboxRateText(r float64) string {
	if r < 0 {
		return "off"
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + " call/s"
}

func sandboxLatencyText(l [2]time.Duration) string {
	switch {
	case l[1] <= 0:
		return "none"
	case l[0] == l[1]:
		return l[0].String()
	}
	return l[0].String() + "-" + l[1].String()
}
