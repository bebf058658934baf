package views

import (
	"strings"
	"testing"
	"time"
)

// TestColumnsWide: columns align by display width, not by runes.
func TestColumnsWide(t *testing.T) {
	var b strings.Builder
	w := newLineWriter(&b)
	w.columns([][]string{{"日本語", "x"}, {"abc", "y"}})
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	want := "  日本語  x\n  abc     y\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestWhen(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{time.Time{}, "never"},
		{now.Add(time.Minute), "2026-01-02 03:05 UTC (in the future)"},
		{now.Add(-30 * time.Second), "2026-01-02 03:03 UTC (just now)"},
		{now.Add(-time.Minute), "2026-01-02 03:03 UTC (1 minute ago)"},
		{now.Add(-47 * time.Hour), "2025-12-31 04:04 UTC (47 hours ago)"},
		{now.Add(-48 * time.Hour), "2025-12-31 03:04 UTC (2 days ago)"},
	} {
		if got := When(c.at, now); got != c.want {
			t.Errorf("When(%v) = %q, want %q", c.at, got, c.want)
		}
	}
}
