package textfmt

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	for _, tc := range []struct {
		s, secret, want string
	}{
		{"key sk_live_1234567890 refused", "sk_live_1234567890", "key [r] refused"},
		{"xsk_live_1234567890x", "sk_live_1234567890", "x[r]x"},
		{"key=abc123 (id abc123xyz)", "abc123", "key=[r] (id [r]xyz)"}, // short: inside words too
		{"nothing here", "", "nothing here"},
		{"nothing here", "zzz", "nothing here"},
	} {
		if got := Redact(tc.s, tc.secret, "[r]"); got != tc.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", tc.s, tc.secret, got, tc.want)
		}
	}
}

// FuzzRedact: the secret never survives, whatever its length.
func FuzzRedact(f *testing.F) {
	f.Add("key a refused", "a")
	f.Add("x sk_live_1 y", "sk_live_1")
	f.Fuzz(func(t *testing.T, s, secret string) {
		if secret == "" || strings.Contains("[r]", secret) {
			return
		}
		if got := Redact(s, secret, "[r]"); strings.Contains(got, secret) {
			t.Fatalf("Redact(%q, %q) = %q still holds the secret", s, secret, got)
		}
	})
}
