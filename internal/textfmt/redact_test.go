package textfmt

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		s       string
		secrets []string
		want    string
	}{
		{"key sk_live_1234567890 refused", []string{"sk_live_1234567890"}, "key [redacted] refused"},
		{"xsk_live_1234567890x", []string{"sk_live_1234567890"}, "x[redacted]x"},
		{"key=abc123 (id abc123xyz)", []string{"abc123"}, "key=[redacted] (id [redacted]xyz)"}, // short: inside words too
		{"nothing here", nil, "nothing here"},
		{"nothing here", []string{""}, "nothing here"},
		{"nothing here", []string{"zzz"}, "nothing here"},
		// Longest first: a secret holding another is replaced whole, in
		// whatever order the caller lists them.
		{"pw=hunter2 user=hunter", []string{"hunter", "hunter2"}, "pw=[redacted] user=[redacted]"},
		{"a b c", []string{"", "b", "c"}, "a [redacted] [redacted]"},
	} {
		if got := Redact(tc.s, tc.secrets...); got != tc.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", tc.s, tc.secrets, got, tc.want)
		}
	}
	secrets := []string{"a", "bbb"}
	Redact("x", secrets...)
	if secrets[0] != "a" {
		t.Errorf("Redact reordered the caller's secrets: %q", secrets)
	}
}

// FuzzRedact: no secret survives, whatever their lengths. The text left
// between the markers is the input's; a secret that only appears across a
// marker and its neighbours ("d]x" in "…acted]x") is made of the marker,
// not of the secret, so the check reads each marker as a character no
// secret holds.
func FuzzRedact(f *testing.F) {
	f.Add("key a refused", "a", "")
	f.Add("x sk_live_1 y", "sk_live_1", "live")
	f.Add("d]xx", "d]x", "")
	f.Fuzz(func(t *testing.T, s, secret, other string) {
		got := Redact(s, secret, other)
		left := strings.ReplaceAll(got, Redacted, "\x00")
		for _, sec := range []string{secret, other} {
			if sec == "" || strings.Contains(sec, "\x00") {
				continue
			}
			if strings.Contains(left, sec) {
				t.Fatalf("Redact(%q, %q, %q) = %q still holds %q", s, secret, other, got, sec)
			}
		}
	})
}
