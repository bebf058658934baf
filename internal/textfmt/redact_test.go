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
		{"xsk_live_1234567890x", "sk_live_1234567890", "x[r]x"},                 // long: everywhere
		{"a bad answer: key a refused", "a", "[r] bad answer: key [r] refused"}, // alone: replaced
		{"Bad answer for key a", "a", "Bad answer for key [r]"},
		{"key=a&x=1", "a", "key=[r]&x=1"},
		{"abc", "a", "abc"},
		{"a", "a", "[r]"},
		{"k3y, k3y.", "k3y", "[r], [r]."},
		{"Straße k3y", "k3y", "Straße [r]"},
		{"äk3y", "k3y", "äk3y"},
		{"nothing here", "", "nothing here"},
		{"nothing here", "zzz", "nothing here"},
	} {
		if got := Redact(tc.s, tc.secret, "[r]"); got != tc.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", tc.s, tc.secret, got, tc.want)
		}
	}
}

// FuzzRedact: a secret never stands alone in the result.
func FuzzRedact(f *testing.F) {
	f.Add("key a refused", "a")
	f.Add("x sk_live_1 y", "sk_live_1")
	f.Fuzz(func(t *testing.T, s, secret string) {
		if secret == "" || strings.Contains("[r]", secret) {
			return
		}
		got := Redact(s, secret, "[r]")
		if len(secret) >= RedactWholeBelow {
			if strings.Contains(got, secret) {
				t.Fatalf("Redact(%q, %q) = %q still holds the secret", s, secret, got)
			}
			return
		}
		if got == secret || strings.HasPrefix(got, secret+" ") || strings.HasSuffix(got, " "+secret) || strings.Contains(got, " "+secret+" ") {
			t.Fatalf("Redact(%q, %q) = %q: the secret stands alone", s, secret, got)
		}
	})
}
