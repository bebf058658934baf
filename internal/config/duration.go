package config

import (
	"fmt"
	"math"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// ParseDuration parses a duration: Go's units (ns, us, ms, s, m, h) plus d
// (24 hours) and w (7 days), in any combination: "36h", "7d", "2w", "1d12h",
// "1.5d". It rejects negative and empty durations.
func ParseDuration(s string) (time.Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty duration: use a number and a unit, like \"36h\", \"7d\" or \"2w\"")
	}
	if s == "0" {
		return 0, nil
	}
	var total float64
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, durationError(orig)
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, durationError(orig)
		}
		s = s[i:]
		j := 0
		for j < len(s) && !(s[j] >= '0' && s[j] <= '9' || s[j] == '.') {
			j++
		}
		unit := s[:j]
		s = s[j:]
		var mult float64
		switch unit {
		case "ns":
			mult = float64(time.Nanosecond)
		case "us", "µs", "μs":
			mult = float64(time.Microsecond)
		case "ms":
			mult = float64(time.Millisecond)
		case "s":
			mult = float64(time.Second)
		case "m":
			mult = float64(time.Minute)
		case "h":
			mult = float64(time.Hour)
		case "d":
			mult = float64(24 * time.Hour)
		case "w":
			mult = float64(7 * 24 * time.Hour)
		default:
			return 0, durationError(orig)
		}
		total += n * mult
		if total > math.MaxInt64 {
			return 0, fmt.Errorf("duration %q is too long", orig)
		}
	}
	return time.Duration(total), nil
}

func durationError(s string) error {
	return fmt.Errorf("invalid duration %q: use numbers with units, like \"90s\", \"36h\", \"7d\", \"2w\" or \"1d12h\" (units: ms, s, m, h, d, w)", s)
}

// FormatDuration writes d in the largest whole units of ParseDuration's
// language: 168h -> "7d", 36h -> "1d12h", 90s -> "1m30s".
func FormatDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	var b strings.Builder
	if d < 0 {
		b.WriteByte('-')
		d = -d
	}
	for _, u := range []struct {
		name string
		d    time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}} {
		if d >= u.d {
			fmt.Fprintf(&b, "%d%s", d/u.d, u.name)
			d %= u.d
		}
	}
	if d > 0 {
		b.WriteString(d.String())
	}
	return b.String()
}

// IsLoopbackURL reports whether raw is a URL whose host is a loopback
// address: localhost, 127.0.0.0/8 or [::1].
func IsLoopbackURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

func isLoopbackHost(h string) bool {
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// CheckBaseURL checks a service address: an absolute https:// URL without
// query or fragment, or http:// for a loopback host (a local stand-in). The
// rule exists because the API key travels with every request.
func CheckBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Scheme == "" || u.Opaque != "" {
		return fmt.Errorf("%q is not an absolute URL; write it like \"https://api.example.com\"", raw)
	}
	if strings.HasSuffix(u.Host, ":") {
		// "http://127.0.0.1:" (a port left out of a template) would call
		// the scheme's default port, 80 or 443: not what was meant.
		return fmt.Errorf("%q has an empty port after the colon; give the port (\"http://127.0.0.1:8787\") or leave the colon out", raw)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
	case "http":
		if !isLoopbackHost(u.Hostname()) {
			return fmt.Errorf("%q uses http://, which would send the API key unencrypted; use https:// (http:// is accepted only for localhost, 127.0.0.0/8 and [::1])", raw)
		}
	default:
		return fmt.Errorf("%q uses the scheme %q; use https://", raw, u.Scheme)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q has a query or fragment; give only the scheme, host and optional path prefix", raw)
	}
	if u.User != nil {
		return fmt.Errorf("the URL has credentials in it; remove them (the API key goes in api_key or LEADSYNC_API_KEY)")
	}
	return nil
}

// callPaths are the paths leadsync puts after each generation's address
// (spec sections 4 and 9): the first generation's under the /v1 prefix, the
// second's with none.
var callPaths = map[bool][]string{
	false: {"/v1", "/v1/scrap", "/v1/scrap/fields", "/v1/scrap/page", "/v1/scrap/enrich", "/v1/billing"},
	true:  {"/search", "/scrap"},
}

// CheckBasePath checks that a service address accepted by CheckBaseURL does
// not already end in a path leadsync adds to it: base_url
// "https://api.example.com/v1" would send the calls to /v1/v1/scrap, which
// the service answers with a bare 404. gen2 is set for base_url_v2, whose
// calls have no prefix, so the first generation's /v1 is wrong there too.
func CheckBasePath(raw string, gen2 bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return nil // CheckBaseURL reports it
	}
	p := strings.TrimRight(u.Path, "/")
	tails := callPaths[gen2]
	if gen2 {
		tails = append(append([]string{}, callPaths[false]...), tails...)
	}
	found := ""
	for _, t := range tails {
		if len(t) > len(found) && len(p) >= len(t) && strings.EqualFold(p[len(p)-len(t):], t) {
			found = t
		}
	}
	if found == "" {
		return nil
	}
	fixed := *u
	fixed.Path = p[:len(p)-len(found)]
	fixed.RawPath = ""
	tail := p[len(p)-len(found):]
	calls := "the first generation's calls go to {base_url}/v1/scrap, {base_url}/v1/billing and so on"
	first := "/v1/scrap"
	what := "which leadsync adds itself"
	if gen2 {
		calls, first = "the second generation's calls go to {base_url_v2}/search and {base_url_v2}/scrap", "/search"
		if strings.HasPrefix(found, "/v1") {
			what = "the first generation's prefix, which the second generation does not have"
		}
	}
	return fmt.Errorf("%q already ends in %s, %s: %s, so these would go to %s%s and fail (404 Not Found). Drop %s: %q",
		raw, tail, what, calls, p, first, tail, fixed.String())
}
