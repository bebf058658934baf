package api

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzParseRetryAfter: any header value gives a wait in [0, 24h].
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "3", "-1", "1.5", "99999999999999999999", "Fri, 20 Nov 2026 12:00:07 GMT", "Friday, 20-Nov-26 12:01:00 GMT", "Fri Nov 20 12:00:30 2026"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, h string) {
		d := parseRetryAfter(h, now)
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %s", h, d)
		}
	})
}

// FuzzServiceMessage: any error body gives a short, single-line message and
// never echoes the key when redacted.
func FuzzServiceMessage(f *testing.F) {
	for _, s := range []string{"", `{"message":"bad"}`, `{"error":{"a":1}}`, `"x"`, "<html><title>t</title>", "plain\ntext", `{"message":`} {
		f.Add(s, "")
		f.Add(s, "text/html")
	}
	f.Fuzz(func(t *testing.T, body, ct string) {
		m := serviceMessage([]byte(body), ct)
		if utf8.ValidString(m) && utf8.RuneCountInString(m) > 201 {
			t.Fatalf("message of %d runes", utf8.RuneCountInString(m))
		}
		if strings.ContainsAny(m, "\n\r\t") {
			t.Fatalf("message with line breaks: %q", m)
		}
		// The key anywhere in a long body, even where the message is cut.
		const key = "sk-secret"
		if !strings.Contains(body, "sk-") {
			long := strings.Repeat("x ", 95) + body + key + body
			if got := redactedMessage(redactor(key), []byte(long), ct); strings.Contains(got, "sk-") {
				t.Fatalf("part of the key in %q", got)
			}
		}
	})
}
