package config

import (
	"fmt"
	"math"
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
