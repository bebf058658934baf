package plan

import (
	"testing"
	"time"

	"github.com/leadsync/leadsync/internal/api"
)

func TestTextHelpers(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9114: "9,114", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{7 * day: "7d", 36 * time.Hour: "36h", 90 * time.Minute: "90m", 90 * time.Second: "1m30s"} {
		if got := formatDuration(d); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", d, got, want)
		}
	}
	for s, want := range map[int]string{0: "0 s", 82: "82 s", 119: "119 s", 120: "2 min", 3601: "61 min", 37530: "10 h 26 min"} {
		if got := formatSeconds(s); got != want {
			t.Errorf("formatSeconds(%d) = %q, want %q", s, got, want)
		}
	}
	for d, want := range map[time.Duration]string{10 * time.Second: "just now", 5 * time.Minute: "5 min ago", 3 * time.Hour: "3 h ago", 9 * day: "9 days ago"} {
		if got := ago(t0, t0.Add(-d)); got != want {
			t.Errorf("ago(%v) = %q, want %q", d, got, want)
		}
	}
	if got := formatRate(0.5); got != "0.5 calls/s" {
		t.Errorf("formatRate(0.5) = %q", got)
	}
	if got := snake("currentStatusCodeFilter"); got != "current_status_code_filter" {
		t.Errorf("snake = %q", got)
	}
	long := describeRequest(api.SearchRequest{Params: map[string]any{"keywords": "Ünïcödé ääääääääääääääääääääääääääääääääääääääääääääääääää"}})
	if len(long) > maxDetail+4 || long[len(long)-4:] != " ..." {
		t.Errorf("describeRequest not truncated on a rune boundary: %q", long)
	}
}
